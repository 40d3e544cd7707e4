// What the export benchmarks share: an emulator in this process with a `big` table, a logged-in config
// folder, completed jobs to export, and a child-process runner (dlake runs as its own process, as in real use).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Emulator, startEmulator } from 'dlake-emulator';
import { BIN, cleanEnv, runDlake } from '../test/helpers/dlake.js';

export interface BenchSession {
  emu: Emulator;
  dir: string;
  env: Record<string, string>;
  bin: string;
  token: string;
  /** A completed job of every row of `big`. */
  big: string;
  job(sql: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * The environment of a dlake whose config folder is `configDir`, logged in to the emulator at `url` as its admin
 * (`extra`: more login options, e.g. `--flight-url`).
 */
export async function loggedIn(
  configDir: string,
  url: string,
  extra: string[] = [],
): Promise<Record<string, string>> {
  const env = cleanEnv({ DLAKE_CONFIG_DIR: configDir, DLAKE_URL: url });
  const login = await runDlake(['login', '-u', 'admin', '--password-stdin', ...extra], {
    input: 'admin-pass-1',
    env,
  });
  if (login.code !== 0) throw new Error(login.stderr);
  return env;
}

export function run(
  cmd: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ ms: number; out: string }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}: ${err}`));
      else resolve({ ms: performance.now() - start, out });
    });
  });
}

export async function benchSession(rows: number): Promise<BenchSession> {
  const emu = await startEmulator({ bigRows: rows, jobStepMs: 1 });
  const dir = mkdtempSync(join(tmpdir(), 'dlake-bench-export-'));
  const env = await loggedIn(dir, emu.url);
  const token = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')).tokens.default
    .token as string;
  const job = async (sql: string): Promise<string> => {
    const r = await runDlake(['sql', sql, '--no-wait'], { env });
    if (r.code !== 0) throw new Error(r.stderr);
    const id = r.stdout.trim();
    const jobs = emu.jobs;
    while (jobs.get(id)?.state !== 'COMPLETED') {
      if (jobs.get(id)?.state === 'FAILED') throw new Error(jobs.get(id)?.errorMessage);
      await new Promise((res) => setTimeout(res, 50));
    }
    return id;
  };
  const big = await job('SELECT * FROM big');
  return {
    emu,
    dir,
    env,
    bin: BIN,
    token,
    big,
    job,
    close: async () => {
      await emu.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
