// `dlake job get|wait|cancel|results|export`: a job's status, waiting for it to settle, cancelling it, and
// reading its rows a page at a time, all at once, or streamed to a file.
import { type Command, Option } from 'commander';
import { MAX_RESULTS_PAGE } from '../constants.js';
import type { Context } from '../context.js';
import type { Runtime } from '../runtime.js';
import { formatDuration, parseDuration } from '../util/units.js';
import { confirmDestructive, examples, printDryRun } from './common.js';
import {
  concurrencyOption,
  countRows,
  duration,
  exportToFile,
  formatOption,
  printRows,
  waitTimeoutOption,
  wholeNumber,
} from './job-output.js';
import { waitWithFeedback } from './job-wait.js';

type ExportFormat = 'csv' | 'json' | 'ndjson';

export function register(program: Command, rt: Runtime): void {
  const job = program.command('job').description('Inspect, wait for, cancel and export SQL jobs');

  job
    .command('get')
    .description(
      "Show a job's state, times, row count, error and the reflections it chose, matched or considered",
    )
    .argument('<id>', 'job id')
    .addHelpText(
      'after',
      examples('dlake job get 2f067496-7cf0-a70e-0222-34d53a5dc800', 'dlake job get ID -o json'),
    )
    .action(rt.action(get));

  job
    .command('wait')
    .description('Wait until a job ends; exit 6 if it FAILED or was CANCELED')
    .argument('<id>', 'job id')
    .option('--timeout <duration>', 'stop waiting after this long, e.g. 10m (exit 7; the job keeps running)')
    .option('--wait-timeout <duration>', 'the same as --timeout', duration('--wait-timeout'))
    .option('-y, --yes', 'on Ctrl-C, cancel the job without asking')
    .addHelpText(
      'after',
      examples(
        'dlake job wait ID',
        'dlake job wait ID --timeout 15m -o json',
        'dlake job wait ID -q && echo done',
      ),
    )
    .action(rt.action(wait));

  job
    .command('cancel')
    .description('Ask the service to cancel a running job')
    .argument('<id>', 'job id')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--dry-run', 'print the request instead of sending it')
    .addHelpText(
      'after',
      examples('dlake job cancel ID', 'dlake job cancel ID --yes', 'dlake job cancel ID --dry-run'),
    )
    .action(rt.action(cancel));

  job
    .command('results')
    .description(
      `Print a page of a completed job's rows (at most ${MAX_RESULTS_PAGE}), or all of them with --all`,
    )
    .argument('<id>', 'job id')
    .option('--offset <n>', 'first row to print (default 0)', wholeNumber('--offset', 0))
    .option(
      '--limit <n>',
      `rows to print (default 100, at most ${MAX_RESULTS_PAGE})`,
      wholeNumber('--limit', 0, MAX_RESULTS_PAGE, " (the service's page limit)"),
    )
    .addOption(
      new Option('--all', 'print every row, fetching page after page').conflicts(['offset', 'limit']),
    )
    .option(
      '--concurrency <n>',
      'pages fetched at once with --all (default 4)',
      wholeNumber('--concurrency', 1, 32),
    )
    .addHelpText(
      'after',
      examples(
        'dlake job results ID',
        'dlake job results ID --offset 500 --limit 500 -o csv',
        'dlake job results ID --all -o ndjson | jq .name',
      ),
    )
    .action(rt.action(results));

  job
    .command('export')
    .description("Stream every row of a job's result to a file (waits for the job first)")
    .argument('<id>', 'job id')
    .requiredOption(
      '--out <file>',
      'file to write (- for standard output); written as FILE.partial, then renamed',
    )
    .addOption(formatOption())
    .addOption(concurrencyOption())
    .addOption(waitTimeoutOption())
    .option('-y, --yes', 'on Ctrl-C while waiting, cancel the job without asking')
    .addHelpText(
      'after',
      examples(
        'dlake job export ID --out rows.csv',
        'dlake job export ID --out rows.ndjson --concurrency 8',
        'dlake job export ID --out - --format json | jq length',
      ),
    )
    .action(rt.action(exportJob));
}

interface StatusRow {
  field: string;
  value: unknown;
}

async function get(ctx: Context, id: string): Promise<void> {
  const { getJob } = await import('../api/jobs.js');
  const status = await getJob(await ctx.client(), id);
  await printStatus(ctx, id, status);
}

async function printStatus(ctx: Context, id: string, status: import('../api/jobs.js').JobStatus) {
  const rows: StatusRow[] = [
    { field: 'id', value: id },
    { field: 'state', value: status.jobState },
    { field: 'query type', value: status.queryType },
    { field: 'rows', value: status.jobState === 'COMPLETED' ? status.rowCount : undefined },
    { field: 'started', value: status.startedAt },
    { field: 'ended', value: status.endedAt },
    { field: 'duration', value: elapsed(status.startedAt, status.endedAt) },
    { field: 'queue', value: status.queueName },
    { field: 'error', value: status.errorMessage },
    { field: 'cancellation reason', value: status.cancellationReason },
  ];
  const rels = status.acceleration?.reflectionRelationships ?? [];
  for (const kind of ['CHOSEN', 'MATCHED', 'CONSIDERED']) {
    const these = rels.filter((r) => r.relationship === kind);
    if (these.length) {
      rows.push({
        field: `reflections ${kind.toLowerCase()}`,
        value: these.map((r) => `${r.reflectionId} (dataset ${r.datasetId})`).join(', '),
      });
    }
  }
  const other = rels.filter((r) => !['CHOSEN', 'MATCHED', 'CONSIDERED'].includes(r.relationship));
  for (const r of other)
    rows.push({ field: `reflection ${r.relationship.toLowerCase()}`, value: r.reflectionId });
  await ctx.print({
    data: status,
    rows: rows.filter((r) => r.value !== undefined && r.value !== ''),
    view: {
      columns: [
        { header: 'FIELD', value: (r: StatusRow) => r.field },
        { header: 'VALUE', value: (r: StatusRow) => r.value },
      ],
    },
  });
}

function elapsed(start?: string, end?: string): string | undefined {
  const a = start ? Date.parse(start) : Number.NaN;
  const b = end ? Date.parse(end) : Number.NaN;
  return Number.isFinite(a) && Number.isFinite(b) && b >= a
    ? formatDuration(b - a, { largest: 2 })
    : undefined;
}

async function wait(ctx: Context, id: string, opts: { waitTimeout?: number; yes?: boolean }): Promise<void> {
  // The root command owns --timeout (the per-request timeout), so its value arrives there; on `job wait`
  // it also bounds the whole wait, as cli.md says.
  const timeoutMs = opts.waitTimeout ?? (ctx.opts.timeout ? parseDuration(ctx.opts.timeout) : undefined);
  const client = await ctx.client();
  const status = await waitWithFeedback(ctx, client, id, { timeoutMs, yes: opts.yes });
  const { requireCompleted } = await import('../api/jobs.js');
  requireCompleted(status, id);
  await printStatus(ctx, id, status);
}

async function cancel(ctx: Context, id: string, opts: { yes?: boolean; dryRun?: boolean }): Promise<void> {
  if (opts.dryRun)
    return printDryRun(ctx, { method: 'POST', path: `/api/v3/job/${encodeURIComponent(id)}/cancel` });
  await confirmDestructive(ctx, `cancel job ${id}?`, opts.yes);
  const { cancelJob } = await import('../api/jobs.js');
  const outcome = await cancelJob(await ctx.client(), id);
  ctx.ui.notice(
    outcome.requested
      ? `cancellation of job ${id} requested`
      : `job ${id} had already ended (${outcome.status.jobState}): nothing to cancel`,
  );
}

async function results(
  ctx: Context,
  id: string,
  opts: { offset?: number; limit?: number; all?: boolean; concurrency?: number },
): Promise<void> {
  const client = await ctx.client();
  if (opts.all) {
    await printRows(ctx, { client, id, concurrency: opts.concurrency });
    return;
  }
  const offset = opts.offset ?? 0;
  const limit = opts.limit ?? 100;
  // One request: a page of `limit` rows.
  const printed = await printRows(ctx, { client, id, startOffset: offset, maxRows: limit, pageSize: limit });
  const end = offset + printed.rows;
  if (printed.rows > 0 && end < printed.rowCount) {
    ctx.ui.notice(
      `rows ${offset + 1}–${end} of ${printed.rowCount.toLocaleString('en-US')}; next page: --offset ${end}`,
    );
  } else if (printed.rows === 0 && offset > 0 && offset >= printed.rowCount) {
    ctx.ui.notice(`no rows at offset ${offset}: the job has ${countRows(printed.rowCount)}`);
  }
}

async function exportJob(
  ctx: Context,
  id: string,
  opts: { out: string; format?: ExportFormat; concurrency?: number; waitTimeout?: number; yes?: boolean },
): Promise<void> {
  const { formatFromFileName } = await import('../export/writers.js');
  const format = opts.format ?? formatFromFileName(opts.out) ?? 'csv';
  if (opts.out !== '-') {
    const { checkWritable } = await import('../export/target.js');
    await checkWritable(opts.out);
  }
  const client = await ctx.client();
  // A job still running is waited for first, as `job wait` does.
  const status = await waitWithFeedback(ctx, client, id, { timeoutMs: opts.waitTimeout, yes: opts.yes });
  const { requireCompleted } = await import('../api/jobs.js');
  requireCompleted(status, id);
  if (!status.rowCount && ctx.ui.verbose) ctx.ui.notice(`job ${id} reports no rows`);
  await exportToFile(ctx, { client, id, out: opts.out, format, concurrency: opts.concurrency });
}
