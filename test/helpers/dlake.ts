// Runs the built `dlake` binary as a child process, the way users and CI scripts do.
// Always asynchronous: the emulator usually runs in the test's own process and must keep serving.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const BIN = resolve(import.meta.dirname, '../../bin/dlake.js');

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Of an in-process run: bytes written to stdout were not valid UTF-8. */
  stdoutInvalidUtf8?: boolean;
}

export interface RunOptions {
  /** Extra environment; DLAKE_* and proxy variables of the outer environment are never inherited. */
  env?: Record<string, string | undefined>;
  /** Written to stdin, then stdin is closed. Without it, stdin is closed at once. */
  input?: string;
  cwd?: string;
  /** Kills the child after this long (a safety net, not an assertion). Default 60 s. */
  killAfterMs?: number;
}

/** Environment of a clean run: no colour, no inherited credentials or proxies. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || /^(DLAKE_|HTTPS?_PROXY$|NO_PROXY$|FORCE_COLOR$)/i.test(k)) continue;
    env[k] = v;
  }
  env.NO_COLOR = '1';
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** A running `dlake` that a test can interrupt (SIGINT, as Ctrl-C sends) once it has reached a chosen point. */
export interface RunningDlake {
  readonly stdout: string;
  readonly stderr: string;
  /** Sends SIGINT, as Ctrl-C on a terminal does. */
  interrupt(): void;
  /** Sends SIGTERM, as a CI runner stopping a job does. */
  terminate(): void;
  /** Sends any signal (SIGTERM as `docker stop` does, SIGHUP as a closed terminal does). */
  kill(signal: NodeJS.Signals): void;
  /** Resolves when the process has ended. */
  done: Promise<RunResult>;
}

export function startDlake(args: string[], opts: RunOptions = {}): RunningDlake {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: opts.cwd,
    env: cleanEnv(opts.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  child.stdin.on('error', () => {});
  child.stdin.end(opts.input ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs ?? 60_000);
  const done = new Promise<RunResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return {
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    interrupt: () => {
      child.kill('SIGINT');
    },
    terminate: () => {
      child.kill('SIGTERM');
    },
    kill: (signal) => {
      child.kill(signal);
    },
    done,
  };
}

export function runDlake(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return startDlake(args, opts).done;
}

/** A fresh config folder for one test; removed by the returned cleanup. */
export function tempConfigDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'dlake-test-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
