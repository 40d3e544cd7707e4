// Jobs as data: a listing of the history with its filters, and one job explained (where its time went, the
// queue, rule or engine, the reflections it considered, matched and chose, rows, bytes and its error). `job
// list`, `job why` and the agents' `list_jobs` and `explain_job` return these (docs/cli-contract.md
// "Operations insight").
import type { JobFilter, JobSummary } from '../api/job-history.js';
import type { JobStatus } from '../api/jobs.js';
import type { Context } from '../context.js';
import { NotFoundError, ServiceError, UsageError } from '../errors.js';
import { formatPath } from '../util/catalog-ref.js';
import { parseDuration } from '../util/units.js';
import { queryHistory, readHistoryRows, readSummaries } from './job-history.js';
import { reflectionInfo } from './reflections.js';

/** What filters a listing: `job list`'s flags, or the same named fields of the agents' `list_jobs`. */
export interface JobFilterFlags {
  status?: string[];
  user?: string;
  /** A duration back from now (24h, 7d) or an ISO 8601 time. */
  since?: string;
  until?: string;
  type?: string;
  queue?: string;
  engine?: string;
  /** Milliseconds. */
  minDuration?: number;
  text?: string;
  accelerated?: boolean;
  notAccelerated?: boolean;
  limit?: number;
}

/** The filter of a listing from its flags, WHEN read against `now`; contradictory times are a usage error. */
export function jobFilter(opts: JobFilterFlags, now: number): JobFilter {
  const filter: JobFilter = {
    states: opts.status?.map((s) => oneOf('--status', stateName(s), JOB_STATES)),
    user: opts.user,
    since: opts.since === undefined ? undefined : when('--since', opts.since, now),
    until: opts.until === undefined ? undefined : when('--until', opts.until, now),
    queryType:
      opts.type === undefined ? undefined : oneOf('--type', opts.type.trim().toUpperCase(), QUERY_TYPES),
    queue: opts.queue,
    engine: opts.engine,
    minDurationMs: opts.minDuration,
    text: opts.text,
    accelerated: opts.accelerated ? true : opts.notAccelerated ? false : undefined,
    limit: opts.limit ?? 50,
  };
  if (filter.since !== undefined && filter.until !== undefined && filter.since >= filter.until) {
    throw new UsageError('--since must be earlier than --until');
  }
  return filter;
}

/**
 * The jobs of a listing, newest first. On the hosted edition the history is about an hour behind: the live
 * table (running and just-ended jobs) is read as well and the two merged, each job once (docs/cli-contract.md
 * "Operations insight").
 */
export async function listJobs(
  ctx: Context,
  filter: JobFilter,
  signal = ctx.interrupt.signal,
  /** `--wait-timeout`: how long each history query may be waited for. */
  timeoutMs?: number,
): Promise<JobSummary[]> {
  const { jobListSql, mergeJobLists } = await import('../api/job-history.js');
  const read = async (which: 'recent' | 'running') =>
    readSummaries(
      ctx,
      await queryHistory(ctx, which, (table) => jobListSql(table, filter), { signal, timeoutMs }),
      signal,
    );
  if (ctx.root().edition !== 'cloud') return read('recent');
  // One after the other: a wait's feedback and Ctrl-C name one job at a time.
  const history = await read('recent');
  return mergeJobLists(history, await read('running'), filter.limit);
}

/** The job states of the service (docs/api-facts.md §4.2): a typo must not read as "no such jobs". */
const JOB_STATES = [
  'COMPLETED',
  'FAILED',
  'CANCELED',
  'RUNNING',
  'STARTING',
  'PLANNING',
  'PENDING',
  'METADATA_RETRIEVAL',
  'QUEUED',
  'ENQUEUED',
  'ENGINE_START',
  'EXECUTION_PLANNING',
  'CANCELLATION_REQUESTED',
  'NOT_SUBMITTED',
  'INVALID_STATE',
];

/** The query types the service records (docs/api-facts.md §4.2; FLIGHT and METADATA_REFRESH from real tables). */
const QUERY_TYPES = [
  'UI_RUN',
  'UI_PREVIEW',
  'UI_INTERNAL_PREVIEW',
  'UI_INTERNAL_RUN',
  'UI_INITIAL_PREVIEW',
  'UI_EXPORT',
  'ODBC',
  'JDBC',
  'REST',
  'FLIGHT',
  'ACCELERATOR_CREATE',
  'ACCELERATOR_DROP',
  'ACCELERATOR_EXPLAIN',
  'PREPARE_INTERNAL',
  'METADATA_REFRESH',
  'UNKNOWN',
];

/** `value` when it is one of `accepted`, else a usage error naming them. */
function oneOf(flag: string, value: string, accepted: readonly string[]): string {
  if (accepted.includes(value)) return value;
  throw new UsageError(`${flag} "${value}" is not one of the service's values`, {
    hint: `use one of: ${accepted.join(', ')}`,
  });
}

/** A job state as the tables write it; `CANCELLED` is the same state spelt the British way. */
function stateName(s: string): string {
  const up = s.trim().toUpperCase();
  return up === 'CANCELLED' ? 'CANCELED' : up;
}

/**
 * WHEN of --since/--until: a duration back from `now` (`24h`, `7d`, `1h30m`) or an ISO 8601 time (a date
 * alone is midnight UTC). Anything else is a usage error naming the flag.
 */
function when(flag: string, text: string, now: number): number {
  const t = text.trim();
  const date = /^(\d{4})-(\d{2})-(\d{2})/.exec(t);
  if (date) {
    const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(t) ? `${t}T00:00:00Z` : t);
    // Date.parse rolls a day the month lacks over (2026-02-30 would be 2026-03-02): such a date is no date.
    if (Number.isFinite(ms) && isCalendarDate(Number(date[1]), Number(date[2]), Number(date[3]))) return ms;
  } else {
    let back = 0;
    try {
      back = parseDuration(t);
    } catch {
      // Said below, with both forms.
    }
    // Back no further than the year 1: the history's timestamps are written with years of four digits.
    if (back > 0 && now - back >= EARLIEST) return now - back;
    if (back > 0) {
      throw new UsageError(`${flag} "${text}" goes back before the year 1`, { hint: 'e.g. 24h, 7d or 365d' });
    }
  }
  throw new UsageError(`${flag} "${text}" is neither a duration back from now nor an ISO 8601 time`, {
    hint: 'e.g. 24h, 7d, 2026-01-31 or 2026-01-31T08:00:00Z',
  });
}

/** 0001-01-01T00:00:00Z: the earliest time a timestamp literal with a four-digit year writes. */
const EARLIEST = -62_135_596_800_000;

/** Whether year-month-day names a day of the calendar (February 30 does not). */
function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const d = new Date(Date.UTC(2000, month - 1, day));
  d.setUTCFullYear(year);
  return d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

interface Timings {
  planningMs: number | null;
  queuedMs: number | null;
  executionMs: number | null;
}

/** A job explained: the shape `job why -o json` prints (docs/cli-contract.md). */
export interface JobExplained {
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
  /** Of a job only the history holds: whether a reflection accelerated it (which one is not known). */
  accelerated?: boolean;
  /** Of a job only the history holds: what the explanation lacks, and why. */
  missing?: string;
}

/**
 * A job id as a user gives it: a whole UUID, or its first characters as `job list` shows them on a terminal
 * (at least 8, looked up in the history). Anything else is refused before it could become SQL text.
 */
export async function resolveJobId(
  ctx: Context,
  given: string,
  signal = ctx.interrupt.signal,
): Promise<string> {
  const { isJobId, jobIdsSql } = await import('../api/job-history.js');
  if (isJobId(given)) return given;
  if (!isShortJobId(given)) {
    // The listing shows what an id looks like: a hint to it cannot lead back here, as the id was never looked up.
    throw new UsageError(
      `"${given}" is not a job id (a UUID such as 2f067496-7cf0-a70e-0222-34d53a5dc800, or its first 8 characters or more)`,
      { hint: 'copy one from the ID column of `dlake job list`' },
    );
  }
  const query = await queryHistory(ctx, 'recent', (table) => jobIdsSql(table, given), { signal });
  // Each id checked as a job id as it is read (readHistoryRows), and as one that starts with what was asked.
  const ids = (await readHistoryRows(ctx, query, signal)).map((r) => r.job_id as string);
  ids.forEach((id, i) => {
    if (!id.toLowerCase().startsWith(given.toLowerCase())) {
      throw new ServiceError(
        `unexpected answer from ${query.table}: rows.${i}.job_id: does not start with ${given}`,
      );
    }
  });
  if (ids.length === 1) return ids[0]!;
  if (ids.length > 1) {
    throw new UsageError(`job id ${given} is ambiguous: ${ids.join(', ')} and maybe others start with it`, {
      hint: 'give more of the id (`dlake job list --wide` shows them whole)',
    });
  }
  throw jobNotFound(given);
}

/**
 * The one wording of a job the service does not know, in the job store or the history: `not found: job ID`, as
 * every missing entity reads. The hint points to the listing only because the job is in none (never back to a
 * list that shows it).
 */
export function jobNotFound(id: string, moreInfo?: string): NotFoundError {
  return new NotFoundError(`not found: job ${id}`, {
    moreInfo,
    hint: 'it is in neither the job store nor the job history; list the recent jobs with: dlake job list',
  });
}

/** A job id as `job list` shortens it on a terminal: its first 8 characters or more, not the whole UUID. */
export function isShortJobId(text: string): boolean {
  return /^[0-9a-f]{8}[0-9a-f-]{0,27}$/i.test(text) && text.length < 36;
}

/**
 * A job's row of the history (undefined while it has none). On the hosted edition the live table's row too,
 * the newer of the two answering, as in `listJobs`.
 */
export async function historyRowOf(
  ctx: Context,
  id: string,
  signal = ctx.interrupt.signal,
): Promise<Record<string, unknown> | undefined> {
  const { jobRowSql, jobSummary, newerRow } = await import('../api/job-history.js');
  const read = async (which: 'recent' | 'running') =>
    (
      await readHistoryRows(
        ctx,
        await queryHistory(ctx, which, (table) => jobRowSql(table, id), { signal }),
        signal,
      )
    )[0];
  const history = await read('recent');
  if (ctx.root().edition !== 'cloud') return history;
  const live = await read('running');
  if (!history || !live) return history ?? live;
  return newerRow({ row: history, ...jobSummary(history) }, { row: live, ...jobSummary(live) }).row;
}

/**
 * What a job that only the history still holds lacks: the service keeps a job's details (its status, its
 * reflections, its profile) for less time than its history row. Said beside what the row does tell.
 */
export const HISTORY_ONLY =
  'the service no longer keeps this job, only its row of the job history: what follows is that row, without the reflections it considered, matched or chose, or its profile';

/**
 * Everything `job why` says of a job: its status, with its row of the history where there is one; `warnings`:
 * what the explanation lacks and why (the history could not be read), for the face to say (a command on
 * stderr, the MCP server in its answer).
 */
export async function explainJob(
  ctx: Context,
  given: string,
  signal = ctx.interrupt.signal,
): Promise<{ job: JobExplained; warnings: string[] }> {
  const [{ jobSummary, jobTimings }, { getJob }] = await Promise.all([
    import('../api/job-history.js'),
    import('../api/jobs.js'),
  ]);
  // The id becomes SQL text below: only a UUID ever does.
  const id = await resolveJobId(ctx, given, signal);
  let status: JobStatus | undefined;
  try {
    status = await getJob(await ctx.client(), id, signal);
  } catch (e) {
    if (!(e instanceof NotFoundError)) throw e;
    status = undefined;
  }
  // The history row adds the queue's rule, the engine, rows scanned and the stages' times. A job may not be
  // there yet (the hosted history is about an hour behind): the status alone then answers. A job the service
  // no longer keeps is explained from its row alone, saying what is missing.
  let row: Record<string, unknown> | undefined;
  const warnings: string[] = [];
  try {
    row = await historyRowOf(ctx, id, signal);
  } catch (e) {
    if (!(e instanceof ServiceError) || !status) throw e;
    warnings.push(`${e.message}; showing what the job's status tells`);
  }
  if (!status) {
    if (!row) throw jobNotFound(id);
    return { job: fromHistory(id, row, jobSummary(row), jobTimings(row)), warnings };
  }
  const summary = row ? jobSummary(row) : undefined;
  const rels = status.acceleration?.reflectionRelationships ?? [];
  const info = rels.length
    ? await reflectionInfo(
        ctx,
        rels.map((r) => r.reflectionId),
        signal,
      )
    : new Map();
  const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
  const exact = (v: unknown) =>
    v === null || v === undefined ? null : typeof v === 'number' ? v : String(v);
  const rule = text(row?.rule_name);
  const action = text(row?.rule_action);
  const job: JobExplained = {
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
  return { job, warnings };
}

/** A job explained from its history row alone: the status and its reflections are `missing`. */
function fromHistory(
  id: string,
  row: Record<string, unknown>,
  summary: JobSummary,
  timings: Timings,
): JobExplained {
  const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
  const exact = (v: JobSummary['rowsScanned']) => (v === null ? null : typeof v === 'number' ? v : v.text);
  const rule = text(row.rule_name);
  const action = text(row.rule_action);
  return {
    id,
    state: summary.state,
    queue: summary.queue,
    rule: rule ? `${rule}${action ? ` (${action})` : ''}` : null,
    engine: summary.engine,
    timings,
    reflections: [],
    error: summary.error,
    rowsReturned: typeof summary.rowsReturned === 'number' ? summary.rowsReturned : null,
    rowsScanned: exact(summary.rowsScanned),
    bytesScanned: exact(summary.bytesScanned),
    datasets: summary.datasets,
    accelerated: summary.accelerated,
    missing: HISTORY_ONLY,
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
