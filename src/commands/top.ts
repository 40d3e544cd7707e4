// `dlake top`: the running and queued jobs, refreshed (one history query per refresh) on a terminal: ↑/↓
// select (the selection follows its job across refreshes), `c` cancels the selected job after a y/N, `q` (or
// Ctrl-C) quits. `--once`, or a standard output that is not a terminal, prints one snapshot (docs/cli-contract.md
// "Operations insight"). The screen is drawn to whatever size the terminal has, none included: drawing never
// waits on the terminal's size.
import type { Command } from '@commander-js/extra-typings';
import type { JobSummary } from '../api/job-history.js';
import type { Context } from '../context.js';
import { InterruptedError } from '../errors.js';
import { queryHistory, readSummaries } from '../ops/job-history.js';
import { terminalSafe } from '../output/safe-text.js';
import { displayWidth, truncate } from '../output/width.js';
import { formatDuration, timerMs } from '../util/units.js';
import { examples } from './common.js';
import { defineCommand, type OptionsOf } from './define.js';
import { JOB_VIEW } from './job/list.js';
import { duration } from './options.js';

/** The most jobs one refresh reads. */
const MAX_JOBS = 500;

const declaration = (top: Command) =>
  top
    .description('Show the running and queued jobs, refreshed; select one and cancel it')
    .option('--interval <duration>', 'time between refreshes (default 2s)', duration('--interval'))
    .option('--once', 'print one snapshot and exit (also when standard output is not a terminal)')
    .addHelpText('after', examples('dlake top', 'dlake top --interval 5s', 'dlake top --once -o json'));

export const register = defineCommand(declaration, top);

/** One refresh: the active jobs, without the query that read them. */
async function activeJobs(ctx: Context, signal?: AbortSignal): Promise<JobSummary[]> {
  const { activeJobsSql } = await import('../api/job-history.js');
  const query = await queryHistory(ctx, 'running', (t) => activeJobsSql(t, MAX_JOBS), {
    quiet: true,
    signal,
  });
  return (await readSummaries(ctx, query, signal)).filter((j) => j.id !== query.id);
}

async function top(ctx: Context, opts: OptionsOf<typeof declaration>): Promise<void> {
  const out = ctx.streams.stdout;
  const stdin = ctx.streams.stdin;
  if (opts.once || !out.isTTY || !stdin.isTTY) {
    const jobs = await activeJobs(ctx);
    await ctx.print({ data: jobs, rows: jobs, view: { ...JOB_VIEW, empty: 'No running or queued jobs.' } });
    return;
  }
  await new TopScreen(ctx, opts.interval ?? 2000).run();
}

/**
 * The row selected after a refresh: the job that was selected, wherever the refresh put it (a job that ended
 * above it, or a new one on top, moves it); when it has left the list, the row it was on, or the last row when the
 * list got shorter (as htop and k9s do).
 */
export function rowAfterRefresh(
  jobs: readonly { id: string }[],
  selectedId: string | undefined,
  row: number,
): number {
  const kept = selectedId === undefined ? -1 : jobs.findIndex((j) => j.id === selectedId);
  return kept >= 0 ? kept : Math.min(row, Math.max(0, jobs.length - 1));
}

class TopScreen {
  private jobs: JobSummary[] = [];
  /** The selected row, and the job on it: a refresh keeps the job selected, not the row. */
  private selected = 0;
  private selectedId?: string;
  private asking?: string;
  private message = '';
  private stopped = false;
  private wake?: () => void;
  private readonly stop = new AbortController();

  constructor(
    private readonly ctx: Context,
    private readonly intervalMs: number,
  ) {}

  async run(): Promise<void> {
    const { stdin, stdout } = this.ctx.streams;
    stdin.setRawMode(true);
    stdin.resume();
    // Keys typed quickly arrive together ("nq", or an arrow's escape sequence beside a letter).
    const onData = (b: Buffer) => {
      for (const k of keysOf(b.toString('latin1'))) void this.key(k);
    };
    stdin.on('data', onData);
    // Ctrl-C comes as a key (raw mode); SIGINT from elsewhere, SIGTERM and SIGHUP end the screen the same way,
    // through the finally below, so the cursor and the screen come back whatever ends it. An exit that skips it
    // (a second signal) still puts them back. The alternate screen, as top and less use it: the refreshed frames
    // never stay in the terminal's scrollback, and quitting gives back the screen as it was.
    this.ctx.interruptible = true;
    const onStop = () => this.quit();
    this.ctx.interrupt.signal.addEventListener('abort', onStop, { once: true });
    const restore = () => stdout.write(LEAVE_SCREEN);
    process.once('exit', restore);
    stdout.write(ENTER_SCREEN);
    try {
      while (!this.stopped) {
        try {
          this.jobs = await activeJobs(this.ctx, this.stop.signal);
          this.select(rowAfterRefresh(this.jobs, this.selectedId, this.selected));
        } catch (e) {
          if (this.stopped) break;
          this.message = `refresh failed: ${(e as Error).message}`;
        }
        this.draw();
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, timerMs(this.intervalMs));
          this.wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      }
    } finally {
      this.ctx.interrupt.signal.removeEventListener('abort', onStop);
      process.off('exit', restore);
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      stdout.write(LEAVE_SCREEN);
    }
    // Ended by a signal: its exit code, after the terminal is put back (src/runtime.ts says which signal).
    if (this.ctx.interrupt.signal.aborted) throw new InterruptedError('interrupted');
  }

  private quit(): void {
    this.stopped = true;
    this.stop.abort();
    this.wake?.();
  }

  private async key(k: string): Promise<void> {
    if (this.asking) {
      const id = this.asking;
      this.asking = undefined;
      if (k === 'y' || k === 'Y') {
        const { cancelJob } = await import('../api/jobs.js');
        try {
          const outcome = await cancelJob(await this.ctx.client(), id);
          this.message = outcome.requested
            ? `cancellation of job ${id} requested`
            : `job ${id} had already ended`;
        } catch (e) {
          this.message = `cancel failed: ${(e as Error).message}`;
        }
      } else this.message = 'not cancelled';
      this.draw();
      return;
    }
    if (k === 'q' || k === '\x03' || k === 'Q') return this.quit();
    if (k === '\x1b[A' || k === 'k') this.select(Math.max(0, this.selected - 1));
    else if (k === '\x1b[B' || k === 'j')
      this.select(Math.min(Math.max(0, this.jobs.length - 1), this.selected + 1));
    else if ((k === 'c' || k === 'C') && this.selectedId !== undefined) this.asking = this.selectedId;
    this.draw();
  }

  private select(row: number): void {
    this.selected = row;
    this.selectedId = this.jobs[row]?.id;
  }

  /** The screen, cut to the terminal's size; drawing is one write, and never waits on the terminal. */
  private draw(): void {
    if (this.stopped) return;
    const out = this.ctx.streams.stdout;
    // A terminal that reports no size (0 columns, as under `script` or `docker run -t`) is drawn 80 by 24.
    const cols = out.columns || 80;
    const rows = out.rows || 24;
    // Cut by what the terminal shows (wide characters take two columns), never by UTF-16 length.
    const fit = (s: string) => truncate(terminalSafe(s), cols);
    // Below 120 columns a job id is shown by its first 8 characters (enough to tell jobs apart, as git shows
    // commits), so that the query keeps most of an 80-column line.
    const idWidth = cols < 120 ? 8 : 36;
    const lines = [
      `dlake top: ${this.jobs.length} running or queued — ↑/↓ select, c cancel, q quit`,
      ` ${'JOB ID'.padEnd(idWidth + 1)}STATE        USER          ELAPSED   QUERY`,
    ];
    const now = Date.now();
    this.jobs.forEach((j, i) => {
      const started = j.submittedAt ? Date.parse(j.submittedAt) : Number.NaN;
      const elapsed = Number.isFinite(started)
        ? formatDuration(Math.max(0, now - started), { largest: 1 })
        : '';
      const mark = i === this.selected ? '>' : ' ';
      lines.push(
        `${mark}${pad(j.id.slice(0, idWidth), idWidth + 1)}${pad(j.state, 13)}${pad(j.user ?? '', 14)}${pad(elapsed, 10)}${(j.query ?? '').replace(/\s+/g, ' ')}`,
      );
    });
    if (!this.jobs.length) lines.push('  No running or queued jobs.');
    const status = this.asking ? `cancel job ${this.asking}? [y/N]` : this.message;
    const body = lines.slice(0, Math.max(0, rows - 1));
    let screen = '\x1b[H\x1b[2J';
    for (const l of body) screen += `${fit(l)}\r\n`;
    if (rows > 0) screen += fit(status);
    out.write(screen);
  }
}

/** The alternate screen with the cursor hidden, and back: the terminal as it was. */
const ENTER_SCREEN = '\x1b[?1049h\x1b[?25l';
const LEAVE_SCREEN = '\x1b[?25h\x1b[?1049l';

/** `text` made safe and padded to `width` columns as the terminal shows them (a column wider: one space after). */
function pad(text: string, width: number): string {
  const safe = terminalSafe(text);
  return safe + ' '.repeat(Math.max(1, width - displayWidth(safe)));
}

/** The keys of one read: escape sequences (`ESC [ A`) whole, everything else a character at a time. */
function keysOf(data: string): string[] {
  const keys: string[] = [];
  for (let i = 0; i < data.length; ) {
    const seq = /^\x1b\[[0-9;]*[A-Za-z~]/.exec(data.slice(i, i + 16));
    const k = seq ? seq[0] : data[i]!;
    keys.push(k);
    i += k.length;
  }
  return keys;
}
