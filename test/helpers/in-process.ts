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

/** A writable that keeps what is written, as a stdout or stderr: a pipe, or an 80-column terminal with `tty`. */
class Capture extends Writable {
  text = '';
  /** Set when what was written is not valid UTF-8 (a string is; bytes are checked as they come). */
  invalidUtf8 = false;
  private readonly utf8 = new TextDecoder('utf-8', { fatal: true });
  readonly columns: number | undefined;

  constructor(
    readonly isTTY = false,
    private readonly onText?: (text: string) => void,
  ) {
    super();
    this.columns = isTTY ? 80 : undefined;
  }

  // What a terminal's stream has beside write (ora moves the cursor with them), writing what tty.WriteStream does.
  cursorTo(x: number, _y?: unknown, done?: () => void): boolean {
    return this.write(`\u001b[${x + 1}G`, done);
  }
  moveCursor(dx: number, dy: number, done?: () => void): boolean {
    return this.write(
      `${dx ? `\u001b[${dx}C` : ''}${dy < 0 ? `\u001b[${-dy}A` : dy > 0 ? `\u001b[${dy}B` : ''}`,
      done,
    );
  }
  clearLine(_dir: number, done?: () => void): boolean {
    return this.write('\u001b[2K', done);
  }
  getWindowSize(): [number, number] {
    return [this.columns ?? 80, 24];
  }
  hasColors(): boolean {
    return false;
  }

  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: (error?: Error | null) => void): void {
    if (typeof chunk !== 'string' && !this.invalidUtf8) {
      try {
        this.utf8.decode(chunk, { stream: true });
      } catch {
        this.invalidUtf8 = true;
      }
    }
    const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    this.text += text;
    this.onText?.(text);
    done();
  }
}

export interface InProcessOptions extends RunOptions {
  /** Standard output and error are an 80-column terminal rather than pipes. */
  tty?: boolean;
  /**
   * Standard input in place of `input`: a stream the caller writes as the run goes and ends when it is done, for
   * a dialogue (an MCP host's requests, each sent once the one before was answered).
   */
  stdin?: Readable;
  /** Told each piece of standard output as it is written, for a dialogue to wait for its answers. */
  onStdout?: (text: string) => void;
}

export async function runInProcess(args: string[], opts: InProcessOptions = {}): Promise<RunResult> {
  const stdout = new Capture(opts.tty, opts.onStdout);
  const stderr = new Capture(opts.tty);
  const stdin = opts.stdin ?? Readable.from(opts.input === undefined ? [] : [Buffer.from(opts.input)]);
  const streams = {
    stdin: stdin as unknown as NodeJS.ReadStream,
    stdout: stdout as unknown as NodeJS.WriteStream,
    stderr: stderr as unknown as NodeJS.WriteStream,
  };
  const code = await runCli(['node', 'dlake', ...args], { env: cleanEnv(opts.env), streams });
  return {
    code,
    signal: null,
    stdout: stdout.text,
    stderr: stderr.text,
    stdoutInvalidUtf8: stdout.invalidUtf8,
  };
}
