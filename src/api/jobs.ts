// SQL jobs (docs/api-facts.md §4): submit a query, read a job's status, cancel it, read pages of
// its results, and wait until it settles. No printing, prompting or exiting here.
import * as z from 'zod/mini';
import '../util/zod.js';
import { FINAL_JOB_STATES, MAX_RESULTS_PAGE } from '../constants.js';
import {
  type DlakeError,
  InterruptedError,
  JobFailedError,
  NotFoundError,
  ServiceError,
  UsageError,
} from '../errors.js';
import { BufferPool } from '../util/buffer-pool.js';
import { formatDuration, timerMs } from '../util/units.js';
import { below, type Target, v3 } from './endpoint.js';
import { JsonNumber, parseJsonExact } from './exact-json.js';
import type { ApiClient } from './http.js';
import { type JobStatus, JobStatusSchema, SubmittedJobSchema } from './schemas/jobs.js';
import { FieldSchemaSchema } from './schemas.js';
import { segment } from './url-segment.js';

export type { JobStatus };

/** One column of a result: `{name, type: {name, precision?, scale?, subSchema?}}`. */
export interface ResultField {
  name: string;
  type: { name: string; [k: string]: unknown };
}
export type ResultRow = Record<string, unknown>;

/** One page of results. `rowCount` is the job's total, not this page's (docs/api-facts.md §4.3). */
export interface ResultsPage {
  rowCount: number;
  schema: ResultField[];
  rows: ResultRow[];
  /** Some number in the page was kept as exact text (a JsonNumber). */
  exact: boolean;
  /**
   * The rows already as CSV lines, UTF-8 (a CSV export reads flat pages straight from their bytes): `rows`
   * then only counts them (an array of that length, without row objects).
   */
  csv?: Uint8Array;
  /** Once `csv` is written (and no longer needed): its buffer may be reused. */
  release?: () => void;
}

/** A job: its status counts against the hosted edition's job-status limit, its results and cancel their own. */
const jobTarget = (id: string): Target =>
  v3('job', `job/${segment(id, 'job id')}`, { key: { id }, limit: 'status' });
const jobPart = (id: string, part: 'results' | 'cancel'): Target =>
  below(jobTarget(id), part, { key: { id }, limit: part });

function isFinalState(state: string): boolean {
  return FINAL_JOB_STATES.has(state);
}

/** `POST /api/v3/sql`: the new job's id. Never repeated automatically: a duplicate query is worse than an error. */
export async function submitSql(client: ApiClient, sql: string, context?: string[]): Promise<string> {
  const body = await client.request({
    method: 'POST',
    at: v3('sql', 'sql'),
    json: context?.length ? { sql, context } : { sql },
    schema: SubmittedJobSchema,
    idempotent: false,
  });
  return body.id;
}

export function getJob(client: ApiClient, id: string, signal?: AbortSignal): Promise<JobStatus> {
  return client.request({ method: 'GET', at: jobTarget(id), schema: JobStatusSchema, signal });
}

/** The cancel request, as sent and as `--dry-run` prints it (built first: a bad id is refused here). */
export function cancelJobRequest(id: string) {
  return { method: 'POST', at: jobPart(id, 'cancel') } as const;
}

/** A cancel is urgent: it stops work, and never waits behind dlake's own pacing (api/pipeline/pace.ts). */

type CancelOutcome = { requested: true } | { requested: false; status: JobStatus };

/**
 * `POST /api/v3/job/{id}/cancel` (204). The service answers 404 both for an unknown job and for one that has
 * already ended (docs/api-facts.md §4.4); the job's status tells the two apart.
 */
export async function cancelJob(client: ApiClient, id: string, signal?: AbortSignal): Promise<CancelOutcome> {
  try {
    await client.request({ ...cancelJobRequest(id), responseType: 'none', signal, urgent: true });
    return { requested: true };
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    const status = await getJob(client, id, signal);
    if (isFinalState(status.jobState)) return { requested: false, status };
    throw err;
  }
}

/** A page size the service accepts: a whole number from 0 to 500. */
function checkPageLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 0 || limit > MAX_RESULTS_PAGE) {
    throw new UsageError(`a results page holds 0 to ${MAX_RESULTS_PAGE} rows, not ${limit}`);
  }
}

const NOT_READY = /Can not fetch details for a job that is in \[([^\]]*)\] state/i;

/**
 * `GET /api/v3/job/{id}/results?offset=&limit=`. The limit is checked before any request. The body is parsed
 * here rather than by zod: rows are the bulk of an export, and numbers must keep their exact text.
 */
export async function getResults(
  client: ApiClient,
  id: string,
  offset: number,
  limit: number,
  signal?: AbortSignal,
  /** Where the body is read before it is parsed (it is given back after); else a new buffer. */
  buffers = new BufferPool(0),
): Promise<ResultsPage> {
  const body = await getResultsBytes(client, id, offset, limit, buffers, signal);
  try {
    return parseResultsBytes(body, id);
  } finally {
    buffers.give(body);
  }
}

/** A results page from its body's bytes (decoded as UTF-8, as any text body), parsed and checked. */
export function parseResultsBytes(body: Uint8Array, id: string): ResultsPage {
  return parseResultsPage(new TextDecoder().decode(body), resultsEndpoint(id));
}

export const resultsEndpoint = (id: string): string => `GET ${jobPart(id, 'results').software}`;

/**
 * One page of results as the service's JSON bytes (for the parse above, or a reader of its own: a CSV
 * export's direct path), read into a buffer of `buffers` (given back by the caller).
 */
export async function getResultsBytes(
  client: ApiClient,
  id: string,
  offset: number,
  limit: number,
  buffers: BufferPool,
  signal?: AbortSignal,
): Promise<Buffer> {
  checkPageLimit(limit);
  if (!Number.isInteger(offset) || offset < 0) throw new UsageError(`invalid results offset ${offset}`);
  try {
    return (await client.request({
      method: 'GET',
      at: jobPart(id, 'results'),
      query: { offset, limit },
      responseType: 'bytes',
      bodyBuffers: buffers,
      resultsPage: true,
      signal,
    })) as Buffer;
  } catch (err) {
    throw explainNotReady(err, id);
  }
}

/** The spec's 400 for results of an unfinished job, said in words that tell what to do. */
function explainNotReady(err: unknown, id: string): unknown {
  const state = err instanceof UsageError ? NOT_READY.exec(err.message)?.[1] : undefined;
  if (state === undefined) return err;
  const failed = isFinalState(state);
  // A job that ended FAILED or CANCELED is exit 6 here too, as with `sql` and `job wait`.
  return new (failed ? JobFailedError : UsageError)(
    failed
      ? `job ${id} has no results: it ended ${state}`
      : `job ${id} has no results yet: it is ${state}, and results can be read only once it is COMPLETED`,
    {
      moreInfo: (err as DlakeError).message,
      hint: { kind: failed ? 'job-ended' : 'job-not-ended', id },
    },
  );
}

export function parseResultsPage(text: string, endpoint: string): ResultsPage {
  let parsed: ReturnType<typeof parseJsonExact>;
  try {
    parsed = parseJsonExact(text, `the service's answer to ${endpoint}`);
  } catch (e) {
    if (e instanceof ServiceError) throw e;
    throw new ServiceError(`the service answered ${endpoint} with a body that is not JSON`);
  }
  return resultsPageOf(parsed.value, endpoint, parsed.exact);
}

/** The check of a page's `schema`, made once rather than at every page. */
let fieldsSchema: z.ZodMiniArray<typeof FieldSchemaSchema> | undefined;

/** A parsed results body checked and typed as a page (what every reader of results pages accepts). */
export function resultsPageOf(value: unknown, endpoint: string, exact: boolean): ResultsPage {
  const body = value as Record<string, unknown> | null;
  const bad = (field: string, what: string): never => {
    throw new ServiceError(`unexpected answer from ${endpoint}: ${field}: ${what}`);
  };
  if (!body || typeof body !== 'object' || Array.isArray(body)) bad('(body)', 'expected an object');
  const { rowCount, schema, rows } = body as Record<string, unknown>;
  if (typeof rowCount !== 'number' || !Number.isFinite(rowCount)) bad('rowCount', 'expected a number');
  if ((rowCount as number) < 0) bad('rowCount', `expected 0 or more, not ${rowCount}`);
  if (!Array.isArray(rows)) bad('rows', 'expected an array');
  for (let i = 0; i < (rows as unknown[]).length; i++) {
    const r = (rows as unknown[])[i];
    if (!r || typeof r !== 'object' || Array.isArray(r)) bad(`rows.${i}`, 'expected an object');
  }
  // A page without a schema (none, null or []) still has rows: their own keys are the columns
  // (docs/cli-contract.md "Jobs, results and export").
  if (schema == null || (Array.isArray(schema) && schema.length === 0)) {
    return {
      rowCount: rowCount as number,
      schema: fieldsOfRows(rows as ResultRow[]),
      rows: rows as ResultRow[],
      exact,
    };
  }
  fieldsSchema ??= z.array(FieldSchemaSchema);
  const fields = fieldsSchema.safeParse(schema);
  if (!fields.success) {
    const issue = fields.error.issues[0]!;
    bad(['schema', ...issue.path].join('.'), issue.message);
  }
  // A row with a column the schema does not name would lose it in every format: the page is refused instead
  // (docs/cli-contract.md "Output bounds").
  const names = new Set((fields.data as ResultField[]).map((f) => f.name));
  for (let i = 0; i < (rows as ResultRow[]).length; i++) {
    for (const key in (rows as ResultRow[])[i]) {
      if (!names.has(key)) bad(`rows.${i}`, `column ${JSON.stringify(key)} is not in the page's schema`);
    }
  }
  return {
    rowCount: rowCount as number,
    schema: fields.data as ResultField[],
    rows: rows as ResultRow[],
    exact,
  };
}

/**
 * Refuses a results page whose columns are not the first page's (exit 7): the columns of a result are fixed by
 * its first page, and a page that adds, drops or renames one can be neither printed under the first page's
 * header nor dropped without a word (docs/cli-contract.md "Output bounds").
 */
export function sameColumns(first: readonly ResultField[], later: readonly ResultField[]): void {
  if (later.length === first.length && later.every((f, i) => f.name === first[i]!.name)) return;
  const before = new Set(first.map((f) => f.name));
  const after = new Set(later.map((f) => f.name));
  const added = [...after].filter((n) => !before.has(n));
  const dropped = [...before].filter((n) => !after.has(n));
  const what = [
    added.length ? `adds ${added.map((n) => JSON.stringify(n)).join(', ')}` : '',
    dropped.length ? `drops ${dropped.map((n) => JSON.stringify(n)).join(', ')}` : '',
  ].filter(Boolean);
  throw new ServiceError(
    `the service changed the result's columns between pages: a later page ${what.join(' and ') || 'reorders them'}`,
  );
}

/**
 * The columns of rows that came without a schema: every key, in the order the rows first show it, typed by
 * its first value that is not null (VARCHAR when there is none), so that every format, Parquet's typed
 * columns included, has the columns the rows hold.
 */
function fieldsOfRows(rows: readonly ResultRow[]): ResultField[] {
  const types = new Map<string, string | undefined>();
  for (const row of rows) {
    for (const name of Object.keys(row)) {
      if (types.get(name) !== undefined) continue;
      types.set(name, typeOfValue(row[name]));
    }
  }
  return [...types].map(([name, type]) => ({ name, type: { name: type ?? 'VARCHAR' } }));
}

/** The SQL type a JSON value reads as; undefined for null (the next row may tell). */
function typeOfValue(v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined;
  if (v instanceof JsonNumber) return /[.eE]/.test(v.text) ? 'DOUBLE' : 'BIGINT';
  switch (typeof v) {
    case 'boolean':
      return 'BOOLEAN';
    case 'number':
      return Number.isInteger(v) ? 'BIGINT' : 'DOUBLE';
    case 'string':
      return 'VARCHAR';
    default:
      return Array.isArray(v) ? 'LIST' : 'STRUCT';
  }
}

interface WaitOptions {
  /** Give up after this long (exit 7, the job left running). */
  timeoutMs?: number;
  /** Ctrl-C: the wait ends with InterruptedError. */
  signal?: AbortSignal;
  /** Called after every poll. */
  onPoll?: (status: JobStatus) => void;
  /**
   * Backoff between polls: from `firstDelayMs`, times 1.5 each poll, up to `maxDelayMs` (default: the schedule
   * below).
   */
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** Replaceable in tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
}

/**
 * The first wait between polls (docs/cli-contract.md "Jobs, results and export"). 50 ms: a query that takes 20 ms
 * is answered in a twentieth of a second, not a quarter; the backoff reaches the same 5 s cap four polls later,
 * so a long job costs four status requests more in all. Where those requests count against a rate limit (the
 * hosted edition's 100 status requests a minute per address, docs/api-facts.md §13.5), 250 ms, as before.
 */
const FIRST_POLL_DELAY_MS = 50;
const FIRST_POLL_DELAY_RATE_LIMITED_MS = 250;
const MAX_POLL_DELAY_MS = 5_000;

/**
 * Polls the job until it reaches a final state and returns that status. Any other state, known or not
 * (PENDING, PLANNING, ENGINE_START…, docs/api-facts.md §4.2), is polled through.
 */
export async function waitForJob(client: ApiClient, id: string, opts: WaitOptions = {}): Promise<JobStatus> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? abortableSleep;
  const maxDelay = opts.maxDelayMs ?? MAX_POLL_DELAY_MS;
  const deadline = opts.timeoutMs === undefined ? Number.POSITIVE_INFINITY : now() + opts.timeoutMs;
  let delay =
    opts.firstDelayMs ?? (client.rateLimited ? FIRST_POLL_DELAY_RATE_LIMITED_MS : FIRST_POLL_DELAY_MS);
  let state = 'unknown';
  for (;;) {
    const left = deadline - now();
    // A status request that hangs must not hold the wait past its deadline.
    const timer = Number.isFinite(left)
      ? AbortSignal.timeout(timerMs(Math.max(1, Math.ceil(left))))
      : undefined;
    const signals = [opts.signal, timer].filter((s): s is AbortSignal => s !== undefined);
    let status: JobStatus;
    try {
      status = await getJob(client, id, signals.length ? AbortSignal.any(signals) : undefined);
    } catch (err) {
      if (timer?.aborted && !opts.signal?.aborted) throw waitTimeout(id, state, opts.timeoutMs!);
      throw err;
    }
    state = status.jobState;
    opts.onPoll?.(status);
    if (isFinalState(state)) return status;
    const remaining = deadline - now();
    if (remaining <= 0) throw waitTimeout(id, state, opts.timeoutMs!);
    await sleep(Math.min(delay, remaining), opts.signal);
    delay = Math.min(maxDelay, Math.round(delay * 1.5));
  }
}

function waitTimeout(id: string, state: string, timeoutMs: number): ServiceError {
  return new ServiceError(
    `gave up waiting for job ${id} after ${formatDuration(timeoutMs)}: it is still ${state} (left running on the service)`,
    { hint: { kind: 'job-still-running', id } },
  );
}

/** Throws JobFailedError (exit 6) unless the job ended COMPLETED; the service's errorMessage is the message. */
export function requireCompleted(status: JobStatus, id: string): void {
  const state = status.jobState;
  if (state === 'COMPLETED') return;
  if (state === 'FAILED') {
    const [first = '', ...rest] = (status.errorMessage?.trim() || 'no reason was given').split(/\r?\n/);
    throw new JobFailedError(`job ${id} failed: ${first}`, { details: rest.filter((l) => l.trim()) });
  }
  if (state === 'CANCELED' || state === 'CANCELLED') {
    const reason = status.cancellationReason?.trim();
    throw new JobFailedError(`job ${id} was canceled${reason ? `: ${reason}` : ''}`);
  }
  throw new JobFailedError(`job ${id} ended in state ${state}`);
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new InterruptedError('interrupted'));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new InterruptedError('interrupted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, timerMs(ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
