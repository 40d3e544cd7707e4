// The job history (docs/api-facts.md §15): the service has no REST listing of jobs, only system
// tables, and they differ by edition. Self-hosted `sys.jobs_recent` (every job of the last days; older servers
// lack it and keep every recent job in `sys.jobs`) and `sys.jobs` (running ones); hosted
// `sys.project.history.jobs` (about an hour behind) and `sys.project.jobs` (running). Epochs are milliseconds
// self-hosted (`*_epoch_millis`) and nanoseconds hosted (`*_epoch`, above 2^53: read exactly); datasets a string
// `[a.b, c.d]` self-hosted and an array of `{name: "\"a\".\"b\""}` hosted.
//
// Here: the SQL of a listing, every filter and the limit in it (literals quoted, a job id checked as a UUID
// before it is ever SQL text), and the rows of either edition in one shape. No printing here.
import { JsonNumber } from './exact-json.js';
import type { ResultField, ResultRow } from './jobs.js';
import type { Edition } from './roots.js';

/** The history table of an edition: all recent jobs, or the running ones. */
export type HistoryTable = 'sys.jobs_recent' | 'sys.jobs' | 'sys.project.history.jobs' | 'sys.project.jobs';

export function historyTable(edition: Edition, which: 'recent' | 'running'): HistoryTable {
  if (edition === 'cloud') return which === 'recent' ? 'sys.project.history.jobs' : 'sys.project.jobs';
  return which === 'recent' ? 'sys.jobs_recent' : 'sys.jobs';
}

/** A server that has no `sys.jobs_recent` fails the query naming it (docs/api-facts.md §15). */
export function lacksJobsRecent(errorMessage: string | undefined): boolean {
  const m = errorMessage ?? '';
  return /jobs_recent/i.test(m) && /not found|does not exist|not exist/i.test(m);
}

export interface JobFilter {
  /** Job states, upper case (COMPLETED, FAILED, CANCELED, RUNNING…). */
  states?: readonly string[];
  user?: string;
  /** Epoch ms, inclusive. */
  since?: number;
  /** Epoch ms, exclusive. */
  until?: number;
  queryType?: string;
  queue?: string;
  engine?: string;
  minDurationMs?: number;
  /** A substring of the query text, matched case-insensitively. */
  text?: string;
  accelerated?: boolean;
  limit: number;
}

/**
 * The mark of dlake's own reads of the history (a comment the tables keep in their `query` column): a listing
 * leaves them out, so that `job list` never lists itself, nor `--text X` the query that searched for X.
 */
const OWN_READ = '/* dlake: job history */';
const NOT_OWN_READ = `query NOT LIKE '%${OWN_READ}%'`;

/** A SQL string literal: quotes doubled, so any name (`o'brien`) stays one literal. */
function sqlLiteral(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/** `TIMESTAMP 'YYYY-MM-DD HH:MM:SS.fff'` in UTC, the form the tables' `*_ts` columns compare with. */
function timestampLiteral(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `TIMESTAMP '${iso.slice(0, 10)} ${iso.slice(11, 23)}'`;
}

/** A LIKE pattern for a substring, `\` escaping the pattern's own characters. */
function likeSubstring(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * `SELECT * FROM table WHERE … ORDER BY submitted_ts DESC LIMIT n`: the history is never read whole. Every
 * value is a quoted literal or a number dlake computed.
 */
export function jobListSql(table: HistoryTable, filter: JobFilter): string {
  const hosted = table.startsWith('sys.project');
  const where: string[] = [NOT_OWN_READ];
  if (filter.states?.length) where.push(`status IN (${filter.states.map(sqlLiteral).join(', ')})`);
  if (filter.user !== undefined) where.push(`user_name = ${sqlLiteral(filter.user)}`);
  if (filter.since !== undefined) where.push(`submitted_ts >= ${timestampLiteral(filter.since)}`);
  if (filter.until !== undefined) where.push(`submitted_ts < ${timestampLiteral(filter.until)}`);
  if (filter.queryType !== undefined) where.push(`query_type = ${sqlLiteral(filter.queryType)}`);
  if (filter.queue !== undefined) where.push(`queue_name = ${sqlLiteral(filter.queue)}`);
  if (filter.engine !== undefined) where.push(`engine = ${sqlLiteral(filter.engine)}`);
  if (filter.minDurationMs !== undefined) {
    // The epochs: milliseconds self-hosted, nanoseconds hosted; a job still running has no final state (0).
    const [sub, fin, scale] = hosted
      ? ['submitted_epoch', 'final_state_epoch', 1_000_000]
      : ['submitted_epoch_millis', 'final_state_epoch_millis', 1];
    where.push(`${fin} > 0 AND ${fin} - ${sub} >= ${Math.round(filter.minDurationMs) * scale}`);
  }
  if (filter.text !== undefined) {
    where.push(`LOWER(query) LIKE ${sqlLiteral(likeSubstring(filter.text))} ESCAPE '\\'`);
  }
  if (filter.accelerated !== undefined) where.push(`accelerated = ${filter.accelerated ? 'TRUE' : 'FALSE'}`);
  return `SELECT * FROM ${table} WHERE ${where.join(' AND ')} ORDER BY submitted_ts DESC LIMIT ${Math.max(0, Math.floor(filter.limit))} ${OWN_READ}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether text is a job id (a UUID), the only form a job id is ever put into SQL in. */
export function isJobId(text: string): boolean {
  return UUID.test(text);
}

/** One job's row of the history table, by its id (checked as a UUID by the caller, quoted here too). */
export function jobRowSql(table: HistoryTable, id: string): string {
  if (!isJobId(id)) throw new Error(`not a job id: ${id}`);
  return `SELECT * FROM ${table} WHERE job_id = ${sqlLiteral(id)} ${OWN_READ}`;
}

/**
 * The ids of the jobs whose id starts with `prefix` (a short id as `job list` shows it on a terminal: hex digits
 * and dashes, checked here too), newest first, two at most: one is the job, two say the prefix is ambiguous.
 */
export function jobIdsSql(table: HistoryTable, prefix: string): string {
  if (!/^[0-9a-f-]{1,36}$/i.test(prefix)) throw new Error(`not a job id prefix: ${prefix}`);
  return (
    `SELECT job_id FROM ${table} WHERE job_id LIKE ${sqlLiteral(`${prefix.toLowerCase()}%`)} ` +
    `ORDER BY submitted_ts DESC LIMIT 2 ${OWN_READ}`
  );
}

/** The running and queued jobs, newest first (what `top` shows). */
export function activeJobsSql(table: HistoryTable, limit: number): string {
  return (
    `SELECT * FROM ${table} WHERE status NOT IN ('COMPLETED', 'FAILED', 'CANCELED') AND ${NOT_OWN_READ} ` +
    `ORDER BY submitted_ts DESC LIMIT ${Math.max(0, Math.floor(limit))} ${OWN_READ}`
  );
}

/** A job of the history in one shape, whichever edition's row it came from (docs/cli-contract.md). */
export interface JobSummary {
  id: string;
  state: string;
  user: string | null;
  queryType: string | null;
  submittedAt: string | null;
  endedAt: string | null;
  durationMs: number | null;
  rowsReturned: number | JsonNumber | null;
  rowsScanned: number | JsonNumber | null;
  bytesScanned: number | JsonNumber | null;
  queue: string | null;
  engine: string | null;
  accelerated: boolean;
  error: string | null;
  datasets: string[];
  query: string | null;
}

/**
 * The hosted listing from both tables: the history's rows (about an hour behind) and the live table's
 * (running and just-ended jobs), each job once, newest submitted first, at most `limit`. A job in both is
 * told by its newer row (newerRow).
 */
export function mergeJobLists(
  history: readonly JobSummary[],
  live: readonly JobSummary[],
  limit: number,
): JobSummary[] {
  const byId = new Map<string, JobSummary>();
  for (const job of history) byId.set(job.id, job);
  for (const job of live) {
    const seen = byId.get(job.id);
    byId.set(job.id, seen ? newerRow(seen, job) : job);
  }
  const submitted = (j: JobSummary) => (j.submittedAt ? Date.parse(j.submittedAt) : Number.NEGATIVE_INFINITY);
  return [...byId.values()].sort((a, b) => submitted(b) - submitted(a)).slice(0, Math.max(0, limit));
}

/**
 * Of two rows of one job, the one that says more recent news: an ended job's row over a running one's, then
 * the later end; on a tie `later`, the row of the table refreshed last (the live table's over the history's).
 */
export function newerRow<R extends Pick<JobSummary, 'endedAt'>>(earlier: R, later: R): R {
  const ended = (j: R) => (j.endedAt ? Date.parse(j.endedAt) : Number.NaN);
  const [a, b] = [ended(earlier), ended(later)];
  if (Number.isNaN(a) !== Number.isNaN(b)) return Number.isNaN(a) ? later : earlier;
  return a > b ? earlier : later;
}

/** The columns of a JobSummary, as result fields: what an export of `job list` writes. */
export const JOB_SUMMARY_FIELDS: ResultField[] = [
  ['id', 'VARCHAR'],
  ['state', 'VARCHAR'],
  ['user', 'VARCHAR'],
  ['queryType', 'VARCHAR'],
  ['submittedAt', 'VARCHAR'],
  ['endedAt', 'VARCHAR'],
  ['durationMs', 'BIGINT'],
  ['rowsReturned', 'BIGINT'],
  ['rowsScanned', 'BIGINT'],
  ['bytesScanned', 'BIGINT'],
  ['queue', 'VARCHAR'],
  ['engine', 'VARCHAR'],
  ['accelerated', 'BOOLEAN'],
  ['error', 'VARCHAR'],
  ['datasets', 'LIST'],
  ['query', 'VARCHAR'],
].map(([name, type]) => ({
  name: name!,
  type: type === 'LIST' ? { name: 'LIST', subSchema: [{ type: { name: 'VARCHAR' } }] } : { name: type! },
}));

/** The stages a history row times, by the column stem of each edition. */
type Stage =
  | 'submitted'
  | 'planning_start'
  | 'query_enqueued'
  | 'engine_start'
  | 'execution_planning'
  | 'execution_start'
  | 'final_state';

/**
 * A stage's time in epoch ms from a history row, or undefined when unset: the exact epoch column of either
 * edition (`*_epoch_millis`, or `*_epoch` in nanoseconds), else the `*_ts` text (UTC, no zone).
 */
function stageMs(row: ResultRow, stage: Stage): number | undefined {
  const hostedStem = stage === 'execution_planning' ? 'execution_planning_start' : stage;
  const millis = row[`${stage}_epoch_millis`];
  if (millis !== undefined && millis !== null) return positive(toNumber(millis));
  const nanos = row[`${hostedStem}_epoch`];
  if (nanos !== undefined && nanos !== null) {
    const ms = nanosToMs(nanos);
    if (ms !== undefined) return positive(ms);
  }
  const ts = row[`${stage}_ts`] ?? row[`${hostedStem}_ts`];
  return typeof ts === 'string' ? positive(parseServiceTimestamp(ts)) : undefined;
}

const positive = (n: number | undefined): number | undefined =>
  n !== undefined && Number.isFinite(n) && n > 0 ? n : undefined;

function toNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (v instanceof JsonNumber) return Number(v.text);
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  return undefined;
}

/** Nanoseconds (beyond 2^53: their exact text) to whole milliseconds. */
function nanosToMs(v: unknown): number | undefined {
  // A double's shortest text is what the service wrote (toFixed would give its binary value's digits:
  // 1673994628825000000 → 1673994628824999936, a millisecond early).
  const text = v instanceof JsonNumber ? v.text : String(v);
  if (!/^\d+$/.test(text)) return undefined;
  return Number(BigInt(text) / 1_000_000n);
}

/** `YYYY-MM-DD HH:MM:SS.fff` (UTC, as the service writes timestamps) or ISO 8601, to epoch ms. */
function parseServiceTimestamp(text: string): number | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:\.\d+)?)(Z|[+-]\d{2}:?\d{2})?$/.exec(text.trim());
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}T${m[2]}${m[3] ?? 'Z'}`);
  return Number.isFinite(ms) ? ms : undefined;
}

/** The latest (and, negated, the earliest) time a Date holds: ±100,000,000 days from 1970. */
const MAX_TIME_MS = 8.64e15;

/** Epoch ms as ISO 8601; a time no calendar holds (a history row's epoch out of range) is no time: null. */
const iso = (ms: number | undefined): string | null =>
  ms === undefined || !Number.isFinite(ms) || Math.abs(ms) > MAX_TIME_MS ? null : new Date(ms).toISOString();

/** A text column: null for null, the empty string and absent columns. */
function text(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  const s = typeof v === 'string' ? v : String(v instanceof JsonNumber ? v.text : v);
  return s === '' ? null : s;
}

function count(v: unknown): number | JsonNumber | null {
  if (v instanceof JsonNumber || typeof v === 'number') return v;
  return null;
}

/**
 * The datasets a job queried, as dotted names: the self-hosted string `[a.b.c, d.e]`, or the hosted array
 * of `{name: "\"a\".\"b\""}` (names unquoted, as the self-hosted form shows them).
 */
function datasetNames(v: unknown): string[] {
  if (typeof v === 'string') {
    const inner = v.trim().replace(/^\[/, '').replace(/\]$/, '').trim();
    return inner ? inner.split(/,\s+/) : [];
  }
  if (!Array.isArray(v)) return [];
  return v
    .map((d) => (d && typeof d === 'object' ? (d as Record<string, unknown>).name : d))
    .filter((n): n is string => typeof n === 'string' && n !== '')
    .map(unquotePath);
}

/** `"src"."my ""odd"" folder".t` → `src.my "odd" folder.t`. */
function unquotePath(name: string): string {
  const parts: string[] = [];
  let i = 0;
  while (i < name.length) {
    if (name[i] === '"') {
      let s = '';
      let j = i + 1;
      while (j < name.length) {
        if (name[j] === '"' && name[j + 1] === '"') {
          s += '"';
          j += 2;
        } else if (name[j] === '"') break;
        else s += name[j++];
      }
      parts.push(s);
      i = j + 1;
    } else {
      const dot = name.indexOf('.', i);
      const end = dot < 0 ? name.length : dot;
      parts.push(name.slice(i, end));
      i = end;
    }
    if (name[i] === '.') i++;
  }
  return parts.join('.');
}

/** A history row of either edition as a JobSummary. */
export function jobSummary(row: ResultRow): JobSummary {
  const submitted = stageMs(row, 'submitted');
  const ended = stageMs(row, 'final_state');
  return {
    id: text(row.job_id) ?? '',
    state: text(row.status) ?? '',
    user: text(row.user_name),
    queryType: text(row.query_type),
    submittedAt: iso(submitted),
    endedAt: iso(ended),
    durationMs:
      submitted !== undefined && ended !== undefined && ended >= submitted ? ended - submitted : null,
    rowsReturned: count(row.rows_returned),
    rowsScanned: count(row.rows_scanned),
    bytesScanned: count(row.bytes_scanned),
    queue: text(row.queue_name),
    engine: text(row.engine),
    accelerated: row.accelerated === true || row.accelerated === 'true',
    error: text(row.error_msg),
    datasets: datasetNames(row.queried_datasets),
    query: text(row.query),
  };
}

/** Where a job spent its time, from its history row: planning, waiting in the queue, executing (ms). */
export function jobTimings(row: ResultRow): {
  planningMs: number | null;
  queuedMs: number | null;
  executionMs: number | null;
} {
  const at = (s: Stage) => stageMs(row, s);
  const span = (a: number | undefined, b: number | undefined) =>
    a !== undefined && b !== undefined && b >= a ? b - a : null;
  const planningStart = at('planning_start') ?? at('submitted');
  const enqueued = at('query_enqueued');
  const executing = at('execution_start');
  const final = at('final_state');
  return {
    planningMs: span(planningStart, enqueued ?? executing),
    queuedMs: span(enqueued, at('execution_planning') ?? executing),
    executionMs: span(executing, final),
  };
}
