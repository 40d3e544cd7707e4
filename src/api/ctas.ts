// Server-side export: `CREATE TABLE <path> AS <query>` makes the service's engine write a query's result
// into a source that allows it, in parallel, without the rows passing through this machine. The job's
// result is the writers' summary, one row per file written, whose `Records` add up to the rows written.
import type { ApiClient } from './http.js';
import { getResults } from './jobs.js';

/** Rows of the summary read per request; a CTAS writes one row per file, rarely more than a few hundred. */
const PAGE = 500;

/** The CTAS statement: the query as given, a trailing `;` dropped, under the quoted table name. */
export function ctasStatement(target: string, query: string): string {
  return `CREATE TABLE ${target} AS ${query.trim().replace(/;\s*$/, '')}`;
}

/** The rows a completed CTAS job wrote: the sum of its result's `Records` (missing or odd values count 0). */
export async function ctasRowsWritten(
  client: ApiClient,
  jobId: string,
  signal?: AbortSignal,
): Promise<number> {
  let rows = 0;
  for (let offset = 0; ; offset += PAGE) {
    const page = await getResults(client, jobId, offset, PAGE, signal);
    for (const row of page.rows) {
      const key = Object.keys(row).find((k) => k.toLowerCase() === 'records');
      const n = key === undefined ? Number.NaN : Number(String(row[key]));
      if (Number.isFinite(n)) rows += n;
    }
    if (page.rows.length < PAGE || offset + PAGE >= page.rowCount) return rows;
  }
}
