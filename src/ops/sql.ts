// SQL as data: a statement run, waited for and its first rows read into memory through the delivery pipeline,
// numbers exactly as the service sent them. The agents' `run_sql` reads it.
import type { ResultField } from '../api/jobs.js';
import type { Context } from '../context.js';
import { InterruptedError } from '../errors.js';

interface SqlResult {
  jobId: string;
  columns: { name: string; type: unknown }[];
  rows: unknown[];
  /** Rows the job returned in all (the statement's LIMIT included). */
  rowCount: number;
  /** Fewer rows here than the job returned: `maxRows` or `maxBytes` cut them. */
  truncated: boolean;
}

/**
 * Submits `sql`, waits for it and reads up to `maxRows` rows through the delivery pipeline into memory, at most
 * `maxBytes` of them as NDJSON (numbers exactly as the service sent them). `signal` (the client went away, the
 * call was cancelled, SIGTERM) cancels the job on the service.
 */
export async function runSql(
  ctx: Context,
  q: { sql: string; context?: string[]; maxRows: number; maxBytes: number },
  signal = ctx.interrupt.signal,
): Promise<SqlResult> {
  const [
    { submitSql, waitForJob, requireCompleted, cancelJob },
    { deliverToMemory },
    { resultsPages },
    { pageFetcher },
    { parseJsonExact },
  ] = await Promise.all([
    import('../api/jobs.js'),
    import('../export/memory.js'),
    import('../export/rest-source.js'),
    import('../export/page-fetcher.js'),
    import('../api/exact-json.js'),
  ]);
  const client = await ctx.client();
  const id = await submitSql(client, q.sql, q.context);
  try {
    const status = await waitForJob(client, id, { signal });
    requireCompleted(status, id);
    // The job's results pages, as an export reads them, up to maxRows.
    const source = resultsPages({ fetchPage: pageFetcher(client, id), pageSize: 500, maxRows: q.maxRows });
    // The result's columns, as its first page gives them (the sink keeps text only).
    let columns: readonly ResultField[] | undefined;
    const read = await deliverToMemory(
      {
        ...source,
        async *pieces(s: AbortSignal) {
          for await (const piece of source.pieces(s)) {
            columns ??= piece.columns;
            yield piece;
          }
        },
      },
      { format: 'ndjson', maxBytes: q.maxBytes, signal },
    );
    const rows = read.text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => parseJsonExact(line).value);
    const rowCount = Math.max(status.rowCount ?? source.rowCount, rows.length);
    return {
      jobId: id,
      columns: (columns ?? []).map((f) => ({ name: f.name ?? '', type: f.type })),
      rows,
      rowCount,
      truncated: read.truncated || rowCount > rows.length,
    };
  } catch (err) {
    if (signal.aborted) {
      // Best effort, bounded: the caller is going away.
      await cancelJob(client, id, AbortSignal.timeout(5_000)).catch(() => {});
      throw new InterruptedError(`interrupted: job ${id} was cancelled`);
    }
    throw err;
  }
}
