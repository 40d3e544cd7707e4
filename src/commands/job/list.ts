// `dlake job list`: the job history, newest first, every filter and the limit in the SQL query on the
// edition's system tables (src/ops/jobs.ts, docs/cli-contract.md "Operations insight"); the rows in one shape on
// both editions, printed or written to --out in any format.
import { type Command, Option } from '@commander-js/extra-typings';
import { JsonNumber } from '../../api/exact-json.js';
import { JOB_SUMMARY_FIELDS, type JobSummary } from '../../api/job-history.js';
import type { ResultRow } from '../../api/jobs.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { ExportFormat, ExportSpec } from '../../export/formats.js';
import type { FetchPage } from '../../export/pages.js';
import { jobFilter, listJobs } from '../../ops/jobs.js';
import type { View } from '../../output/view.js';
import { countRows, formatDuration } from '../../util/units.js';
import { examples } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { formatOption, waitTimeoutOption } from '../job-options.js';
import { duration, repeatable, wholeNumber } from '../options.js';

/** The most jobs one listing reads (a thousand pages' worth would be a history dump, not a listing). */
const MAX_LIMIT = 10_000;

const declaration = (job: Command) =>
  job
    .command('list')
    .alias('ls')
    .description('List jobs of the history, newest first; every filter is applied by the service')
    .option(
      '--status <state>',
      'only jobs in this state (COMPLETED, FAILED, CANCELED, RUNNING…); repeatable or comma-separated',
      repeatable('--status', { commas: true }),
    )
    .option('--user <name>', "only this user's jobs")
    .option(
      '--since <when>',
      'submitted at or after WHEN: a duration back from now (24h, 7d) or an ISO 8601 time',
    )
    .option('--until <when>', 'submitted before WHEN (same forms as --since)')
    .option('--type <query-type>', 'only jobs of this query type (UI_RUN, REST, JDBC, ODBC, FLIGHT…)')
    .option('--queue <name>', 'only jobs placed on this queue')
    .option('--engine <name>', 'only jobs run on this engine')
    .option(
      '--min-duration <duration>',
      'only jobs that took at least this long, e.g. 30s',
      duration('--min-duration'),
    )
    .option('--text <substring>', 'only jobs whose SQL contains this text (case-insensitive)')
    .addOption(new Option('--accelerated', 'only jobs a reflection accelerated').conflicts('notAccelerated'))
    .addOption(new Option('--not-accelerated', 'only jobs no reflection accelerated'))
    .option(
      '--limit <n>',
      `jobs to list (default 50, at most ${MAX_LIMIT})`,
      wholeNumber('--limit', { min: 1, max: MAX_LIMIT }),
    )
    .option('--wide', 'on a terminal too, every column and whole job ids (as a pipe or a file gets them)')
    .option('--out <file>', 'write the jobs to FILE (- for standard output) in the format of its name')
    .addOption(formatOption())
    .addOption(waitTimeoutOption())
    .addHelpText(
      'after',
      examples(
        'dlake job list',
        'dlake job list --status FAILED --since 24h',
        'dlake job list --user alice --text orders --limit 10 -o json',
        'dlake job list --min-duration 1m --not-accelerated --out slow.csv',
      ),
    );

export const register = defineCommand(declaration, list);

type Flags = OptionsOf<typeof declaration>;

async function list(ctx: Context, opts: Flags): Promise<void> {
  const filter = jobFilter(opts, Date.now());
  const spec = opts.out
    ? (await import('../../export/formats.js')).exportSpec(opts.out, opts.format)
    : undefined;
  if (opts.format && !opts.out) throw new UsageError('--format applies with --out FILE');
  if (opts.out && opts.out !== '-') await (await import('../../export/target.js')).checkWritable(opts.out);
  const jobs = await listJobs(ctx, filter, ctx.interrupt.signal, opts.waitTimeout);
  await deliverJobs(ctx, jobs, opts.out, spec, Boolean(opts.wide));
}

/**
 * The rows to their reader through the delivery pipeline (`deliver(source, sink)`, src/export/deliver.ts):
 * `--out FILE` and the formats other than the table as `sql` writes them; a table (or a --query filter) from the
 * rows held.
 */
async function deliverJobs(
  ctx: Context,
  jobs: JobSummary[],
  out: string | undefined,
  spec: ExportSpec | undefined,
  wide: boolean,
): Promise<void> {
  const format = out && spec ? spec.format : ctx.format;
  ctx.interruptible = true;
  if ((out && spec) || (format !== 'table' && !ctx.opts.query)) {
    const [{ deliver }, { resultsPages }, { openSink, stdoutSink, isStdout }] = await Promise.all([
      import('../../export/deliver.js'),
      import('../../export/export.js'),
      import('../../export/target.js'),
    ]);
    const toStdout = !out || isStdout(out);
    const sink =
      out && spec
        ? await openSink(out, ctx.streams.stdout, {
            gzip: spec.gzip,
            signal: ctx.interrupt.signal,
            content: spec.format,
          })
        : stdoutSink(ctx.streams.stdout, format === 'table' ? undefined : format);
    // Pretty JSON on standard output, as every command prints it; compact in a file.
    const source = resultsPages({
      fetchPage: pagesOf(jobs),
      pageSize: 500,
      concurrency: 1,
      pretty: toStdout,
    });
    const done = await deliver(source, sink, {
      format: format as ExportFormat,
      signal: ctx.interrupt.signal,
    });
    if (!toStdout) ctx.ui.notice(`wrote ${countJobs(done.rows)} to ${out} (${format.toUpperCase()})`);
    return;
  }
  const terminal = Boolean(ctx.streams.stdout.isTTY);
  await ctx.print({ data: jobs, rows: jobs, view: terminal && !wide ? JOB_VIEW_NARROW : JOB_VIEW });
  if (terminal && !wide && jobs.length)
    ctx.ui.notice('job ids are shortened; --wide (or -o json) shows them whole, and every column');
}

/** The jobs as results pages, for the delivery pipeline: every format and --out as `sql` writes them. */
function pagesOf(jobs: readonly JobSummary[]): FetchPage {
  const exact = jobs.some((j) =>
    [j.rowsReturned, j.rowsScanned, j.bytesScanned].some((v) => v instanceof JsonNumber),
  );
  return async (offset, limit) => ({
    rowCount: jobs.length,
    schema: JOB_SUMMARY_FIELDS,
    rows: jobs.slice(offset, offset + limit) as unknown as ResultRow[],
    exact,
  });
}

const countJobs = (n: number): string => countRows(n).replace(/rows?/, n === 1 ? 'job' : 'jobs');

/** A count as text: exact numbers (JsonNumber) by their text. */
const countText = (v: JobSummary['rowsReturned']): string =>
  v === null ? '' : typeof v === 'number' ? String(v) : v.text;

/** A query on one line: never cut here (a terminal's table cuts free text to fit; a pipe gets it whole). */
const oneLine = (s: string | null): string => (s ?? '').replace(/\s+/g, ' ').trim();

/**
 * The table of job list on a terminal: what fits 80 columns, the query taking the rest. A job id is its first
 * 8 characters, as `gh` and git show short ids; `job why`, `job get` and `job profile` take it back.
 */
const JOB_VIEW_NARROW: View<JobSummary> = {
  columns: [
    { header: 'JOB ID', value: (j) => j.id.slice(0, 8) },
    { header: 'STATE', value: (j) => j.state },
    { header: 'USER', value: (j) => j.user },
    { header: 'SUBMITTED', value: (j) => j.submittedAt?.slice(5, 16).replace('T', ' ') },
    {
      header: 'DURATION',
      value: (j) => (j.durationMs === null ? '' : formatDuration(j.durationMs, { largest: 1 })),
    },
    { header: 'ROWS', value: (j) => countText(j.rowsReturned) },
    { header: 'QUERY', value: (j) => oneLine(j.query) },
  ],
  empty: 'No jobs.',
};

/** The table of job list with every column (--wide, a pipe, a file) and of `top --once`: one line per job. */
export const JOB_VIEW: View<JobSummary> = {
  columns: [
    { header: 'JOB ID', value: (j) => j.id },
    { header: 'STATE', value: (j) => j.state },
    { header: 'USER', value: (j) => j.user },
    { header: 'TYPE', value: (j) => j.queryType },
    { header: 'SUBMITTED', value: (j) => j.submittedAt?.replace('T', ' ').replace(/\.\d+Z$/, 'Z') },
    {
      header: 'DURATION',
      value: (j) => (j.durationMs === null ? '' : formatDuration(j.durationMs, { largest: 2 })),
    },
    { header: 'ROWS', value: (j) => countText(j.rowsReturned) },
    { header: 'QUEUE/ENGINE', value: (j) => [j.queue, j.engine].filter(Boolean).join('/') },
    { header: 'ACCEL', value: (j) => (j.accelerated ? 'yes' : '') },
    { header: 'QUERY', value: (j) => oneLine(j.query) },
  ],
  empty: 'No jobs.',
};
