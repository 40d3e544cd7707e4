// Streams a job's result rows to a target: ordered concurrent pages in, one formatted string per page out,
// each write waiting for the target to drain. On any failure or Ctrl-C the partial file is removed and the
// error says how many rows had been written.
import { DlakeError, InterruptedError } from '../errors.js';
import { collectGarbage } from './heap.js';
import { type FetchPage, pagesInOrder } from './pages.js';
import { OutputClosedError, type Target } from './target.js';
import { createFormatter, type ExportFormat, type RowFormatter } from './writers.js';

export const DEFAULT_CONCURRENCY = 4;
/** Pages between full garbage collections (see heap.ts). */
const PAGES_PER_COLLECTION = 50;

export interface ExportRequest {
  fetchPage: FetchPage;
  format: ExportFormat;
  target: Target;
  /** Rows per request (≤ 500). */
  pageSize: number;
  concurrency?: number;
  startOffset?: number;
  maxRows?: number;
  signal?: AbortSignal;
  /** JSON indented for a reader, as every other command prints it (standard output, not files). */
  pretty?: boolean;
  /** After every page: rows written so far and the rows expected in all. */
  onProgress?: (rows: number, total: number) => void;
}

export interface ExportOutcome {
  rows: number;
  /** Rows expected: the job's rowCount from the start offset, capped by maxRows. */
  total: number;
  /** The job's rowCount, as its first page said. */
  rowCount: number;
  /** The reader of standard output went away before the end (`| head`). */
  truncated: boolean;
}

export async function exportRows(req: ExportRequest): Promise<ExportOutcome> {
  const { target, signal } = req;
  const start = req.startOffset ?? 0;
  let written = 0;
  let pages = 0;
  let total = 0;
  let rowCount = 0;
  let formatter: RowFormatter | undefined;
  try {
    for await (const page of pagesInOrder({
      fetchPage: req.fetchPage,
      pageSize: req.pageSize,
      concurrency: req.concurrency ?? DEFAULT_CONCURRENCY,
      startOffset: start,
      maxRows: req.maxRows,
      signal,
    })) {
      if (!formatter) {
        formatter = createFormatter(req.format, page.schema, { pretty: req.pretty });
        rowCount = page.rowCount;
        total = Math.max(0, Math.min(page.rowCount - start, req.maxRows ?? Number.POSITIVE_INFINITY));
        await target.write(formatter.head, signal);
      }
      await target.write(formatter.page(page.rows, page.exact), signal);
      written += page.rows.length;
      if (++pages % PAGES_PER_COLLECTION === 0) collectGarbage();
      // Ctrl-C between pages: stop here rather than after the requests in flight.
      if (signal?.aborted) throw new InterruptedError('interrupted');
      req.onProgress?.(written, Math.max(total, written));
    }
    if (formatter) await target.write(formatter.tail(), signal);
    await target.commit();
    return { rows: written, total, rowCount, truncated: false };
  } catch (err) {
    await target.discard();
    if (err instanceof OutputClosedError) return { rows: written, total, rowCount, truncated: true };
    throw stoppedAfter(err, written, target);
  }
}

/** The same error, its message completed with what was written and what was left behind. */
function stoppedAfter(err: unknown, rows: number, target: Target): unknown {
  const e =
    err instanceof DlakeError
      ? err
      : (err as Error)?.name === 'AbortError'
        ? new InterruptedError('interrupted')
        : undefined;
  if (!e) return err;
  // Nothing written to standard output needs no account of it.
  if (!target.isFile && rows === 0) return e;
  const count = `${rows.toLocaleString('en-US')} row${rows === 1 ? '' : 's'}`;
  const what = target.isFile
    ? `export stopped after ${count}; ${target.name} was not written`
    : `export stopped after ${count} written to standard output`;
  const Same = e.constructor as new (
    message: string,
    opts: ConstructorParameters<typeof DlakeError>[1],
  ) => DlakeError;
  return new Same(`${e.message}: ${what}`, {
    hint: e.hint,
    moreInfo: e.moreInfo,
    details: e.details,
    cause: e.cause,
  });
}
