// Reading the job history: one SQL query on the edition's system table, waited for with the usual feedback
// (and its signal cancelling it), the fallback to `sys.jobs` on self-hosted servers without `sys.jobs_recent`,
// and the rows delivered in one JobSummary shape. `job list`, `job why`, `top` and the agents' tools read it.
import type { ApiClient } from '../api/http.js';
import {
  type HistoryTable,
  historyTable,
  JOB_SUMMARY_FIELDS,
  type JobSummary,
  jobSummary,
  lacksJobsRecent,
} from '../api/job-history.js';
import type { ResultRow, ResultsPage } from '../api/jobs.js';
import { JOB_ID } from '../api/url-segment.js';
import type { Context } from '../context.js';
import { ServiceError } from '../errors.js';
import { waitWithFeedback } from '../export/job-wait.js';
import { pageFetcher } from '../export/page-fetcher.js';
import type { FetchPage } from '../export/pages.js';
import { firstLine } from '../util/first-line.js';

/** A completed query of the history: its job id and the table it read. */
interface HistoryQuery {
  id: string;
  table: HistoryTable;
}

interface QueryOptions {
  /** Show no spinner (a refreshing view draws its own screen). */
  quiet?: boolean;
  signal?: AbortSignal;
  /** `--wait-timeout`: how long the query may be waited for (exit 7 after it; the service's job keeps running). */
  timeoutMs?: number;
}

/**
 * Runs `sql(table)` on the history table of the edition in force (`recent`: every recent job; `running`: the
 * running ones) and returns once it completed. Self-hosted servers without `sys.jobs_recent` keep every recent
 * job in `sys.jobs`: the query is run there instead (docs/api-facts.md §15).
 */
export async function queryHistory(
  ctx: Context,
  which: 'recent' | 'running',
  sql: (table: HistoryTable) => string,
  opts: QueryOptions = {},
): Promise<HistoryQuery> {
  // Not bound to the signal: a job whose submission was answered is one the wait below can cancel.
  const client = await ctx.client();
  const edition = ctx.root().edition;
  const table = historyTable(edition, which);
  const first = await runOnce(ctx, client, sql(table), opts);
  if (first.ok) return { id: first.id, table };
  if (table === 'sys.jobs_recent' && lacksJobsRecent(first.error)) {
    const again = await runOnce(ctx, client, sql('sys.jobs'), opts);
    if (again.ok) return { id: again.id, table: 'sys.jobs' };
    throw lacksTable('sys.jobs', again.error, 'neither sys.jobs_recent nor sys.jobs');
  }
  throw lacksTable(table, first.error);
}

async function runOnce(
  ctx: Context,
  client: ApiClient,
  sql: string,
  opts: QueryOptions,
): Promise<{ ok: true; id: string } | { ok: false; id: string; error: string }> {
  const { submitSql, waitForJob, requireCompleted } = await import('../api/jobs.js');
  const id = await submitSql(client, sql);
  const status = opts.quiet
    ? await waitForJob(client, id, {
        signal: opts.signal ?? ctx.interrupt.signal,
        firstDelayMs: 50,
        timeoutMs: opts.timeoutMs,
      })
    : await waitWithFeedback(ctx, client, id, { signal: opts.signal, timeoutMs: opts.timeoutMs });
  if (status.jobState === 'COMPLETED') return { ok: true, id };
  if (status.jobState === 'FAILED') return { ok: false, id, error: status.errorMessage ?? '' };
  requireCompleted(status, id);
  return { ok: true, id };
}

/**
 * A history query that failed: the table missing is the server lacking it (exit 7: every edition documents
 * one); any other failure is the query's (exit 6, the service's words).
 */
function lacksTable(table: HistoryTable, error: string, lacks = `no ${table}`): Error {
  if (/not found|does not exist/i.test(error)) {
    return new ServiceError(`this server has ${lacks}: its job history cannot be read`, {
      moreInfo: error,
    });
  }
  return new ServiceError(`reading ${table} failed: ${firstLine(error) || 'no reason was given'}`);
}

/**
 * The rows of a history query, each one's job id checked as every job id the service sends is (`JOB_ID`), before
 * it is printed or put in a URL (`top`'s cancel, a short id resolved): anything else (megabytes of text, `..`,
 * a slash, a control character, none) is an answer dlake cannot use, exit 7 (docs/cli-contract.md "Operations
 * insight"). `first` is the index of the first row in the query's answer.
 */
function checkJobIds(rows: readonly ResultRow[], table: HistoryTable, first = 0): readonly ResultRow[] {
  rows.forEach((row, i) => {
    if (typeof row.job_id !== 'string' || !JOB_ID.test(row.job_id)) {
      throw new ServiceError(`unexpected answer from ${table}: rows.${first + i}.job_id: not a job id`);
    }
  });
  return rows;
}

/** The pages of a history query's rows, each row made a JobSummary, whatever the edition's columns. */
function summaryPages(client: ApiClient, query: HistoryQuery): FetchPage {
  const fetch = pageFetcher(client, query.id);
  return async (offset, limit, signal): Promise<ResultsPage> => {
    const page = await fetch(offset, limit, signal);
    return {
      rowCount: page.rowCount,
      schema: JOB_SUMMARY_FIELDS,
      rows: checkJobIds(page.rows, query.table, offset).map((r) => jobSummary(r) as unknown as ResultRow),
      exact: page.exact,
    };
  };
}

/** Every row of a history query (a page of at most 500: `--limit` is bounded so), as JobSummary objects. */
export async function readSummaries(ctx: Context, query: HistoryQuery, signal = ctx.interrupt.signal) {
  const client = (await ctx.client()).withSignal(signal);
  const { pagesInOrder } = await import('../export/pages.js');
  const rows: JobSummary[] = [];
  for await (const page of pagesInOrder({
    fetchPage: summaryPages(client, query),
    pageSize: 500,
    concurrency: 1,
    signal,
  })) {
    rows.push(...(page.rows as unknown as JobSummary[]));
  }
  return rows;
}

/** The raw rows of a history query (one job's row for `job why`), their job ids checked as in `summaryPages`. */
export async function readHistoryRows(
  ctx: Context,
  query: HistoryQuery,
  signal = ctx.interrupt.signal,
): Promise<readonly ResultRow[]> {
  const client = (await ctx.client()).withSignal(signal);
  const { getResults } = await import('../api/jobs.js');
  return checkJobIds((await getResults(client, query.id, 0, 500, signal)).rows, query.table);
}
