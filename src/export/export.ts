// Streams a job's result rows to a target: ordered concurrent pages in, one formatted chunk per page out,
// each write waiting for the target to drain. The rows written must add up to the job's rowCount. On a
// failure or Ctrl-C the file is either removed or, when the rows so far can be resumed, kept as
// FILE.partial with its sidecar; the error says how many rows had been written and how to go on.
import type { ResultField } from '../api/jobs.js';
import { DlakeError, InterruptedError, LocalIOError, rephrased, ServiceError } from '../errors.js';
import { countRows } from '../util/units.js';
import { type FetchPage, PAGE_CONCURRENCY, pagesInOrder } from './pages.js';
import { OutputClosedError, type Target } from './target.js';
import { type ExportFormat, loadFormatter, type RowFormatter } from './writers.js';

interface ExportRequest {
  fetchPage: FetchPage;
  format: ExportFormat;
  target: Target;
  /** Rows per request (≤ 500). */
  pageSize: number;
  concurrency?: number;
  startOffset?: number;
  /** The target already holds the rows before `startOffset` (a resumed export): no head, no first row. */
  continuing?: boolean;
  /** Of a resumed export: the formatter's state and the bytes kept at its checkpoint (from the sidecar). */
  resumeState?: { state?: unknown; bytes: number };
  maxRows?: number;
  signal?: AbortSignal;
  /** JSON indented for a reader, as every other command prints it (standard output, not files). */
  pretty?: boolean;
  /** After every page: rows written so far and the rows expected in all. */
  onProgress?: (rows: number, total: number) => void;
  /** The hint of an error after which FILE.partial was kept, e.g. the `--resume` command line. */
  resumeHint?: string;
}

interface ExportOutcome {
  rows: number;
  /** Rows expected: the job's rowCount from the start offset, capped by maxRows. */
  total: number;
  /** The job's rowCount, as its first page said. */
  rowCount: number;
  /** The reader of standard output went away before the end (`| head`). */
  truncated: boolean;
}

/** The service handed out fewer (or more) rows than the job's rowCount: the result is not to be trusted. */
class RowCountMismatchError extends ServiceError {}

export async function exportRows(req: ExportRequest): Promise<ExportOutcome> {
  // V8 flags set for the export, and what puts V8's defaults back after it (the SQL shell goes on).
  const restore: string[] = [];
  if (req.format !== 'parquet') restore.push(keepYoungGenerationSmall());
  const { target, signal } = req;
  const start = req.startOffset ?? 0;
  let written = 0;
  let total = 0;
  let rowCount = 0;
  let formatter: RowFormatter | undefined;
  let firstSchema: readonly ResultField[] = [];
  try {
    for await (const page of pagesInOrder({
      fetchPage: req.fetchPage,
      pageSize: req.pageSize,
      concurrency: req.concurrency ?? PAGE_CONCURRENCY,
      startOffset: start,
      maxRows: req.maxRows,
      signal,
    })) {
      if (!formatter) {
        formatter = await loadFormatter(req.format, page.schema, {
          continuing: req.continuing,
          pretty: req.pretty,
          ...req.resumeState,
        });
        rowCount = page.rowCount;
        firstSchema = page.schema;
        total = Math.max(0, Math.min(page.rowCount - start, req.maxRows ?? Number.POSITIVE_INFINITY));
        await target.write(formatter.head, signal);
      }
      // A CSV page read straight from its bytes (api/jobs.ts `csv`) is written as it is, then its buffer freed.
      if (page.csv !== undefined) checkColumns(page.schema, firstSchema);
      await target.write(page.csv ?? formatter.page(page.rows, page.exact), signal);
      page.release?.();
      written += page.rows.length;
      // A point to resume from only once every row so far is in the bytes (not in a row group being filled).
      if (!formatter.held) await target.checkpoint(start + written, formatter.state?.());
      // Ctrl-C between pages: stop here rather than after the requests in flight.
      if (signal?.aborted) throw new InterruptedError('interrupted');
      req.onProgress?.(written, Math.max(total, written));
    }
    // Every row or none: a result that stops short (or runs long) of its rowCount is not the job's result.
    if (req.maxRows === undefined && formatter && written !== total) {
      throw new RowCountMismatchError(
        `the service returned ${countRows(start + written)} but the job's rowCount is ${rowCount.toLocaleString('en-US')}`,
      );
    }
    if (formatter) await target.write(formatter.tail(), signal);
    await target.commit();
    return { rows: written, total, rowCount, truncated: false };
  } catch (err) {
    if (err instanceof OutputClosedError) {
      await target.discard();
      return { rows: written, total, rowCount, truncated: true };
    }
    // A resumed export's FILE.partial held rows before this run: discarding leaves it, and its sidecar, as
    // they are (the sidecar only ever describes bytes already written).
    const kept = resumable(err) ? await target.suspend() : await target.discard().then(() => 0);
    throw stoppedAfter(err, (req.continuing ? start : 0) + written, target, kept, req.resumeHint);
  } finally {
    if (restore.length > 0) v8Flags(restore.join(' '));
  }
}

// A bound on V8's own memory policy for a long export (docs/benchmarks.md). It forces no collection; the
// export's own buffers are bounded by the pages held, whatever the row count.
const v8Flags = (flags: string): void => process.getBuiltinModule('node:v8').setFlagsFromString(flags);

/**
 * Every page lives through a few of V8's young-generation collections (it waits in the window of pages), and
 * V8 doubles the young generation, up to 16 MiB a semi-space, each time that much has survived them, and
 * does not shrink it while allocation goes on: the peak RSS of a long export grew by ~30 MiB that way. Held
 * at the size it has when the export starts, collections are more frequent and each as cheap. Not for
 * Parquet, whose row group's values all live until it is written: collected in a small young generation they
 * cost more time than the memory saved (3.7 s against 3.5 s at 1M rows). On Node 24 a CSV export of 400k
 * rows peaks at 105 MiB with it, 120 MiB without (docs/benchmarks.md).
 */
function keepYoungGenerationSmall(): string {
  v8Flags('--semi-space-growth-factor=1');
  return '--semi-space-growth-factor=2'; // V8's default
}

/** The columns a page was written in are the export's (the first page's): a page's CSV follows its own. */
function checkColumns(schema: readonly ResultField[], first: readonly ResultField[]): void {
  if (schema === first) return;
  if (schema.length === first.length && schema.every((f, i) => f.name === first[i]!.name)) return;
  throw new ServiceError("the service changed the result's columns between pages");
}

/**
 * Ctrl-C, SIGTERM, the network losing the service and a full (or failing) disk: what was written so far is
 * worth keeping.
 */
function resumable(err: unknown): boolean {
  if ((err as Error)?.name === 'AbortError' || err instanceof InterruptedError) return true;
  if (err instanceof LocalIOError) return true;
  return err instanceof ServiceError && !(err instanceof RowCountMismatchError);
}

/** The same error, its message completed with what was written and what was left behind. */
function stoppedAfter(
  err: unknown,
  rows: number,
  target: Target,
  kept: number,
  resumeHint: string | undefined,
): unknown {
  const e =
    err instanceof DlakeError
      ? err
      : (err as Error)?.name === 'AbortError'
        ? new InterruptedError('interrupted')
        : undefined;
  if (!e) return err;
  // Nothing written to standard output needs no account of it.
  if (!target.isFile && rows === 0) return e;
  const what = !target.isFile
    ? `export stopped after ${countRows(rows)} written to standard output`
    : target.partial === undefined
      ? `export stopped after ${countRows(rows)} written into ${target.name}`
      : kept > 0
        ? `export stopped after ${countRows(rows)}; ${target.name} was not written, the first ${countRows(kept)} are kept in ${target.partial}`
        : target.resumed
          ? `export stopped after ${countRows(rows)}; ${target.name} was not written, ${target.partial} and its sidecar are kept`
          : `export stopped after ${countRows(rows)}; ${target.name} was not written`;
  return rephrased(e, `${e.message}: ${what}`, kept > 0 && resumeHint ? { hint: resumeHint } : {});
}
