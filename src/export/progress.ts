// The export's progress bar on stderr: rows written, percentage, rows per second and time left. The caller
// creates it only when stderr is a terminal and -q is not given; it redraws at most ten times a second.
import type { Context } from '../context.js';
import { terminalWidth, truncate } from '../output/width.js';
import { countRows, formatDuration } from '../util/units.js';
import type { ExportSpec } from './formats.js';
import { isStdout } from './special-files.js';

interface ProgressStream {
  write(text: string): unknown;
  columns?: number;
}

const REDRAW_MS = 100;
const ROWS = new Intl.NumberFormat('en-US');

export class ProgressBar {
  private readonly started: number;
  private lastDraw = 0;
  private drawn = false;
  /** What the export waits for, when it waits (the hosted edition's rate limit, src/api/pacing.ts). */
  private note?: string;

  constructor(
    private readonly stream: ProgressStream,
    private readonly label: string,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.started = now();
  }

  update(rows: number, total: number): void {
    const t = this.now();
    if (t - this.lastDraw < REDRAW_MS && rows < total) return;
    this.lastDraw = t;
    this.drawn = true;
    this.stream.write(`\r\x1b[2K${this.line(rows, total, t)}`);
  }

  /** Says what the export is waiting for (undefined: no longer waiting), at the next redraw. */
  waiting(note: string | undefined): void {
    this.note = note;
    this.lastDraw = Number.NEGATIVE_INFINITY;
  }

  /** Clears the bar (the caller then prints its summary line). */
  done(): void {
    if (this.drawn) this.stream.write('\r\x1b[2K');
    this.drawn = false;
  }

  line(rows: number, total: number, t = this.now()): string {
    const secs = (t - this.started) / 1000;
    const rate = secs > 0 ? rows / secs : 0;
    const known = total > 0 && Number.isFinite(total);
    const ratio = known ? Math.min(1, rows / total) : 0;
    const eta =
      known && rate > 0 ? formatDuration(Math.ceil((total - rows) / rate) * 1000, { largest: 2 }) : '?';
    const counts = known ? `${ROWS.format(rows)}/${ROWS.format(total)} rows` : `${ROWS.format(rows)} rows`;
    const stats = `${counts}  ${ROWS.format(Math.round(rate))} rows/s  ETA ${eta}`;
    const pct = `${Math.floor(ratio * 100)}%`.padStart(4);
    const width = Math.max(
      10,
      Math.min(40, (this.stream.columns ?? 80) - this.label.length - stats.length - 12),
    );
    const fill = Math.round(ratio * width);
    const full = `${this.label} [${'#'.repeat(fill)}${'-'.repeat(width - fill)}] ${pct}  ${stats}`;
    // A line as wide as the terminal wraps, and `\r` then redraws only its last part, leaving stale lines:
    // on a narrow terminal drop the bar, then the rate and time left, and cut what still does not fit.
    const room = (this.stream.columns ?? 80) - 1;
    const candidates = [
      ...(this.note
        ? [`${this.label} ${pct}  ${counts}  ${this.note}`, `${this.label} ${pct}  ${this.note}`]
        : []),
      full,
      `${this.label} ${pct}  ${stats}`,
      `${this.label} ${pct}  ${counts}  ETA ${eta}`,
      `${this.label} ${pct}  ${counts}`,
    ];
    return candidates.find((c) => c.length <= room) ?? truncate(candidates.at(-1)!, room);
  }
}

/**
 * What an export says on stderr, whatever its transport: the bar while it runs (when stderr is a terminal that
 * does not also show the rows) and the closing line. It also marks the command as one that Ctrl-C stops
 * through `ctx.interrupt` (the pipeline then cleans up).
 */
export function exportFeedback(ctx: Context, out: string, opts: { bar: boolean }) {
  const toStdout = isStdout(out);
  const stderr = ctx.streams.stderr;
  // A bar on the terminal that also shows the data would tear it apart.
  const show = opts.bar && ctx.ui.motion && !(toStdout && ctx.streams.stdout.isTTY);
  const bar = show
    ? new ProgressBar({ write: (s) => stderr.write(s), columns: terminalWidth(stderr, ctx.env) }, 'exporting')
    : undefined;
  // What the user waited for: from the command's start, the login and the job's wait included.
  const started = ctx.startedAt;
  ctx.interruptible = true;
  const took = () => formatDuration(Math.round(performance.now() - started), { largest: 2 });
  return {
    bar,
    toStdout,
    /** For deliver's onProgress: rows so far, and the rows expected when the source knows them. */
    progress: bar && ((rows: number, total?: number) => bar.update(rows, total ?? 0)),
    /** Clears the bar (before the closing line or an error). */
    done: () => bar?.done(),
    took,
    /** `wrote N rows to FILE (CSV, gzip) in T` and `how` (nothing for standard output). */
    wrote(rows: number, spec: ExportSpec, how = '', count = countRows): void {
      if (toStdout) return;
      const what = `${spec.format.toUpperCase()}${spec.gzip ? ', gzip' : ''}`;
      ctx.ui.notice(`wrote ${count(rows)} to ${out} (${what}) in ${took()}${how}`);
    },
  };
}
