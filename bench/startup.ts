// Startup benchmark (issue 2, issue 16): wall time of `dlake --version` and of `dlake api GET
// /api/v3/catalog` with a cached token, side by side with a bare `node -e 0` and a bare node:http GET.
// The machine is shared and noisy, so each round runs `node -e 0` and then every case in turn (A/B
// pairs), and a case's ratio is the median over rounds of its time divided by that round's `node -e 0`.
// BENCH_BASELINE_BIN=/other/checkout/bin/dlake.js adds that build's `api GET` to every round, for a
// before/after comparison in the same conditions.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from 'dlake-emulator';
import { BIN, cleanEnv, runDlake } from '../test/helpers/dlake.js';
import { median, quantile, table } from './stats.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const PATH = process.env.BENCH_PATH ?? '/api/v3/catalog';

function timeRun(cmd: string, args: string[], env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
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
    const cases: Record<string, [string, string[]]> = {
      'node -e 0': [process.execPath, ['-e', '0']],
      'bare node:http GET': [process.execPath, [bareGet, `${emu.url}${PATH}`]],
      'dlake --version': [process.execPath, [BIN, '--version']],
      [`dlake api GET ${PATH}`]: [process.execPath, [BIN, 'api', 'GET', PATH]],
    };
    const baseline = process.env.BENCH_BASELINE_BIN;
    if (baseline)
      cases[`baseline dlake api GET ${PATH}`] = [process.execPath, [baseline, 'api', 'GET', PATH]];
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
    const ratios: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
    for (let i = 0; i < RUNS; i++) {
      let node = 0;
      for (const [name, [cmd, args]] of Object.entries(cases)) {
        const ms = await timeRun(cmd, args, env);
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
