// Job result rows on their way out of a command: printed in the output format (streamed for json, ndjson and
// csv; a table is held in memory, capped), or exported to a file with a progress bar. Also the options
// that `sql` and `job` share.
import { Option } from '@commander-js/extra-typings';
import { JsonNumber } from '../api/exact-json.js';
import type { ApiClient } from '../api/http.js';
import type { ResultField, ResultRow } from '../api/jobs.js';
import type { Context } from '../context.js';
import type { ResumeRecord } from '../export/target.js';
import type { ExportFormat, ExportSpec } from '../export/writers.js';
import type { View } from '../output/view.js';
import { terminalWidth } from '../output/width.js';
import { BufferPool } from '../util/buffer-pool.js';
import { formatDuration } from '../util/units.js';
import { choiceOption, concurrencyOption, duration } from './options.js';

const FORMATS: readonly ExportFormat[] = ['csv', 'json', 'ndjson', 'parquet'];
/** Rows a table shows unless --max-rows says otherwise. */
export const TABLE_ROWS = 100;
/** Results pages fetched at once unless --concurrency says otherwise. */
const PAGE_CONCURRENCY = 4;
const ROWS = new Intl.NumberFormat('en-US');
export const countRows = (n: number): string => `${ROWS.format(n)} row${n === 1 ? '' : 's'}`;

/** `--format` of an export: a closed set, so that completions offer it. */
export function formatOption(): Option {
  return choiceOption(
    '--format <format>',
    'csv, json, ndjson or parquet (default: from the file name, else csv; a further .gz gzips)',
    FORMATS,
  );
}

/** `--transport` of an export: Arrow Flight, REST, or Flight when an endpoint answers (export/flight/transport.ts). */
export function transportOption(): Option {
  return choiceOption(
    '--transport <how>',
    'auto (Arrow Flight when an endpoint is configured and answers, else REST), flight or rest',
    ['auto', 'flight', 'rest'],
  );
}

/** `--concurrency` of the commands that page through results. */
export function pageConcurrencyOption(what = 'results pages fetched'): Option {
  return concurrencyOption(what, PAGE_CONCURRENCY);
}

/** `--wait-timeout` of the commands that wait for a job before reading it (`--timeout` is per request). */
export function waitTimeoutOption(): Option {
  return new Option(
    '--wait-timeout <duration>',
    'stop waiting for the job after this long, e.g. 10m (exit 7; the job keeps running)',
  ).argParser(duration('--wait-timeout'));
}

interface RowsSource {
  client: ApiClient;
  id: string;
  startOffset?: number;
  maxRows?: number;
  /** Rows per request (default 500). */
  pageSize?: number;
  concurrency?: number;
  /** What interrupts the reading (default: the command's Ctrl-C). */
  signal?: AbortSignal;
}

interface Printed {
  /** Rows printed. */
  rows: number;
  /** Rows the job holds from the start offset. */
  total: number;
  /** Rows the job holds (its rowCount). */
  rowCount: number;
}

/**
 * Prints result rows to stdout in the output format. json, ndjson and csv stream page by page (the same
 * writers as `job export`); a table, and anything filtered with --query, is built in memory.
 */
export async function printRows(ctx: Context, src: RowsSource): Promise<Printed> {
  const format = ctx.format;
  ctx.interruptible = true;
  const signal = src.signal ?? ctx.interrupt.signal;
  if (format !== 'table' && !ctx.opts.query) {
    const fetchPage = await pageFetcher(src.client, src.id);
    const [{ exportRows }, { stdoutTarget }] = await Promise.all([
      import('../export/export.js'),
      import('../export/target.js'),
    ]);
    const out = await exportRows({
      fetchPage,
      format,
      target: stdoutTarget(ctx.streams.stdout),
      pageSize: src.pageSize ?? 500,
      concurrency: src.concurrency,
      startOffset: src.startOffset,
      maxRows: src.maxRows,
      signal,
      pretty: true,
    });
    return {
      rows: out.rows,
      total: Math.max(0, out.rowCount - (src.startOffset ?? 0)),
      rowCount: out.rowCount,
    };
  }
  const held = await readRows({ ...src, signal });
  // JMESPath compares plain values: exact numbers become the nearest double there.
  const data = held.exact && ctx.opts.query ? JSON.parse(JSON.stringify(held.rows)) : held.rows;
  await ctx.print({ data, rows: held.rows, view: resultView(held.schema) });
  return {
    rows: held.rows.length,
    total: Math.max(0, held.rowCount - (src.startOffset ?? 0)),
    rowCount: held.rowCount,
  };
}

interface HeldRows {
  schema: ResultField[];
  rows: ResultRow[];
  rowCount: number;
  /** Some number is kept as its exact text (a JsonNumber). */
  exact: boolean;
}

/** Result rows read into memory, up to `maxRows`: for tables, --query and the shell's views. */
export async function readRows(src: RowsSource): Promise<HeldRows> {
  const [{ pagesInOrder }, fetchPage] = await Promise.all([
    import('../export/pages.js'),
    pageFetcher(src.client, src.id),
  ]);
  const held: HeldRows = { schema: [], rows: [], rowCount: -1, exact: false };
  for await (const page of pagesInOrder({
    fetchPage,
    pageSize: src.pageSize ?? 500,
    concurrency: src.concurrency ?? PAGE_CONCURRENCY,
    startOffset: src.startOffset,
    maxRows: src.maxRows,
    signal: src.signal,
  })) {
    if (held.rowCount < 0) {
      held.schema = page.schema;
      held.rowCount = page.rowCount;
    }
    held.rows = held.rows.concat(page.rows);
    held.exact ||= page.exact;
  }
  return held;
}

/** Table columns of a result: the schema's names, as they are (SQL names are case-sensitive). */
export function resultView(schema: readonly ResultField[]): View<ResultRow> {
  return {
    columns: schema.map((f) => ({
      header: f.name,
      value: (r: ResultRow) => {
        const v = r[f.name];
        return v instanceof JsonNumber ? v.text : v;
      },
    })),
    empty: 'No rows.',
  };
}

interface ExportToFile extends RowsSource, ExportSpec {
  out: string;
  /** Continue FILE.partial from here (checked by checkResume). */
  resume?: ResumeRecord;
}

/** `--out FILE|-`: streams every row there, with a progress bar when stderr is a terminal. */
export async function exportToFile(ctx: Context, req: ExportToFile): Promise<void> {
  const [{ exportRows }, target, { ProgressBar }, fetchPage] = await Promise.all([
    import('../export/export.js'),
    import('../export/target.js'),
    import('../export/progress.js'),
    pageFetcher(req.client, req.id, req.format === 'csv'),
  ]);
  // `/dev/stdout` is dlake's own standard output, whatever it is (a pipe, a socket, a file the shell opened):
  // written as `-` is, as a shell does for `>/dev/stdout`, rather than opened again by name (a socket cannot be).
  const toStdout = req.out === '-' || OWN_STDOUT.has(req.out);
  const sink = toStdout
    ? target.stdoutTarget(ctx.streams.stdout)
    : await target.openFileTarget(req.out, {
        gzip: req.gzip,
        record: { jobId: req.id, format: req.format },
        resume: req.resume,
      });
  const kept = req.resume?.rows ?? 0;
  // A bar on the terminal that also shows the data would tear it apart.
  const showBar = ctx.ui.motion && !(toStdout && ctx.streams.stdout.isTTY);
  const stderr = ctx.streams.stderr;
  const columns = terminalWidth(stderr, ctx.env);
  const bar = showBar ? new ProgressBar({ write: (s) => stderr.write(s), columns }, 'exporting') : undefined;
  const started = performance.now();
  ctx.interruptible = true;
  // The bar says when the hosted edition's rate limit holds the pages back (src/api/pacing.ts).
  const pacer = bar ? await ctx.pacer() : undefined;
  const { describeWait } = await import('../api/pacing.js');
  const stopListening = pacer?.onWait((e) =>
    bar?.waiting('limit' in e ? describeWait(e.limit, e.waitMs) : undefined),
  );
  let outcome: Awaited<ReturnType<typeof exportRows>>;
  try {
    outcome = await exportRows({
      fetchPage,
      format: req.format,
      target: sink,
      pageSize: req.pageSize ?? 500,
      concurrency: req.concurrency,
      startOffset: kept,
      continuing: kept > 0,
      resumeState: req.resume && { state: req.resume.writer, bytes: req.resume.bytes },
      signal: req.signal ?? ctx.interrupt.signal,
      onProgress: bar ? (rows, total) => bar.update(kept + rows, kept + total) : undefined,
      resumeHint: `resume with: dlake job export ${req.id} --out ${shellWord(req.out)} --resume`,
    });
  } finally {
    stopListening?.();
    bar?.done();
  }
  const secs = (performance.now() - started) / 1000;
  if (!toStdout) {
    const what = `${req.format.toUpperCase()}${req.gzip ? ', gzip' : ''}`;
    const resumed = kept > 0 ? `, resumed after ${countRows(kept)}` : '';
    ctx.ui.notice(
      `wrote ${countRows(kept + outcome.rows)} to ${req.out} (${what}) in ${formatDuration(Math.round(secs * 1000), { largest: 2 })}${resumed}`,
    );
  }
}

/**
 * The `rows` of a page read straight to CSV: an empty array of that length, made once per length (a new one
 * a page was 4 KB more for every page to carry through the collector).
 */
const placeholderRows = new Map<number, ResultRow[]>();
function placeholders(n: number): ResultRow[] {
  let rows = placeholderRows.get(n);
  if (!rows) {
    rows = Object.freeze(new Array(n)) as ResultRow[];
    placeholderRows.set(n, rows);
  }
  return rows;
}

/** The names of a process's own standard output. */
const OWN_STDOUT = new Set(['/dev/stdout', '/dev/fd/1', '/proc/self/fd/1']);

/** A file name as one word of a shell command line (quoted only when it needs to be). */
function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Fetches one page of the job's results, keeping to the service's page limit, its body read into reused
 * buffers. For a CSV export (`csv`), a flat page goes straight from its bytes to CSV lines, without row
 * objects (export/json-csv.ts).
 */
async function pageFetcher(client: ApiClient, id: string, csv = false) {
  const jobs = await import('../api/jobs.js');
  // Pages held at once: those in flight and those waiting their turn (export/pages.ts), a body and a CSV each.
  const buffers = new BufferPool(64);
  if (!csv)
    return (offset: number, limit: number, signal: AbortSignal) =>
      jobs.getResults(client, id, offset, limit, signal, buffers);
  const [{ csvFromResultsPage }, { flatColumns }] = await Promise.all([
    import('../export/json-csv.js'),
    import('../export/writers.js'),
  ]);
  const endpoint = jobs.resultsEndpoint(id);
  return async (offset: number, limit: number, signal: AbortSignal) => {
    const body = await jobs.getResultsBytes(client, id, offset, limit, buffers, signal);
    try {
      const direct = csvFromResultsPage(body, limit, flatColumns, buffers);
      if (!direct) return jobs.parseResultsBytes(body, id);
      const page = jobs.resultsPageOf({ ...direct.envelope, rows: [] }, endpoint, false);
      return {
        ...page,
        rows: placeholders(direct.rows),
        csv: direct.csv,
        release: () => buffers.give(direct.csv),
      };
    } finally {
      buffers.give(body);
    }
  };
}
