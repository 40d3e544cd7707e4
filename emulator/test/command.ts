// Runs the `dlake-emulator` command (the built bin, as users start it) as a child process.
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

export const EMULATOR_BIN = resolve(import.meta.dirname, '../bin/dlake-emulator.js');

export interface EmulatorProcess {
  child: ChildProcess;
  url: string;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  /** Sends SIGTERM and resolves with the exit code once the process has ended. */
  stop(): Promise<number | null>;
}

/**
 * Starts `dlake-emulator ARGS` and resolves once it prints the URL it listens on. `bin`: another
 * installation's command (default: this repository's).
 */
export function startEmulatorCommand(args: string[], bin = EMULATOR_BIN): Promise<EmulatorProcess> {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const ended = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`dlake-emulator did not start\n${out}\n${err}`));
    }, 30_000);
    const onData = (): void => {
      const url = /listening on (\S+)/.exec(out)?.[1];
      if (!url) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolveStart({
        child,
        url,
        stdout: () => out,
        stderr: () => err,
        stop: () => {
          child.kill('SIGTERM');
          return ended;
        },
      });
    };
    child.stdout!.on('data', onData);
    ended.then((code) => {
      clearTimeout(timer);
      reject(new Error(`dlake-emulator exited with ${code} before listening\n${out}\n${err}`));
    });
  });
}

/** Runs `dlake-emulator ARGS` to its end (for --help and bad arguments). */
export function runEmulatorCommand(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [EMULATOR_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}
