// Everything a command says to a person: notices, warnings, spinners, progress, prompts. All of it goes
// to stderr; spinners and progress only when stderr is a TTY and -q is not given.
import type { Theme } from './color.js';
import { bounded, labelSafe, stderrSafe, terminalSafe } from './safe-text.js';
import { truncate } from './width.js';

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

  /** Informational line on stderr; silent with -q. Names in it are the user's or the service's: made safe. */
  notice(msg: string): void {
    if (!this.quiet) this.streams.stderr.write(`${stderrSafe(msg)}\n`);
  }

  /** A warning is shown even with -q: it says something is unsafe or ignored. Long ones are cut without -v. */
  warn(msg: string): void {
    this.streams.stderr.write(`${this.theme.warn('warning:')} ${labelSafe(bounded(msg, this.verbose))}\n`);
  }

  /**
   * An `error:` line with its details and hint, for a failure said while the command goes on (a script with
   * --continue-on-error, the SQL shell, apply): the same safe, bounded form as the error that ends a command.
   */
  error(
    message: string,
    more: { details?: readonly string[]; moreInfo?: string; hint?: string; label?: string } = {},
  ): void {
    const safe = (text: string) => labelSafe(bounded(text, this.verbose));
    const { stderr } = this.streams;
    stderr.write(`${more.label ?? this.theme.danger('error:')} ${safe(message)}\n`);
    for (const d of more.details ?? []) stderr.write(`  ${safe(d)}\n`);
    // The service's own words, asked for with -v: whole.
    if (more.moreInfo) stderr.write(`  ${labelSafe(more.moreInfo)}\n`);
    if (more.hint) stderr.write(`${this.theme.accent('hint:')} ${safe(more.hint)}\n`);
  }

  /**
   * A spinner on stderr when it is a terminal of at least MIN_SPINNER_COLUMNS columns; otherwise (a terminal
   * that reports 0 columns under `script`, `docker run -t` or `ssh -tt`, or a very narrow one) nothing moves:
   * the spinner library divides by the width to know how many lines to clear, and at 0 it never stops
   * clearing. Its text is kept to one line, made safe, and its colour follows NO_COLOR and --no-color.
   */
  async spinner(text: string): Promise<Spinner> {
    const stream = this.streams.stderr;
    const fits = () => (stream.columns ?? 0) >= MIN_SPINNER_COLUMNS;
    if (!this.motion || !fits()) return NO_SPINNER;
    const { default: ora } = await import('ora');
    // The frame, a space and the text on one line: wrapped text would make it clear lines above it.
    const oneLine = (t: string) => truncate(terminalSafe(t), Math.max(1, (stream.columns ?? 0) - 3));
    let current = text;
    const s = ora({
      text: oneLine(text),
      stream,
      discardStdin: false,
      color: this.theme.enabled ? 'cyan' : false,
    }).start();
    let running = true;
    const end = (finalText?: string): void => {
      if (!running) return;
      running = false;
      stream.off('resize', onResize);
      if (finalText) s.stopAndPersist({ symbol: '', text: stderrSafe(finalText) });
      else s.stop();
    };
    // Narrowed below the minimum (to 0 when the terminal goes away): stop before the next frame is drawn.
    function onResize(): void {
      if (!fits()) end();
      else s.text = oneLine(current);
    }
    stream.on('resize', onResize);
    return {
      update: (t) => {
        current = t;
        if (running && fits()) s.text = oneLine(t);
        else end();
      },
      stop: end,
    };
  }
}

/** Narrower than this, a spinner and its text cannot share a line: none is drawn. */
const MIN_SPINNER_COLUMNS = 20;
