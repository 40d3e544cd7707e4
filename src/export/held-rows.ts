// Result rows read into memory, page after page, up to a bound: what a table, --query and the SQL shell's
// views need (an export streams instead, export.ts).
import { type ResultField, type ResultRow, sameColumns } from '../api/jobs.js';
import { pageFetcher, type RowsSource } from './page-fetcher.js';
import { PAGE_CONCURRENCY, pagesInOrder } from './pages.js';

interface HeldRows {
  schema: ResultField[];
  rows: ResultRow[];
  rowCount: number;
  /** Some number is kept as its exact text (a JsonNumber). */
  exact: boolean;
}

/** The rows of `src`, up to `maxRows`, with the result's schema and the job's rowCount. */
export async function readRows(src: RowsSource): Promise<HeldRows> {
  const held: HeldRows = { schema: [], rows: [], rowCount: -1, exact: false };
  for await (const page of pagesInOrder({
    fetchPage: pageFetcher(src.client, src.id),
    pageSize: src.pageSize ?? 500,
    concurrency: src.concurrency ?? PAGE_CONCURRENCY,
    startOffset: src.startOffset,
    maxRows: src.maxRows,
    signal: src.signal,
  })) {
    if (held.rowCount < 0) {
      held.schema = page.schema;
      held.rowCount = page.rowCount;
    } else if (page.schema !== held.schema) sameColumns(held.schema, page.schema);
    // Appended in place: concatenating page after page copied every row held so far each time.
    for (const row of page.rows) held.rows.push(row);
    held.exact ||= page.exact;
  }
  return held;
}
