// Runs the built `dlake` as a child process that a test can interrupt (SIGINT, as Ctrl-C sends) once it has
// reached a chosen point, for the Ctrl-C paths of waits and exports.
import { spawn } from 'node:child_process';
import { BIN, cleanEnv, type RunOptions, type RunResult } from './dlake.js';

export interface RunningDlake {
  readonly stdout: string;
  readonly stderr: string;
  /** Sends SIGINT, as Ctrl-C on a terminal does. */
  interrupt(): void;
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
    done,
  };
}

/** Polls `condition` every 10 ms until it holds (or fails the test after `timeoutMs`). */
export async function until(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
