// A CSV export's direct path: a flat results page goes straight from the service's JSON bytes to CSV lines,
// without row objects (json-csv.ts); a page of another shape is parsed as any other.
import type { ApiClient } from '../api/http.js';
import {
  getResultsBytes,
  parseResultsBytes,
  type ResultRow,
  resultsEndpoint,
  resultsPageOf,
} from '../api/jobs.js';
import { BufferPool } from '../util/buffer-pool.js';
import { csvFromResultsPage, flatColumns } from './json-csv.js';
import { PAGE_BUFFERS } from './page-fetcher.js';
import type { FetchPage } from './pages.js';

/** One page of the job's results, as CSV lines where the page is flat (`csv`, `rows` only counting them). */
export function csvPageFetcher(client: ApiClient, id: string): FetchPage {
  const buffers = new BufferPool(PAGE_BUFFERS);
  const endpoint = resultsEndpoint(id);
  return async (offset, limit, signal) => {
    const body = await getResultsBytes(client, id, offset, limit, buffers, signal);
    try {
      const direct = csvFromResultsPage(body, limit, flatColumns, buffers);
      if (!direct) return parseResultsBytes(body, id);
      const page = resultsPageOf({ ...direct.envelope, rows: [] }, endpoint, false);
      return {
        ...page,
        rows: placeholders(direct.rows),
        // Handed to the sink with the page, never back to the pool (export/target.ts Sink).
        csv: direct.csv,
      };
    } finally {
      buffers.give(body);
    }
  };
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
