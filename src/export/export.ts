// The one entry point of an export (docs/architecture.md "Delivery"): every caller that writes rows to a file or
// standard output (`sql --out` and each statement of `sql -f`, the SQL shell's `\o`, `job export`, `job list
// --out`, the rows `sql` and `job results` print) asks `exportResult`. It chooses the transport (over Arrow Flight
// when the request allows and the profile has an endpoint, else REST: flight/transport.ts), opens the sink
// (target.ts), makes the source (a job's results pages, rest-source.ts; a Flight stream, flight/source.ts),
// delivers (deliver.ts: the one pipeline), and says on stderr what it does: the progress bar, the closing line.
// Flight's libraries are loaded only once an export goes over Flight.
import type { ApiClient } from '../api/http.js';
import { describeWait } from '../api/pacing.js';
import type { Context } from '../context.js';
import { countRows } from '../util/units.js';
import { deliver } from './deliver.js';
import { type FlightAttempt, type FlightPlan, flightPlan } from './flight/transport.js';
import { type ExportSpec, formatEntry } from './formats.js';
import { pageFetcher } from './page-fetcher.js';
import type { FetchPage } from './pages.js';
import { exportFeedback } from './progress.js';
import { resultsPages } from './rest-source.js';
import type { ResumeRecord, Sink } from './sink.js';
import { openSink } from './target.js';

/** The rows over REST: a job's results, or pages already in hand (`job list`'s jobs). */
type RestRows = { client: ApiClient; id: string } | { fetchPage: FetchPage };

interface ExportRequest {
  /** FILE, or `-` for standard output. */
  out: string;
  spec: ExportSpec;
  /**
   * The rows over REST, asked for only when the export goes over REST (a statement submits its job and waits
   * for it then: over Flight the query runs there, and no REST job is submitted beside it).
   */
  rest: () => Promise<RestRows>;
  /** The query that gives the same rows over Flight, and the transport asked for; absent: REST only. */
  flight?: FlightAttempt;
  /** Continue FILE.partial from here (checked by resume.ts checkResume; REST only). */
  resume?: ResumeRecord;
  /** Rows from this offset, at most `maxRows` of them (REST only: `job results --offset --limit`). */
  startOffset?: number;
  maxRows?: number;
  /** Results pages per request (≤ 500) and fetched at once. */
  pageSize?: number;
  concurrency?: number;
  /**
   * The rows are a command's printed result (standard output, in the output format): JSON indented, CSV on a
   * terminal with its control characters shown, no progress bar and no closing line.
   */
  printed?: boolean;
  /** How the closing line counts the rows (default: `N rows`). */
  count?: (rows: number) => string;
  /** What stops the export (default: the command's Ctrl-C). */
  signal?: AbortSignal;
}

interface ExportOutcome {
  /** Rows written by this run. */
  rows: number;
  /** Rows expected from the start offset (REST; over Flight the rows written). */
  total: number;
  /** The job's rowCount (REST; over Flight the rows written). */
  rowCount: number;
}

/** Writes the rows `req` names to `req.out`; see the module's comment. */
export async function exportResult(ctx: Context, req: ExportRequest): Promise<ExportOutcome> {
  const plan = req.flight && (await flightPlan(ctx, req.flight));
  if (plan && req.flight) {
    const rows = await overFlight(ctx, req, req.flight, plan);
    if (rows !== undefined) return { rows, total: rows, rowCount: rows };
  }
  return overRest(ctx, req, await req.rest());
}

/** The sink of `req.out`: a file through FILE.partial (with its sidecar when resumable), a device, stdout. */
async function sinkOf(ctx: Context, req: ExportRequest, signal: AbortSignal, jobId?: string): Promise<Sink> {
  return openSink(req.out, ctx.streams.stdout, {
    gzip: req.spec.gzip,
    record: jobId === undefined ? undefined : { jobId, format: req.spec.format },
    resume: req.resume,
    noClobber: req.spec.noClobber,
    signal,
    // On a terminal, CSV's control characters are shown and JSON's escaped, as a table's are (stdout-sink.ts).
    content: req.spec.format,
    // Said, so that a person knows what the export waits for (and that a signal ends the wait).
    onWait: () => ctx.ui.notice(`waiting for a reader of the named pipe ${req.out}…`),
  });
}

/** Over REST: the job's results pages (or the pages in hand), from the start offset or the resumed rows. */
async function overRest(ctx: Context, req: ExportRequest, rows: RestRows): Promise<ExportOutcome> {
  const signal = req.signal ?? ctx.interrupt.signal;
  const job = 'id' in rows ? rows : undefined;
  const fetchPage = !job
    ? (rows as { fetchPage: FetchPage }).fetchPage
    : req.spec.format === 'csv'
      ? (await import('./csv-pages.js')).csvPageFetcher(job.client, job.id)
      : pageFetcher(job.client, job.id);
  // Stoppable from here: opening a named pipe waits for its reader until one comes or a signal ends it.
  ctx.interruptible = true;
  const sink = await sinkOf(ctx, req, signal, job?.id);
  const kept = req.resume?.rows ?? 0;
  const start = req.startOffset ?? kept;
  const feedback = exportFeedback(ctx, req.out, { bar: Boolean(job) && !req.printed });
  const { bar } = feedback;
  // The bar says when the hosted edition's rate limit holds the pages back (src/api/pacing.ts).
  const pacer = bar ? await ctx.pacer() : undefined;
  const stopListening = pacer?.onWait((e) =>
    bar?.waiting('limit' in e ? describeWait(e.limit, e.waitMs) : undefined),
  );
  const source = resultsPages({
    fetchPage,
    pageSize: req.pageSize ?? 500,
    concurrency: req.concurrency ?? (job ? undefined : 1),
    startOffset: start,
    continuing: kept > 0,
    resumeState: req.resume && { state: req.resume.writer, bytes: req.resume.bytes },
    maxRows: req.maxRows,
    // Pretty JSON on standard output, as every command prints it; compact in a file.
    pretty: req.printed,
  });
  let out: Awaited<ReturnType<typeof deliver>>;
  try {
    out = await deliver(source, sink, {
      format: req.spec.format,
      signal,
      onProgress: bar && ((n) => bar.update(n, Math.max(kept + source.total, n))),
      resumeHint: job && `resume with: dlake job export ${job.id} --out ${shellWord(req.out)} --resume`,
    });
  } finally {
    stopListening?.();
    feedback.done();
  }
  if (!req.printed)
    feedback.wrote(
      kept + out.rows,
      req.spec,
      kept > 0 ? `, resumed after ${countRows(kept)}` : '',
      req.count,
    );
  return { rows: out.rows, total: source.total, rowCount: source.rowCount };
}

/**
 * Over Flight, as `plan` says: the rows written, or undefined when the endpoint did not answer before any row
 * and the transport is `auto` (the export then goes over REST, said on stderr).
 */
async function overFlight(
  ctx: Context,
  req: ExportRequest,
  attempt: FlightAttempt,
  plan: FlightPlan,
): Promise<number | undefined> {
  const [{ flightSource, FlightUnavailableError }, { formatDuration }] = await Promise.all([
    import('./flight/source.js'),
    import('../util/units.js'),
  ]);
  const settings = ctx.settings();
  const stderr = ctx.streams.stderr;
  const signal = req.signal ?? ctx.interrupt.signal;
  if (ctx.opts.insecure) ctx.ui.warn('TLS certificate verification is disabled (--insecure)');
  // The hosted edition's project is a Flight session option, never a header (docs/api-facts.md §14).
  const projectId = settings.edition.value === 'cloud' ? settings.projectId?.value : undefined;
  const feedback = exportFeedback(ctx, req.out, { bar: !req.printed });
  const { endpoint } = plan.flight;
  let rows: number;
  try {
    const flight = flightSource({
      endpoint,
      sql: attempt.sql,
      authorization: plan.authorization,
      signal,
      idleMs: ctx.timeoutMs(),
      total:
        attempt.waitTimeoutMs === undefined
          ? undefined
          : {
              ms: attempt.waitTimeoutMs,
              what: `--wait-timeout ${formatDuration(attempt.waitTimeoutMs, { largest: 2 })}`,
            },
      caFile: settings.caFile?.value,
      insecure: ctx.opts.insecure,
      sessionOptions: projectId ? { project_id: projectId } : undefined,
      trace: ctx.debugging ? (line) => stderr.write(`debug: ${line}\n`) : undefined,
      loginHint: plan.loginHint,
      // A text format's bytes are written before the next batch is read; Parquet holds a row group's values.
      reuse: !formatEntry(req.spec.format).holdsBatches,
    });
    try {
      const sink = await sinkOf(ctx, req, signal);
      rows = (
        await deliver(flight.source, sink, { format: req.spec.format, signal, onProgress: feedback.progress })
      ).rows;
    } finally {
      flight.close();
    }
  } catch (e) {
    // Said in the words of the endpoint's failure alone: the file is then written over REST.
    if (!plan.explicit && e instanceof FlightUnavailableError) {
      plan.overRest(e.reason ?? e.message);
      return undefined;
    }
    throw e;
  } finally {
    feedback.done();
  }
  if (req.printed) return rows;
  const via = `over Arrow Flight (${endpoint.url})`;
  feedback.wrote(rows, req.spec, ` ${via}`, req.count);
  if (feedback.toStdout && !plan.explicit)
    ctx.ui.notice(
      `exported ${rows.toLocaleString('en-US')} row${rows === 1 ? '' : 's'} ${via} in ${feedback.took()}`,
    );
  return rows;
}

/** A file name as one word of a shell command line (quoted only when it needs to be). */
function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
