// `apply` benchmark: 1,000 definitions (spaces, folders, views reading other views) applied into an
// empty service with the default --concurrency, side by side with --concurrency 1 (one write at a time), the
// two taken in turn so that a shared machine's drifting speed hits both alike. Every catalog request gets 5 ms
// of latency, as in the tree benchmark: a service across a network, not a local emulator that is itself the
// bottleneck. Each run starts from an empty catalog (the spaces of the last run are deleted first).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from 'dlake-emulator';
import { BIN, runDlake } from '../test/helpers/dlake.js';
import { loggedIn, run } from './session.js';
import { median, table } from './stats.js';

// 10 spaces × 10 folders × 8 views, and 9 views per space reading views in its folders: 1,000 entities.
const SPACES = 10;
const FOLDERS = 10;
const VIEWS = 8;
const SPACE_VIEWS = 9;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 5);
/** apply's default --concurrency (src/commands/ascode.ts). */
const DEFAULT_CONCURRENCY = 8;

/** The definition files, in the layout `pull` writes; returns how many. */
function writeFiles(dir: string): number {
  let count = 0;
  const put = (path: string[], body: string) => {
    const file = join(dir, ...path.slice(0, -1), `${path.at(-1)}.yaml`);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, `path: ${JSON.stringify(path)}\n${body}`);
    count++;
  };
  for (let s = 0; s < SPACES; s++) {
    const space = `bench${s}`;
    put([space], 'kind: space\n');
    for (let f = 0; f < FOLDERS; f++) {
      const folder = `f${f}`;
      put([space, folder], 'kind: folder\n');
      for (let v = 0; v < VIEWS; v++) {
        // A chain inside each folder (v1 reads v0, …), v0 of each folder after the first reading the last
        // folder's v0: what each view reads must exist before it.
        const sql =
          v > 0
            ? `SELECT n + 1 AS n FROM ${space}.${folder}.v${v - 1}`
            : f > 0
              ? `SELECT n * 2 AS n FROM "${space}"."f${f - 1}".v0`
              : `SELECT ${s} AS n`;
        put([space, folder, `v${v}`], `kind: view\nsql: '${sql}'\n`);
      }
    }
    for (let t = 0; t < SPACE_VIEWS; t++) {
      const sql = `SELECT a.n FROM f${t}.v${VIEWS - 1} a JOIN f${t + 1}.v0 b ON a.n = b.n`;
      put([space, `top${t}`], `kind: view\nsql: '${sql}'\nsqlContext: [${space}]\n`);
    }
  }
  return count;
}

export async function benchAscode(): Promise<string> {
  const emu = await startEmulator();
  const dir = mkdtempSync(join(tmpdir(), 'dlake-bench-ascode-'));
  try {
    const files = join(dir, 'lake');
    const entities = writeFiles(files);
    const env = await loggedIn(join(dir, 'config'), emu.url);
    const admin = emu.state.userByName('admin')!;
    const token = emu.state.issueToken(admin.id, 'session', 3_600_000).token;
    const empty = async () => {
      for (let s = 0; s < SPACES; s++) {
        const res = await fetch(`${emu.url}/api/v3/catalog/by-path/bench${s}`, {
          headers: { authorization: `_service${token}` },
        });
        if (res.status === 404) continue;
        const { id } = (await res.json()) as { id: string };
        const del = await fetch(`${emu.url}/api/v3/catalog/${encodeURIComponent(id)}`, {
          method: 'DELETE',
          headers: { authorization: `_service${token}` },
        });
        if (!del.ok) throw new Error(`emptying failed: ${del.status}`);
      }
      emu.log.clear();
    };
    if (LATENCY_MS > 0) emu.fault({ kind: 'latency', latencyMs: LATENCY_MS, path: '/api/v3/catalog' });
    const time = async (concurrency: number) => {
      await empty();
      const start = process.hrtime.bigint();
      const r = await runDlake(['apply', '--dir', files, '--concurrency', String(concurrency)], { env });
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (r.code !== 0) throw new Error(r.stderr);
      if (!r.stderr.includes(`Applied: ${entities} created`)) throw new Error(`unexpected: ${r.stderr}`);
      return { ms, requests: emu.log.entries.length };
    };
    const sequential: number[] = [];
    const concurrent: number[] = [];
    let requests = 0;
    const load = loadavg()[0]!;
    for (let i = 0; i < RUNS; i++) {
      sequential.push((await time(1)).ms);
      const c = await time(DEFAULT_CONCURRENCY);
      concurrent.push(c.ms);
      requests = c.requests;
    }
    await empty();
    const planStart = process.hrtime.bigint();
    const planned = await runDlake(['plan', '--dir', files], { env });
    const planMs = Number(process.hrtime.bigint() - planStart) / 1e6;
    if (planned.code !== 0) throw new Error(planned.stderr);
    const seq = median(sequential);
    const con = median(concurrent);
    return (
      table(
        ['apply', 'median ms', 'speed-up'],
        [
          ['one write at a time (--concurrency 1)', seq.toFixed(0), '1.00×'],
          [
            `concurrent (default, --concurrency ${DEFAULT_CONCURRENCY})`,
            con.toFixed(0),
            `${(seq / con).toFixed(2)}×`,
          ],
        ],
      ) +
      `\n\n${entities} entities into an empty catalog, ${requests} requests per apply (plan reads included), ` +
      `${LATENCY_MS} ms latency per catalog request, ${RUNS} runs each taken in turn; ` +
      `load average ${load.toFixed(1)} at the start. Planning alone (the reads both runs start with, ` +
      `at 8 at a time): ${planMs.toFixed(0)} ms.`
    );
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// At scale: 10,000 entities (10 spaces × 20 folders × 49 views, a third of them tagged, one in ten with a wiki;
// each view reads the one before it in its folder, the first of each folder a view of the folder before), each
// of pull, plan, apply and diff (against a second server holding the same) timed with its peak RSS (GNU time's %M), against the same 5 ms per catalog request.
const SCALE_SPACES = Number(process.env.BENCH_SCALE_SPACES ?? 10);
const SCALE_FOLDERS = 20;
const SCALE_VIEWS = 49;
/** plan and diff, taken in turn this many times. */
const SCALE_ROUNDS = Number(process.env.BENCH_SCALE_ROUNDS ?? 3);
const TIME = '/usr/bin/time';
/** The goals for each of pull, plan and apply at 10,000 entities. */
const GOAL_MS = 15_000;
const GOAL_MIB = 200;

function writeScaleFiles(dir: string): number {
  let count = 0;
  const put = (path: string[], body: string) => {
    const file = join(dir, ...path.slice(0, -1), `${path.at(-1)}.yaml`);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, `kind: ${body}path: ${JSON.stringify(path)}\n`);
    count++;
  };
  for (let s = 0; s < SCALE_SPACES; s++) {
    const space = `scale${s}`;
    put([space], 'space\ntags: [bench]\n');
    for (let f = 0; f < SCALE_FOLDERS; f++) {
      put([space, `f${f}`], `folder\n${f % 10 === 0 ? 'wiki: "# Folder\\n"\n' : ''}`);
      for (let v = 0; v < SCALE_VIEWS; v++) {
        const sql =
          v > 0
            ? `SELECT n + 1 AS n FROM ${space}.f${f}.v${v - 1}`
            : f > 0
              ? `SELECT n FROM ${space}.f${f - 1}.v0`
              : `SELECT ${s} AS n`;
        const extra = `${v % 3 === 0 ? 'tags: [gold]\n' : ''}${v % 10 === 0 ? 'wiki: "# View\\n"\n' : ''}`;
        put([space, `f${f}`, `v${v}`], `view\nsql: '${sql}'\n${extra}`);
      }
    }
  }
  return count;
}

interface Measured {
  ms: number;
  mib?: number;
  /** User and system CPU seconds of the dlake process: less at the mercy of a shared machine than wall time. */
  cpu?: number;
  out: string;
}

/** One dlake command, timed from spawn to exit, with its peak RSS where GNU time is installed. */
async function measured(args: string[], env: Record<string, string>, dir: string): Promise<Measured> {
  const rss = existsSync(TIME) ? join(dir, 'rss.txt') : undefined;
  const r = rss
    ? await run(TIME, ['-f', '%M %U %S', '-o', rss, process.execPath, BIN, ...args], env)
    : await run(process.execPath, [BIN, ...args], env);
  if (!rss) return { ms: r.ms, out: r.out };
  const [kib, user, sys] = readFileSync(rss, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  return { ms: r.ms, mib: kib! / 1024, cpu: user! + sys!, out: r.out };
}

export async function benchAscodeScale(): Promise<string> {
  const emu = await startEmulator();
  const others: Array<{ close(): Promise<void> }> = [];
  const dir = mkdtempSync(join(tmpdir(), 'dlake-bench-ascode-scale-'));
  try {
    const files = join(dir, 'lake');
    const entities = writeScaleFiles(files);
    const env = await loggedIn(join(dir, 'config'), emu.url);
    if (LATENCY_MS > 0) emu.fault({ kind: 'latency', latencyMs: LATENCY_MS, path: '/api/v3/catalog' });
    const load = loadavg()[0]!;
    emu.log.clear();
    const apply = await measured(['apply', '--dir', files, '-q'], env, dir);
    const applyRequests = emu.log.entries.length;
    emu.log.clear();
    const pulled = join(dir, 'pulled');
    const pull = await measured(['pull', '--dir', pulled, '-q'], env, dir);
    const pullRequests = emu.log.entries.length;
    // diff: the same estate on a second server, both read at once and compared. plan and diff are taken in
    // turn, SCALE_ROUNDS times, so that a shared machine's drifting load hits both alike.
    const other = await startEmulator();
    others.push(other);
    const toOther = ['-p', 'other'];
    const login = await runDlake(
      ['login', ...toOther, '--url', other.url, '-u', 'admin', '--password-stdin'],
      {
        input: 'admin-pass-1',
        env,
      },
    );
    if (login.code !== 0) throw new Error(login.stderr);
    const filled = await runDlake([...toOther, 'apply', '--dir', files, '-q'], { env });
    if (filled.code !== 0) throw new Error(filled.stderr);
    if (LATENCY_MS > 0) other.fault({ kind: 'latency', latencyMs: LATENCY_MS, path: '/api/v3/catalog' });
    const plans: Measured[] = [];
    const diffs: Measured[] = [];
    const rounds: string[][] = [];
    let reads: string[] = [];
    let diffRequests = 0;
    for (let i = 0; i < SCALE_ROUNDS; i++) {
      const loadBefore = loadavg()[0]!;
      emu.log.clear();
      const plan = await measured(['plan', '--dir', pulled, '--exit-code'], env, dir);
      if (plan.out !== 'Plan: 0 to create, 0 to update, 0 to delete.\n') throw new Error(`plan: ${plan.out}`);
      reads = emu.log.entries.map((e) => `${e.method} ${e.path} ${JSON.stringify(e.query)}`);
      emu.log.clear();
      other.log.clear();
      const diff = await measured(
        ['diff', '-p', 'default', '-p', 'other', 'space', 'folder', 'view'],
        env,
        dir,
      );
      if (diff.out !== 'default → other: 0 to create, 0 to update, 0 to delete.\n')
        throw new Error(`diff: ${diff.out}`);
      diffRequests = emu.log.entries.length + other.log.entries.length;
      plans.push(plan);
      diffs.push(diff);
      rounds.push([
        String(i + 1),
        `${(plan.ms / 1000).toFixed(1)} (${plan.cpu?.toFixed(1) ?? 'n/a'})`,
        `${(diff.ms / 1000).toFixed(1)} (${diff.cpu?.toFixed(1) ?? 'n/a'})`,
        `${(diff.ms / plan.ms).toFixed(2)}×`,
        `${loadBefore.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`,
      ]);
    }
    const twice = reads.length - new Set(reads).size;
    const loadAfter = loadavg()[0]!;
    // The round of median wall time, for the table.
    const middle = (ms: Measured[]) => [...ms].sort((a, b) => a.ms - b.ms)[Math.floor(ms.length / 2)]!;
    const row = (name: string, m: Measured, requests: number) => [
      name,
      (m.ms / 1000).toFixed(1),
      m.cpu === undefined ? 'n/a' : m.cpu.toFixed(1),
      m.mib === undefined ? 'n/a' : m.mib.toFixed(0),
      requests.toLocaleString('en-US'),
      m.ms <= GOAL_MS && (m.mib ?? 0) <= GOAL_MIB ? 'met' : 'missed',
    ];
    return (
      table(
        [
          'command',
          'seconds',
          'CPU seconds',
          'peak RSS MiB',
          'requests',
          `goal ≤ ${GOAL_MS / 1000} s, ≤ ${GOAL_MIB} MiB`,
        ],
        [
          row('apply (into an empty service)', apply, applyRequests),
          row('pull (everything)', pull, pullRequests),
          row(`plan (unchanged estate; median of ${SCALE_ROUNDS})`, middle(plans), reads.length),
          row(`diff (two such estates, both read; median of ${SCALE_ROUNDS})`, middle(diffs), diffRequests),
        ],
      ) +
      `\n\n${entities.toLocaleString('en-US')} entities, ${LATENCY_MS} ms latency per catalog request, ` +
      `default concurrency; load average ${load.toFixed(1)} at the start, ${loadAfter.toFixed(1)} at the end. The plan of the unchanged estate ` +
      `made ${twice} repeated request${twice === 1 ? '' : 's'} (goal: no entity read twice).\n\n` +
      table(['round', 'plan s (CPU s)', 'diff s (CPU s)', 'diff / plan', 'load average'], rounds)
    );
  } finally {
    await Promise.all([emu.close(), ...others.map((o) => o.close())]);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.env.BENCH_ONLY !== 'scale')
    console.log(`## apply (${RUNS} runs each)\n\n${await benchAscode()}`);
  console.log(`## Definitions as code at scale\n\n${await benchAscodeScale()}`);
}
