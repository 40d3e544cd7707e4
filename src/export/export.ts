// The REST source of the delivery pipeline (deliver.ts): a job's results pages, fetched several at a time and
// handed out in order (pages.ts), one formatted chunk per page. The rows delivered must add up to the job's
// rowCount; what was written can be resumed from its last checkpoint (`--resume`).
import { type ResultField, type ResultRow, sameColumns } from '../api/jobs.js';
import { countRows } from '../util/units.js';
import { deliver, type Formatter, IncompleteResultError, type Source } from './deliver.js';
import type { ExportFormat } from './formats.js';
import { type FetchPage, PAGE_CONCURRENCY, pagesInOrder } from './pages.js';
import type { Sink } from './sink.js';
import { loadFormatter } from './writers.js';

interface PagesRequest {
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

/** What a page's formatter formats. */
interface PageRows {
  rows: readonly ResultRow[];
  /** The rows hold JsonNumbers. */
  exact: boolean;
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
        // A CSV page read straight from its bytes (api/jobs.ts `csv`) is written as it is; its buffer then
        // belongs to the sink.
        yield { columns: page.schema, rows: page.rows.length, data: page, formatted: page.csv };
      }
    },
    async formatter(schema: readonly ResultField[], format: ExportFormat): Promise<Formatter<PageRows>> {
      const f = await loadFormatter(format, schema, {
        continuing: req.continuing,
        pretty: req.pretty,
        ...req.resumeState,
      });
      return {
        head: f.head,
        format: (p) => f.page(p.rows, p.exact),
        tail: () => f.tail(),
        get held() {
          return f.held;
        },
        state: f.state && (() => f.state!()),
      };
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

interface ExportRequest extends PagesRequest {
  format: ExportFormat;
  target: Sink;
  signal?: AbortSignal;
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

/** Delivers a job's results pages to `req.target`. */
export async function exportRows(req: ExportRequest): Promise<ExportOutcome> {
  // V8 flags set for the export, and what puts V8's defaults back after it (the SQL shell goes on).
  const restore: string[] = [];
  if (req.format !== 'parquet') restore.push(keepYoungGenerationSmall());
  const source = resultsPages(req);
  const start = source.offset ?? 0;
  try {
    const out = await deliver(source, req.target, {
      format: req.format,
      signal: req.signal ?? new AbortController().signal,
      onProgress:
        req.onProgress && ((rows) => req.onProgress!(rows - start, Math.max(source.total, rows - start))),
      resumeHint: req.resumeHint,
    });
    return { ...out, total: source.total, rowCount: source.rowCount };
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
