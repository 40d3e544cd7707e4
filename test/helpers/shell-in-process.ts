// The SQL shell (`dlake sql` on a terminal) run inside the test's own process, on a stand-in terminal: keys are
// pushed into a raw-mode stdin, and what dlake writes to stdout and stderr is kept, with the bytes counted, so a
// test can assert the work done (bytes written while a paste is echoed) as well as what was shown. What only a
// real terminal shows (the pager and the editor, which take it over, cursor moves) is tested through a
// pseudo-terminal instead (test/helpers/pty.ts).
import * as readline from 'node:readline';
import { PassThrough, Writable } from 'node:stream';
import { runCli } from '../../src/runtime.js';
import { cleanEnv } from './dlake.js';
import { until } from './until.js';

/** A terminal's keyboard: bytes pushed in arrive as typed keys (raw mode). */
class TerminalInput extends PassThrough {
  readonly isTTY = true;
  isRaw = false;

  setRawMode(mode: boolean): this {
    this.isRaw = mode;
    return this;
  }
}

/** A terminal's screen: keeps the text, and counts the bytes and writes. */
class TerminalOutput extends Writable {
  readonly isTTY = true;
  text = '';
  bytes = 0;
  writes = 0;

  constructor(
    readonly columns: number,
    readonly rows: number,
  ) {
    super({ decodeStrings: false });
  }

  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: (error?: Error | null) => void): void {
    const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    this.text += text;
    this.bytes += Buffer.byteLength(text);
    this.writes++;
    done();
  }

  // What a tty.WriteStream adds (spinners and progress lines use them).
  cursorTo(x: number, y?: number | (() => void), cb?: () => void): boolean {
    return typeof y === 'number'
      ? readline.cursorTo(this, x, y, cb)
      : readline.cursorTo(this, x, undefined, y);
  }

  moveCursor(dx: number, dy: number, cb?: () => void): boolean {
    return readline.moveCursor(this, dx, dy, cb);
  }

  clearLine(dir: -1 | 0 | 1, cb?: () => void): boolean {
    return readline.clearLine(this, dir, cb);
  }

  clearScreenDown(cb?: () => void): boolean {
    return readline.clearScreenDown(this, cb);
  }

  getWindowSize(): [number, number] {
    return [this.columns, this.rows];
  }

  getColorDepth(): number {
    return 1;
  }

  hasColors(): boolean {
    return false;
  }
}

export interface ShellInProcess {
  readonly stdout: TerminalOutput;
  readonly stderr: TerminalOutput;
  /** Keys typed (or text pasted: one chunk, as a terminal delivers a paste). */
  type(keys: string): void;
  /** Waits until stdout+stderr (as written, in order of each stream) match. */
  waitFor(what: string | RegExp, stream?: 'stdout' | 'stderr', timeoutMs?: number): Promise<void>;
  /** The exit code, once the shell has ended (Ctrl-D or \q). */
  done: Promise<number>;
}

export function startShellInProcess(
  env: Record<string, string | undefined>,
  size = { columns: 100, rows: 30 },
  args: string[] = [],
): ShellInProcess {
  const stdin = new TerminalInput();
  const stdout = new TerminalOutput(size.columns, size.rows);
  const stderr = new TerminalOutput(size.columns, size.rows);
  const done = runCli(['node', 'dlake', 'sql', ...args], {
    // No pager: it would be started on the test process's own terminal (pagers are tested through a pty).
    env: cleanEnv({ CI: undefined, PAGER: '', ...env }),
    streams: {
      stdin: stdin as unknown as NodeJS.ReadStream,
      stdout: stdout as unknown as NodeJS.WriteStream,
      stderr: stderr as unknown as NodeJS.WriteStream,
    },
  });
  return {
    stdout,
    stderr,
    type: (keys) => stdin.write(keys),
    waitFor: async (what, stream = 'stderr', timeoutMs = 20_000) => {
      const out = stream === 'stdout' ? stdout : stderr;
      const seen = () => (typeof what === 'string' ? out.text.includes(what) : what.test(out.text));
      try {
        await until(seen, `${stream} shows ${what}`, timeoutMs);
      } catch (e) {
        throw new Error(
          `${(e as Error).message}\n--- stdout ---\n${stdout.text.slice(-3000)}\n--- stderr ---\n${stderr.text.slice(-3000)}`,
        );
      }
    },
    done,
  };
}
