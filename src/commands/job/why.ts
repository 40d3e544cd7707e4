// `dlake job why ID`: why a job took the time it did and how it ran: its state, where its time went
// (planning, queued, executing), the queue and the rule that placed it or the engine, the reflections it
// considered, matched and chose (with their names and datasets), rows and bytes, and its error. From the job's
// status and its row of the history table (docs/cli-contract.md "Operations insight").
import type { Command } from '@commander-js/extra-typings';
import type { JobStatus } from '../../api/jobs.js';
import type { Context } from '../../context.js';
import { NotFoundError, ServiceError, UsageError } from '../../errors.js';
import type { Detail } from '../../output/view.js';
import { formatPath } from '../../util/catalog-ref.js';
import { formatDuration, formatSize } from '../../util/units.js';
import { examples } from '../common.js';
import { defineCommand } from '../define.js';
import { queryHistory, readHistoryRows } from './history.js';
import { reflectionInfo } from './status.js';

const declaration = (job: Command) =>
  job
    .command('why')
    .description(
      'Explain a job: where its time went, the queue, rule or engine, the reflections it considered, matched and chose, rows, bytes and its error',
    )
    .argument('<id>', 'job id')
    .addHelpText(
      'after',
      examples('dlake job why 2f067496-7cf0-a70e-0222-34d53a5dc800', 'dlake job why ID -o json'),
    );

export const register = defineCommand(declaration, why);

interface Timings {
  planningMs: number | null;
  queuedMs: number | null;
  executionMs: number | null;
}

/** A job explained: the shape `-o json` prints (docs/cli-contract.md). */
interface JobExplained {
  id: string;
  state: string;
  queue: string | null;
  rule: string | null;
  engine: string | null;
  timings: Timings;
  reflections: Array<{ id: string; name: string | null; dataset: string | null; relationship: string }>;
  error: string | null;
  rowsReturned: number | null;
  rowsScanned: number | string | null;
  bytesScanned: number | string | null;
  datasets: string[];
}

async function why(ctx: Context, id: string): Promise<void> {
  const explained = await explainJob(ctx, id);
  await ctx.print({ data: explained, rows: detailOf(explained), view: DETAIL });
}

/** Everything `job why` says of a job, as data (the agents' `explain_job` returns the same). */
export async function explainJob(ctx: Context, id: string): Promise<JobExplained> {
  const [{ isJobId, jobRowSql, jobSummary, jobTimings }, { getJob }] = await Promise.all([
    import('../../api/job-history.js'),
    import('../../api/jobs.js'),
  ]);
  // The id becomes SQL text below: only a UUID ever does.
  if (!isJobId(id)) {
    throw new UsageError(`"${id}" is not a job id (a UUID such as 2f067496-7cf0-a70e-0222-34d53a5dc800)`, {
      hint: 'list recent jobs with `dlake job list`',
    });
  }
  let status: JobStatus;
  try {
    status = await getJob(await ctx.client(), id);
  } catch (e) {
    if (!(e instanceof NotFoundError)) throw e;
    throw new NotFoundError(`job ${id} not found`, {
      moreInfo: e.message,
      hint: 'list recent jobs with `dlake job list`',
    });
  }
  // The history row adds the queue's rule, the engine, rows scanned and the stages' times. A job may not be
  // there yet (the hosted history is about an hour behind): the status alone then answers.
  let row: Record<string, unknown> | undefined;
  try {
    const query = await queryHistory(ctx, 'recent', (table) => jobRowSql(table, id));
    row = (await readHistoryRows(ctx, query))[0];
  } catch (e) {
    if (!(e instanceof ServiceError)) throw e;
    ctx.ui.warn(`${e.message}; showing what the job's status tells`);
  }
  const summary = row ? jobSummary(row) : undefined;
  const rels = status.acceleration?.reflectionRelationships ?? [];
  const info = rels.length
    ? await reflectionInfo(
        ctx,
        rels.map((r) => r.reflectionId),
      )
    : new Map();
  const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
  const exact = (v: unknown) =>
    v === null || v === undefined ? null : typeof v === 'number' ? v : String(v);
  const rule = text(row?.rule_name);
  const action = text(row?.rule_action);
  return {
    id,
    state: status.jobState,
    queue: text(status.queueName) ?? summary?.queue ?? null,
    rule: rule ? `${rule}${action ? ` (${action})` : ''}` : null,
    engine: summary?.engine ?? null,
    timings: row ? jobTimings(row) : statusTimings(status),
    reflections: rels.map((r) => {
      const known = info.get(r.reflectionId);
      return {
        id: r.reflectionId,
        name: known?.name ?? null,
        dataset: known?.datasetPath?.length ? formatPath(known.datasetPath) : (r.datasetId ?? null),
        relationship: r.relationship,
      };
    }),
    error: text(status.errorMessage) ?? text(status.cancellationReason) ?? summary?.error ?? null,
    rowsReturned: status.jobState === 'COMPLETED' ? (status.rowCount ?? null) : null,
    rowsScanned: exact(summary?.rowsScanned),
    bytesScanned: exact(summary?.bytesScanned),
    datasets: summary?.datasets ?? [],
  };
}

/** The stages from the status alone: submitted → scheduling → ended. */
function statusTimings(s: JobStatus): Timings {
  const t = (v?: string) => (v ? Date.parse(v) : Number.NaN);
  const span = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b >= a ? b - a : null);
  const started = t(s.startedAt);
  const schedStart = t(s.resourceSchedulingStartedAt);
  const schedEnd = t(s.resourceSchedulingEndedAt);
  return {
    planningMs: span(started, schedStart),
    queuedMs: span(schedStart, schedEnd),
    executionMs: span(schedEnd, t(s.endedAt)),
  };
}

const DETAIL = {
  columns: [
    { header: 'FIELD', value: (r: Detail) => r.key },
    { header: 'VALUE', value: (r: Detail) => r.value },
  ],
};

const ms = (v: number | null) => (v === null ? undefined : formatDuration(v, { largest: 2 }));

function detailOf(j: JobExplained): Detail[] {
  const rows: Detail[] = [
    { key: 'id', value: j.id },
    { key: 'state', value: j.state },
    { key: 'planning', value: ms(j.timings.planningMs) },
    { key: 'queued', value: ms(j.timings.queuedMs) },
    { key: 'executing', value: ms(j.timings.executionMs) },
    { key: 'queue', value: j.queue ?? undefined },
    { key: 'rule', value: j.rule ?? undefined },
    { key: 'engine', value: j.engine ?? undefined },
    { key: 'datasets', value: j.datasets.length ? j.datasets.join(', ') : undefined },
    { key: 'rows returned', value: j.rowsReturned ?? undefined },
    { key: 'rows scanned', value: j.rowsScanned ?? undefined },
    {
      key: 'bytes scanned',
      value:
        j.bytesScanned === null
          ? undefined
          : typeof j.bytesScanned === 'number'
            ? formatSize(j.bytesScanned)
            : j.bytesScanned,
    },
  ];
  for (const kind of ['CHOSEN', 'MATCHED', 'CONSIDERED']) {
    j.reflections
      .filter((r) => r.relationship === kind)
      .forEach((r, i) => {
        const name = r.name ? `${r.name} (${r.id})` : r.id;
        rows.push({
          key: i === 0 ? `reflections ${kind.toLowerCase()}` : '',
          value: `${name} on ${r.dataset}`,
        });
      });
  }
  if (!j.reflections.length) rows.push({ key: 'reflections', value: 'none considered' });
  rows.push({ key: 'error', value: j.error ?? undefined });
  return rows.filter((r) => r.value !== undefined);
}
