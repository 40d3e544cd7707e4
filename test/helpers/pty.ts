// Runs the built `dlake` in a real pseudo-terminal and keeps a headless terminal emulator of what it shows,
// so a test checks the screen a person would see (after cursor moves and redraws), not a byte stream.
import { type IPty, spawn } from '@lydell/node-pty';
import xterm from '@xterm/headless';
import { BIN, cleanEnv } from './dlake.js';
import { until } from './until.js';

export const KEY = {
  enter: '\r',
  up: '\u001b[A',
  down: '\u001b[B',
  tab: '\t',
  ctrlC: '\u0003',
  ctrlD: '\u0004',
  ctrlR: '\u0012',
  escape: '\u001b',
} as const;

export interface PtyDlake {
  /** The screen as a person sees it: the visible lines (scrollback included), right-trimmed. */
  screen(): string;
  /** Everything dlake wrote since it started (escape sequences included). */
  readonly raw: string;
  /** Types keys (see KEY). */
  type(keys: string): void;
  /** Waits until the screen shows `what` (a string, or a pattern over the whole screen). */
  waitFor(what: string | RegExp, timeoutMs?: number): Promise<void>;
  /** Resolves with the exit code when dlake ends. */
  exited: Promise<number>;
  /** Sends `signal` (default SIGHUP, as node-pty does). */
  kill(signal?: NodeJS.Signals): void;
}

export function startPty(
  args: string[],
  env: Record<string, string | undefined>,
  size = { cols: 100, rows: 30 },
): PtyDlake {
  // A terminal that reports 0 columns (as under `script`, `docker run -t`, `ssh -tt`): node-pty takes 0 as "the
  // default", so the size is set from inside, with stty, before dlake starts. The screen is then drawn 80 wide.
  const zero = size.cols === 0;
  const shown = zero ? { ...size, cols: 80 } : size;
  const term = new xterm.Terminal({ ...shown, scrollback: 5000, allowProposedApi: true });
  const [file, argv] = zero
    ? ['/bin/sh', ['-c', 'stty cols 0 && exec "$@"', 'sh', process.execPath, BIN, ...args]]
    : [process.execPath, [BIN, ...args]];
  const child: IPty = spawn(file, argv, {
    name: 'xterm-256color',
    ...shown,
    // A person's terminal: CI (set on CI runners) makes spinner libraries draw nothing, as they should there.
    env: cleanEnv({ CI: undefined, ...env }),
  });
  let raw = '';
  let pending = 0;
  child.onData((d) => {
    raw += d;
    pending++;
    term.write(d, () => {
      pending--;
    });
  });
  const exited = new Promise<number>((resolve) => child.onExit((e) => resolve(e.exitCode)));
  const screen = (): string => {
    const buf = term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buf.length; i++) lines.push(buf.getLine(i)?.translateToString(true) ?? '');
    return lines.join('\n').trimEnd();
  };
  return {
    screen,
    get raw() {
      return raw;
    },
    type: (keys) => child.write(keys),
    waitFor: async (what, timeoutMs = 20_000) => {
      const seen = () =>
        pending === 0 && (typeof what === 'string' ? screen().includes(what) : what.test(screen()));
      try {
        await until(seen, `the screen shows ${what}`, timeoutMs);
      } catch (e) {
        throw new Error(`${(e as Error).message}\n--- screen ---\n${screen()}\n--------------`);
      }
    },
    exited,
    kill: (signal) => child.kill(signal),
  };
}
