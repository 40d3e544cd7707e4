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
    states: opts.status?.map(stateName),
    user: opts.user,
    since: opts.since === undefined ? undefined : when('--since', opts.since, now),
    until: opts.until === undefined ? undefined : when('--until', opts.until, now),
    queryType: opts.type?.toUpperCase(),
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

/** The jobs of a listing, newest first. */
export async function listJobs(
  ctx: Context,
  filter: JobFilter,
  signal = ctx.interrupt.signal,
): Promise<JobSummary[]> {
  const { jobListSql } = await import('../api/job-history.js');
  const query = await queryHistory(ctx, 'recent', (table) => jobListSql(table, filter), { signal });
  return readSummaries(ctx, query, signal);
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
}

/** Everything `job why` says of a job: its status, with its row of the history where there is one. */
export async function explainJob(
  ctx: Context,
  id: string,
  signal = ctx.interrupt.signal,
): Promise<JobExplained> {
  const [{ isJobId, jobRowSql, jobSummary, jobTimings }, { getJob }] = await Promise.all([
    import('../api/job-history.js'),
    import('../api/jobs.js'),
  ]);
  // The id becomes SQL text below: only a UUID ever does.
  if (!isJobId(id)) {
    throw new UsageError(`"${id}" is not a job id (a UUID such as 2f067496-7cf0-a70e-0222-34d53a5dc800)`, {
      hint: 'list recent jobs with `dlake job list`',
    });
  }
  let status: JobStatus;
  try {
    status = await getJob(await ctx.client(), id, signal);
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
    const query = await queryHistory(ctx, 'recent', (table) => jobRowSql(table, id), { signal });
    row = (await readHistoryRows(ctx, query, signal))[0];
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
        signal,
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
