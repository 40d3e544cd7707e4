// Ordered concurrent paging: results pages are fetched several at a time but handed out strictly in order.
// `concurrency` requests stay in flight while the consumer writes, and at most `concurrency + buffer` pages
// are ever ahead of it (in flight or waiting), so memory stays flat whatever the row count.
import { setMaxListeners } from 'node:events';
import type { ResultsPage } from '../api/jobs.js';
import { ServiceError } from '../errors.js';

/** Results pages fetched at once unless the command says otherwise (`--concurrency`). */
export const PAGE_CONCURRENCY = 4;

export type FetchPage = (offset: number, limit: number, signal: AbortSignal) => Promise<ResultsPage>;

interface PagingOptions {
  fetchPage: FetchPage;
  /** Rows per request (the service takes at most 500). */
  pageSize: number;
  /** Requests in flight at once (at least 1). */
  concurrency: number;
  /** Pages fetched but not yet handed out, on top of those in flight (default: `concurrency`). */
  buffer?: number;
  /** First row to read (default 0). */
  startOffset?: number;
  /** Read at most this many rows (default: all). */
  maxRows?: number;
  signal?: AbortSignal;
}

interface OrderedPage extends ResultsPage {
  /** Offset of the page's first row. */
  offset: number;
}

interface Pending {
  offset: number;
  limit: number;
  page: Promise<ResultsPage>;
}

/**
 * Yields the pages from `startOffset` in order. The first page is read alone: it tells the schema and the
 * job's `rowCount`. Paging stops at `rowCount` (or `maxRows`), and also at a page shorter than asked for or
 * empty, since `rowCount` can overstate the rows of some jobs (docs/api-facts.md §4.3). Leaving the loop
 * early aborts the requests still in flight.
 */
export async function* pagesInOrder(opts: PagingOptions): AsyncGenerator<OrderedPage> {
  const { fetchPage, pageSize } = opts;
  const concurrency = Math.max(1, Math.floor(opts.concurrency));
  const window = concurrency + Math.max(0, Math.floor(opts.buffer ?? concurrency));
  const start = opts.startOffset ?? 0;
  const stop = start + (opts.maxRows ?? Number.POSITIVE_INFINITY);
  const ahead = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, ahead.signal]) : ahead.signal;
  // Every request in flight listens to it: more than Node's default of 10 is expected, not a leak.
  setMaxListeners(window + 10, signal);
  // Pages asked for and not yet handed out, in offset order; `inFlight` of them still unanswered.
  const queue: Pending[] = [];
  let inFlight = 0;
  // Nothing more is asked for until the first page has told how many rows there are.
  let paging = false;
  let next = start;
  let end = stop;
  const launch = (offset: number, limit: number): Pending => {
    inFlight++;
    const page = fetchPage(offset, limit, signal);
    // Awaited later, in order; until then a failure must not count as unhandled. An answer frees a slot.
    page.then(
      (p) => {
        inFlight--;
        // A short page ends the result: ask for nothing after it.
        if (p.rows.length < limit) end = Math.min(end, offset + p.rows.length);
        pump();
      },
      () => {
        inFlight--;
      },
    );
    return { offset, limit, page };
  };
  const pump = (): void => {
    while (paging && !ahead.signal.aborted && inFlight < concurrency && queue.length < window && next < end) {
      const limit = Math.min(pageSize, end - next);
      queue.push(launch(next, limit));
      next += limit;
    }
  };
  try {
    const firstLimit = Math.min(pageSize, stop - start);
    const first = await take(launch(start, firstLimit));
    if (first.rows.length < firstLimit || first.rows.length === 0) {
      yield first;
      return;
    }
    end = Math.min(end, first.rowCount);
    next = start + firstLimit;
    paging = true;
    pump();
    yield first;
    let previous: OrderedPage = first;
    while (queue.length > 0) {
      const head = queue[0]!;
      const page = await take(head);
      queue.shift();
      checkNotRepeated(previous, page);
      previous = page;
      const short = page.rows.length < head.limit || page.rows.length === 0;
      if (!short) pump();
      yield page;
      if (short) return;
    }
  } finally {
    ahead.abort();
  }
}

async function take(p: Pending): Promise<OrderedPage> {
  const page = await p.page;
  // More rows than asked for would shift every later offset: keep the ones asked for.
  const rows = page.rows.length > p.limit ? page.rows.slice(0, p.limit) : page.rows;
  return { ...page, rows, offset: p.offset };
}

/**
 * Refuses a page that repeats the one before it (docs/cli-contract.md "Real servers"): a server that ignores
 * `offset` answers the first page again and again, which would be written as rows that are not the result's.
 * The rows of a result can be alike, though: when every row of the page is the same row (a constant result, such
 * as `SELECT 1 FROM t`, or one of no columns), a correct server sends that very page again, and it is taken.
 * Two pages are compared only when their first and last rows are equal (cheap); then whole.
 */
function checkNotRepeated(before: OrderedPage, page: OrderedPage): void {
  if (page.rows.length === 0 || page.rows.length !== before.rows.length) return;
  if (page.csv && before.csv) {
    if (Buffer.compare(page.csv, before.csv) !== 0 || allAlike(csvLines(page.csv))) return;
  } else {
    const text = (r: unknown) => JSON.stringify(r);
    if (text(page.rows[0]) !== text(before.rows[0]) || text(page.rows.at(-1)) !== text(before.rows.at(-1)))
      return;
    const rows = page.rows.map(text);
    if (rows.join('\n') !== before.rows.map(text).join('\n') || allAlike(rows)) return;
  }
  throw new ServiceError(
    `the service answered the results page at offset ${page.offset} with the rows of offset ${before.offset}: it ignores offset`,
  );
}

function csvLines(csv: Uint8Array): string[] {
  return Buffer.from(csv.buffer, csv.byteOffset, csv.byteLength).toString('utf8').split('\n').filter(Boolean);
}

function allAlike(items: readonly string[]): boolean {
  return items.every((x) => x === items[0]);
}
