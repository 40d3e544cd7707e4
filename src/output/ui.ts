// Everything a command says to a person: notices, warnings, spinners, progress, prompts. All of it goes
// to stderr; spinners and progress only when stderr is a TTY and -q is not given.
import type { Theme } from './color.js';

export interface Streams {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

export interface Spinner {
  update(text: string): void;
  stop(finalText?: string): void;
}

const NO_SPINNER: Spinner = { update() {}, stop() {} };

export class Ui {
  constructor(
    readonly streams: Streams,
    readonly theme: Theme,
    readonly quiet: boolean,
    readonly verbose: boolean,
  ) {}

  get interactive(): boolean {
    return Boolean(this.streams.stdin.isTTY && this.streams.stderr.isTTY);
  }

  get motion(): boolean {
    return Boolean(this.streams.stderr.isTTY) && !this.quiet;
  }

  /** Informational line on stderr; silent with -q. */
  notice(msg: string): void {
    if (!this.quiet) this.streams.stderr.write(`${msg}\n`);
  }

  /** A warning is shown even with -q: it says something is unsafe or ignored. */
  warn(msg: string): void {
    this.streams.stderr.write(`${this.theme.warn('warning:')} ${msg}\n`);
  }

  async spinner(text: string): Promise<Spinner> {
    if (!this.motion) return NO_SPINNER;
    const { default: ora } = await import('ora');
    const s = ora({ text, stream: this.streams.stderr, discardStdin: false }).start();
    return {
      update: (t) => {
        s.text = t;
      },
      stop: (finalText) => {
        if (finalText) s.stopAndPersist({ symbol: '', text: finalText });
        else s.stop();
      },
    };
  }
}
