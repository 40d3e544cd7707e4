// One statement's way to its rows, shared by `dlake sql` (and each statement of `sql -f`) and the SQL shell:
// over Arrow Flight when an export's transport says so (the query then runs there, once: no REST job beside
// it), else submitted as a REST job and waited for, then its rows delivered to `--out` (or `\o FILE`) through
// the delivery pipeline. A caller that prints the rows itself (a table, the shell's pager) gets the job.
import type { ApiClient } from '../api/http.js';
import type { Context } from '../context.js';
import type { Transport } from './flight/transport.js';
import type { ExportSpec } from './formats.js';
import { waitWithFeedback } from './job-wait.js';

interface StatementRun {
  /** The SQL as it was given: what Flight runs. */
  sql: string;
  /** What is submitted as a REST job, when not `sql` itself (a CREATE TABLE AS wrapping it). */
  submit?: string;
  /** The catalog path unqualified names resolve in (a REST feature: it keeps an `auto` export off Flight). */
  context?: string[];
  /** Where every row goes (a file or `-`), with its format. */
  out?: { file: string; spec: ExportSpec };
  transport: Transport;
  /** Results pages fetched at once (REST). */
  concurrency?: number;
  /** Return as soon as the job is submitted (no `out`). */
  noWait?: boolean;
  waitTimeoutMs?: number;
  /** Ctrl-C while waiting cancels the job without asking. */
  yes?: boolean;
  /** What interrupts it (default: the command's Ctrl-C). */
  signal?: AbortSignal;
}

/** What became of a statement: its rows delivered to `out`, or the REST job for the caller to read. */
type StatementOutcome = { delivered: true } | { delivered: false; client: ApiClient; id: string };

export async function runStatement(ctx: Context, run: StatementRun): Promise<StatementOutcome> {
  /** The statement as a REST job, submitted and (unless --no-wait) waited for until it completed. */
  const job = async (): Promise<{ client: ApiClient; id: string }> => {
    const client = await ctx.client();
    const { submitSql, requireCompleted } = await import('../api/jobs.js');
    const id = await submitSql(client, run.submit ?? run.sql, run.context);
    if (run.noWait) return { client, id };
    if (!ctx.ui.motion) ctx.ui.notice(`job ${id} submitted`);
    const status = await waitWithFeedback(ctx, client, id, {
      timeoutMs: run.waitTimeoutMs,
      yes: run.yes,
      signal: run.signal,
    });
    requireCompleted(status, id);
    return { client, id };
  };
  if (!run.out || run.noWait) return { delivered: false, ...(await job()) };
  const { exportResult } = await import('./export.js');
  await exportResult(ctx, {
    out: run.out.file,
    spec: run.out.spec,
    // Over Flight the statement runs there, once: the REST job is submitted only for an export over REST.
    flight: {
      sql: run.sql,
      transport: run.transport,
      restOnly: run.context === undefined ? undefined : '--context',
      waitTimeoutMs: run.waitTimeoutMs,
    },
    rest: job,
    concurrency: run.concurrency,
    signal: run.signal,
  });
  return { delivered: true };
}
