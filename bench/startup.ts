// Startup benchmark: wall time of `dlake --version` and of `dlake api GET
// /api/v3/catalog` with a cached token, side by side with a bare `node -e 0` and a bare node:http GET.
// The machine is shared and noisy, so each round runs `node -e 0` and then every case in turn (A/B
// pairs), and a case's ratio is the median over rounds of its time divided by that round's `node -e 0`.
// BENCH_BASELINE_BIN=/other/checkout/bin/dlake.js adds that build's `api GET` to every round, for a
// before/after comparison in the same conditions (with a config folder of its own: each build keeps only
// its own code cache). `api GET, no code cache` is a first run: its cache is removed before it runs.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from 'dlake-emulator';
import { BIN, cleanEnv, runDlake } from '../test/helpers/dlake.js';
import { median, quantile, table } from './stats.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const PATH = process.env.BENCH_PATH ?? '/api/v3/catalog';

interface Case {
  cmd: string;
  args: string[];
  env?: Record<string, string>;
  /** Runs before each timed run, untimed. */
  before?: () => void;
}

function timeRun({ cmd, args, env, before }: Case): Promise<number> {
  before?.();
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(cmd, args, { env: env ?? process.env, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}`));
      else resolve(Number(process.hrtime.bigint() - start) / 1e6);
    });
  });
}

export async function benchStartup(): Promise<string> {
  const emu = await startEmulator();
  const dir = mkdtempSync(join(tmpdir(), 'dlake-bench-'));
  try {
    const env = cleanEnv({ DLAKE_CONFIG_DIR: dir, DLAKE_URL: emu.url });
    const login = await runDlake(['login', '-u', 'admin', '--password-stdin'], {
      input: 'admin-pass-1',
      env,
    });
    if (login.code !== 0) throw new Error(login.stderr);
    const bareGet = join(dir, 'bare-get.mjs');
    // The reference a CLI cannot beat: node:http with the header already at hand.
    writeFileSync(
      bareGet,
      `import http from 'node:http';
http.get(process.argv[2], { headers: { authorization: 'x' } }, (r) => { r.resume(); r.on('end', () => {}); });`,
    );
    // Each build and the no-cache case get a logged-in config folder of their own.
    const loggedInCopy = (name: string) => {
      const copy = join(dir, name);
      mkdirSync(copy, { mode: 0o700 });
      for (const f of ['config.json', 'credentials.json']) copyFileSync(join(dir, f), join(copy, f));
      return { dir: copy, env: { ...env, DLAKE_CONFIG_DIR: copy } };
    };
    const { dir: coldDir, env: coldEnv } = loggedInCopy('cold');
    const baselineEnv = loggedInCopy('baseline').env;
    const node = process.execPath;
    const cases: Record<string, Case> = {
      'node -e 0': { cmd: node, args: ['-e', '0'] },
      'bare node:http GET': { cmd: node, args: [bareGet, `${emu.url}${PATH}`] },
      'dlake --version': { cmd: node, args: [BIN, '--version'], env },
      [`dlake api GET ${PATH}`]: { cmd: node, args: [BIN, 'api', 'GET', PATH], env },
      [`dlake api GET ${PATH}, no code cache`]: {
        cmd: node,
        args: [BIN, 'api', 'GET', PATH],
        env: coldEnv,
        before: () => rmSync(join(coldDir, 'cache'), { recursive: true, force: true }),
      },
    };
    const baseline = process.env.BENCH_BASELINE_BIN;
    if (baseline)
      cases[`baseline dlake api GET ${PATH}`] = {
        cmd: node,
        args: [baseline, 'api', 'GET', PATH],
        env: baselineEnv,
      };
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
    const ratios: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
    for (let i = 0; i < RUNS; i++) {
      let node = 0;
      for (const [name, c] of Object.entries(cases)) {
        const ms = await timeRun(c);
        if (name === 'node -e 0') node = ms;
        times[name]!.push(ms);
        ratios[name]!.push(ms / node);
      }
    }
    return table(
      ['command', 'median ms', 'ratio to node -e 0 (median of pairs)', 'middle half of the ratios'],
      Object.keys(cases).map((name) => [
        name,
        median(times[name]!).toFixed(1),
        `${median(ratios[name]!).toFixed(2)}×`,
        `${quantile(ratios[name]!, 0.25).toFixed(2)}–${quantile(ratios[name]!, 0.75).toFixed(2)}`,
      ]),
    );
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`## Startup (${RUNS} rounds of A/B pairs)\n\n${await benchStartup()}`);
}
