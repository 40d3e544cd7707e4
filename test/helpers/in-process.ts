// Runs dlake inside the test's own process: runCli with captured streams, the environment a spawned run would
// get (test/helpers/dlake.ts cleanEnv), and stdin fed from `input`. Same results as spawning the built binary
// for everything but what only a process shows (signals, TTYs, exit-time flushing, the bundle), at a fraction
// of the cost. The emulator runs in this process too, so each run only pays for the command itself.
import { Readable, Writable } from 'node:stream';
import { runCli } from '../../src/runtime.js';
import { cleanEnv, type RunOptions, type RunResult } from './dlake.js';

// Each run listens for SIGINT, SIGTERM and SIGHUP while it lasts (src/runtime.ts); a test file that starts many
// runs at once in this one process goes past Node's default of 10 listeners, which is no leak.
process.setMaxListeners(64);

/** A writable that keeps what is written, as a non-TTY stdout or stderr. */
class Capture extends Writable {
  text = '';
  readonly isTTY = false;

  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: (error?: Error | null) => void): void {
    this.text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    done();
  }
}

export async function runInProcess(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const stdout = new Capture();
  const stderr = new Capture();
  const stdin = Readable.from(opts.input === undefined ? [] : [Buffer.from(opts.input)]);
  const streams = {
    stdin: stdin as unknown as NodeJS.ReadStream,
    stdout: stdout as unknown as NodeJS.WriteStream,
    stderr: stderr as unknown as NodeJS.WriteStream,
  };
  const code = await runCli(['node', 'dlake', ...args], { env: cleanEnv(opts.env), streams });
  return { code, signal: null, stdout: stdout.text, stderr: stderr.text };
}
