// `apply` benchmark: 1,000 definitions (spaces, folders, views reading other views) applied into an
// empty service with the default --concurrency, side by side with --concurrency 1 (one write at a time), the
// two taken in turn so that a shared machine's drifting speed hits both alike. Every catalog request gets 5 ms
// of latency, as in the tree benchmark: a service across a network, not a local emulator that is itself the
// bottleneck. Each run starts from an empty catalog (the spaces of the last run are deleted first).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from 'dlake-emulator';
import { cleanEnv, runDlake } from '../test/helpers/dlake.js';
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
    const env = cleanEnv({ DLAKE_CONFIG_DIR: join(dir, 'config'), DLAKE_URL: emu.url });
    const login = await runDlake(['login', '-u', 'admin', '--password-stdin'], {
      input: 'admin-pass-1',
      env,
    });
    if (login.code !== 0) throw new Error(login.stderr);
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

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`## apply (${RUNS} runs each)\n\n${await benchAscode()}`);
}
