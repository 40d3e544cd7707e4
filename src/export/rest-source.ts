// The REST source of the delivery pipeline (deliver.ts): a job's results pages, fetched several at a time and
// handed out in order (pages.ts), one formatted chunk per page. The rows delivered must add up to the job's
// rowCount; what was written can be resumed from its last checkpoint (`--resume`).
import { type ResultField, sameColumns } from '../api/jobs.js';
import { countRows } from '../util/units.js';
import { IncompleteResultError, type Source } from './deliver.js';
import { type ExportFormat, formatModule } from './formats.js';
import type { PageRows } from './formatter.js';
import { type FetchPage, PAGE_CONCURRENCY, pagesInOrder } from './pages.js';

export interface PagesRequest {
  fetchPage: FetchPage;
  /** Rows per request (≤ 500). */
  pageSize: number;
  concurrency?: number;
  startOffset?: number;
  /** The sink already holds the rows before `startOffset` (a resumed export): no head, no first row. */
  continuing?: boolean;
  /** Of a resumed export: the formatter's state and the bytes kept at its checkpoint (from the sidecar). */
  resumeState?: { state?: unknown; bytes: number };
  maxRows?: number;
  /** JSON indented for a reader, as every other command prints it (standard output, not files). */
  pretty?: boolean;
}

/** A REST source that also tells, once its first page came, the job's rowCount and the rows expected. */
interface ResultsSource extends Source<readonly ResultField[], PageRows> {
  /** The job's rowCount, as its first page said (-1 before). */
  readonly rowCount: number;
  /** Rows expected: the rowCount from the start offset, capped by maxRows. */
  readonly total: number;
}

/** The results pages of a job as a source. */
export function resultsPages(req: PagesRequest): ResultsSource {
  const start = req.startOffset ?? 0;
  const src = {
    rowCount: -1,
    total: 0,
    offset: req.continuing ? start : 0,
    resumable: true,
    async *pieces(signal: AbortSignal) {
      for await (const page of pagesInOrder({
        fetchPage: req.fetchPage,
        pageSize: req.pageSize,
        concurrency: req.concurrency ?? PAGE_CONCURRENCY,
        startOffset: start,
        maxRows: req.maxRows,
        signal,
      })) {
        if (src.rowCount < 0) {
          src.rowCount = page.rowCount;
          src.total = Math.max(0, Math.min(page.rowCount - start, req.maxRows ?? Number.POSITIVE_INFINITY));
        }
        // A CSV page read straight from its bytes (csv-pages.ts) is written as it is; its buffer then belongs
        // to the sink.
        yield { columns: page.schema, rows: page.rows.length, data: page, formatted: page.csv };
      }
    },
    async formatter(schema: readonly ResultField[], format: ExportFormat) {
      return (await formatModule(format)).rows(schema, {
        continuing: req.continuing,
        pretty: req.pretty,
        ...req.resumeState,
      });
    },
    sameColumns,
    expected: () => src.total,
    complete(rows: number): void {
      // Every row or none: a result that stops short (or runs long) of its rowCount is not the job's result.
      if (req.maxRows === undefined && rows !== src.total) {
        throw new IncompleteResultError(
          `the service returned ${countRows(start + rows)} but the job's rowCount is ${src.rowCount.toLocaleString('en-US')}`,
        );
      }
    },
  };
  return src;
}
