// Fetching one page of a job's results at a time: the `fetchPage` that pages.ts calls, keeping to the
// service's page limit, each body read into a reused buffer (docs/architecture.md "Delivery").
import type { ApiClient } from '../api/http.js';
import { getResults } from '../api/jobs.js';
import { BufferPool } from '../util/buffer-pool.js';
import type { FetchPage } from './pages.js';

/** The rows of a job to read: all of them, or `maxRows` from `startOffset`. */
export interface RowsSource {
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

/** Buffers kept for reuse: the pages in flight and those waiting their turn (pages.ts), a body and a CSV each. */
export const PAGE_BUFFERS = 64;

/** One page of the job's results, parsed into row objects. */
export function pageFetcher(client: ApiClient, id: string): FetchPage {
  const buffers = new BufferPool(PAGE_BUFFERS);
  return (offset, limit, signal) => getResults(client, id, offset, limit, signal, buffers);
}
