// Startup benchmark (issue 2): median wall time of `dlake --version` and of `dlake api GET
// /api/v3/catalog` with a cached token, side by side with a bare `node -e 0` and a bare node:http GET,
// interleaved in one run so that machine noise hits all of them alike.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from 'dlake-emulator';
import { BIN, cleanEnv, runDlake } from '../test/helpers/dlake.js';
import { median, table } from './stats.js';

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
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
    for (let i = 0; i < RUNS; i++) {
      for (const [name, [cmd, args]] of Object.entries(cases))
        times[name]!.push(await timeRun(cmd, args, env));
    }
    const base = median(times['node -e 0']!);
    return table(
      ['command', 'median ms', 'ratio to node -e 0'],
      Object.entries(times).map(([name, t]) => [
        name,
        median(t).toFixed(1),
        `${(median(t) / base).toFixed(2)}×`,
      ]),
    );
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`## Startup (${RUNS} interleaved runs each)\n\n${await benchStartup()}`);
}
