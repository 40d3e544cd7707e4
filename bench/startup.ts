// Start-up benchmark, per supported Node major: `dlake catalog ls -o json` with a cached token (and its code
// cache) against a bare node:http GET of the same endpoint that prints the same JSON, beside `node -e 0`,
// `dlake --version` and a first run (no code cache). Each Node is the machine's own or the official binary of
// that major (scripts/node-major.sh, installed once into a cache outside the clone); BENCH_NODE_MAJORS picks
// them (default "20 22 24 26"). The machine is shared and noisy, so each round runs every case in turn, and
// a ratio is the median over rounds of the two cases' times in that round.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startEmulator } from 'dlake-emulator';
import { BIN, cleanEnv, runDlake } from '../test/helpers/dlake.js';
import { hasSecretService, startSecretService } from '../test/helpers/keyring.js';
import { loggedIn } from './session.js';
import { median, quantile, table } from './stats.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const MAJORS = (process.env.BENCH_NODE_MAJORS ?? '20 22 24 26').split(/\s+/).filter(Boolean);
const NODE_MAJOR = resolve(import.meta.dirname, '../scripts/node-major.sh');

interface Case {
  args: string[];
  env?: Record<string, string>;
  /** Runs before each timed run, untimed. */
  before?: () => void;
}

function timeRun(node: string, { args, env, before }: Case): Promise<{ ms: number; out: string }> {
  before?.();
  return new Promise((done, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(node, args, { env: env ?? process.env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}`));
      else done({ ms: Number(process.hrtime.bigint() - start) / 1e6, out });
    });
  });
}

/**
 * `dlake mcp` as an agent host starts it: the time until its answer to `initialize` arrives, and then, in the
 * same session, the time of one tool call that makes one request (reflection_status: a GET, as catalog ls's).
 * Standard input is closed afterwards, untimed; the session ends with it.
 */
function timeMcp(node: string, env: Record<string, string>): Promise<{ ms: number; callMs: number }> {
  return new Promise((done, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(node, [BIN, 'mcp'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
    const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
    let buffer = '';
    let ms = 0;
    let callStart = 0n;
    let callMs = 0;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      buffer += d;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const message = JSON.parse(buffer.slice(0, nl)) as {
          id?: number;
          error?: unknown;
          result?: { isError?: boolean };
        };
        buffer = buffer.slice(nl + 1);
        if (message.error || message.result?.isError) return reject(new Error(JSON.stringify(message)));
        if (message.id === 1) {
          ms = Number(process.hrtime.bigint() - start) / 1e6;
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          callStart = process.hrtime.bigint();
          send({
            jsonrpc: '2.0',
            id: 2,
            method: 'tools/call',
            params: { name: 'reflection_status', arguments: {} },
          });
        } else if (message.id === 2) {
          callMs = Number(process.hrtime.bigint() - callStart) / 1e6;
          child.stdin.end();
        }
      }
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 && callMs ? done({ ms, callMs }) : reject(new Error(`dlake mcp exited ${code}`)),
    );
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    });
  });
}

/** The machine's node for its own major, else the official binary of that major. */
function nodeOf(major: string): string | undefined {
  if (process.versions.node.split('.')[0] === major) return process.execPath;
  try {
    return execFileSync('bash', [NODE_MAJOR, major], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
  } catch {
    return undefined;
  }
}

export async function benchStartup(): Promise<string> {
  const emu = await startEmulator();
  const dir = mkdtempSync(join(tmpdir(), 'dlake-bench-'));
  // A real credential store (GNOME Keyring on a private bus), where the machine has one: the same command with
  // its token read from there (docs/guide.md "The credential store").
  const store = hasSecretService() ? await startSecretService() : undefined;
  try {
    const env = await loggedIn(dir, emu.url);
    const storeDir = join(dir, 'store');
    if (store) {
      const login = await runDlake(['login', '-u', 'admin', '--password-stdin'], {
        input: 'admin-pass-1',
        env: { ...cleanEnv({ DLAKE_CONFIG_DIR: storeDir, DLAKE_URL: emu.url }), ...store.env },
      });
      if (login.code !== 0) throw new Error(login.stderr);
    }
    const token = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')).tokens.default
      .token as string;
    const bareGet = join(dir, 'bare-get.cjs');
    // The reference a CLI cannot beat: node:http with the token at hand, printing what `catalog ls -o json`
    // prints (the listing's entries, indented by two).
    writeFileSync(
      bareGet,
      `const http = require('node:http');
http.get(process.argv[2], { headers: { authorization: 'Bearer ' + process.argv[3] } }, (r) => {
  let body = '';
  r.setEncoding('utf8').on('data', (d) => { body += d; });
  r.on('end', () => process.stdout.write(JSON.stringify(JSON.parse(body).data, null, 2) + '\\n'));
});`,
    );
    const sections: string[] = [];
    for (const major of MAJORS) {
      const node = nodeOf(major);
      if (!node) {
        sections.push(`Node ${major}: the official binary could not be had; not measured.`);
        continue;
      }
      // A logged-in config folder per Node (each keeps its own code caches) and one for first runs.
      const folder = (name: string, from = dir) => {
        const copy = join(dir, `${major}-${name}`);
        mkdirSync(copy, { mode: 0o700 });
        for (const f of ['config.json', 'credentials.json']) copyFileSync(join(from, f), join(copy, f));
        return { DLAKE_CONFIG_DIR: copy };
      };
      const cached = { ...env, ...folder('cached') };
      const cold = { ...env, ...folder('cold') };
      const cases: Record<string, Case> = {
        'node -e 0': { args: ['-e', '0'] },
        'bare node:http GET, printing the same JSON': { args: [bareGet, `${emu.url}/api/v3/catalog`, token] },
        'dlake --version': { args: [BIN, '--version'], env: cached },
        'dlake catalog ls -o json': { args: [BIN, 'catalog', 'ls', '-o', 'json'], env: cached },
      };
      // The token read from the store (on Linux in-process, over D-Bus: src/config/secret-service.ts), timed right
      // after the same command with its token in the file, which it is compared with.
      const STORE = 'dlake catalog ls -o json, its token in the OS credential store';
      if (store) {
        const inStore = { ...env, ...store.env, ...folder('store', storeDir) };
        cases[STORE] = { args: [BIN, 'catalog', 'ls', '-o', 'json'], env: inStore };
        await timeRun(node, cases[STORE]); // writes its code cache
      }
      cases['dlake catalog ls -o json, no code cache (a first run)'] = {
        args: [BIN, 'catalog', 'ls', '-o', 'json'],
        env: cold,
        before: () => rmSync(join(cold.DLAKE_CONFIG_DIR, 'cache'), { recursive: true, force: true }),
      };
      const MCP = 'dlake mcp: initialize answered';
      const MCP_CALL = 'dlake mcp: then one tool call (reflection_status, one GET) in the same session';
      const names = [...Object.keys(cases), MCP, MCP_CALL];
      const [, bare, , dlake] = names as [string, string, string, string];
      // The same output, and a code cache written, before anything is timed.
      const first = await timeRun(node, cases[dlake]!);
      if (first.out !== (await timeRun(node, cases[bare]!)).out) throw new Error('the outputs differ');
      await timeMcp(node, cached); // writes the mcp command's code cache
      const times: Record<string, number[]> = Object.fromEntries(names.map((k) => [k, []]));
      const ratios: Record<string, number[]> = Object.fromEntries(names.map((k) => [k, []]));
      for (let i = 0; i < RUNS; i++) {
        const round: Record<string, number> = {};
        for (const name of Object.keys(cases)) round[name] = (await timeRun(node, cases[name]!)).ms;
        const mcp = await timeMcp(node, cached);
        round[MCP] = mcp.ms;
        round[MCP_CALL] = mcp.callMs;
        for (const name of names) {
          times[name]!.push(round[name]!);
          ratios[name]!.push(round[name]! / round[bare]!);
        }
      }
      // What reading the token from the store adds to the same command with it in the file, round by round.
      const overFile = (name: string) => {
        const d = times[name]!.map((t, i) => t - times[dlake]![i]!);
        return `${median(d).toFixed(1)} ms (middle half ${quantile(d, 0.25).toFixed(1)} to ${quantile(d, 0.75).toFixed(1)})`;
      };
      const storeNote = store
        ? `\n\nThe token in the store rather than the file, the median of the rounds' differences: ${overFile(STORE)}.`
        : '';
      sections.push(
        `Node ${execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()}, ${RUNS} rounds:\n\n${table(
          ['command', 'median ms', 'ratio to the bare GET (median of rounds)', 'middle half of the ratios'],
          names.map((name) => [
            name,
            median(times[name]!).toFixed(1),
            `${median(ratios[name]!).toFixed(2)}×`,
            `${quantile(ratios[name]!, 0.25).toFixed(2)}–${quantile(ratios[name]!, 0.75).toFixed(2)}`,
          ]),
        )}${storeNote}`,
      );
    }
    return sections.join('\n\n');
  } finally {
    await emu.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`## Start-up\n\n${await benchStartup()}`);
}
