// Reflection summary (docs/api-facts.md §10.3): `GET /api/v3/reflection-summary`, paged with maxResults and
// an opaque pageToken; `filter` is a JSON object sent URL-encoded, `orderBy` a field name (`-` for
// descending).

import * as z from 'zod/mini';
import '../util/zod.js';
import { ConflictError, JobFailedError, ServiceError, UsageError } from '../errors.js';
import { isUuid } from '../util/catalog-ref.js';
import { formatDuration, timerMs } from '../util/units.js';
import { enterprise } from './editions.js';
import { below, type Target, v3 } from './endpoint.js';
import type { ApiClient } from './http.js';
import { PageTokens } from './paging.js';
import { ReflectionSummaryPageSchema } from './schemas/reflections.js';
import { count, optional, text } from './schemas.js';
import { segment } from './url-segment.js';
import { type Write, type WriteRequest, write } from './write.js';

/** The service's largest page of summaries. */
const MAX_SUMMARY_PAGE = 100;

export interface SummaryQuery {
  filter?: Record<string, unknown>;
  orderBy?: string;
  /** Stop after this many summaries (default: all). */
  limit?: number;
}

type Page = Awaited<ReturnType<typeof getSummaryPage>>;
export type ReflectionSummary = Page['data'][number];

function getSummaryPage(
  client: ApiClient,
  query: { filter?: Record<string, unknown>; orderBy?: string; maxResults: number; pageToken?: string },
) {
  return client.request({
    method: 'GET',
    at: v3('reflection-summary', 'reflection-summary'),
    query: {
      maxResults: query.maxResults,
      pageToken: query.pageToken,
      filter: query.filter && Object.keys(query.filter).length ? JSON.stringify(query.filter) : undefined,
      orderBy: query.orderBy,
    },
    schema: ReflectionSummaryPageSchema,
  });
}

/**
 * Every summary, page after page. Like the service's own UI client, the filter and order go with the first
 * request only; later requests carry the page token (which remembers them) and the page size.
 */
export async function* reflectionSummaries(
  client: ApiClient,
  q: SummaryQuery = {},
): AsyncGenerator<ReflectionSummary> {
  let left = q.limit ?? Number.POSITIVE_INFINITY;
  let pageToken: string | undefined;
  const tokens = new PageTokens('the reflection summary');
  while (left > 0) {
    const maxResults = Math.min(MAX_SUMMARY_PAGE, left);
    const page = await getSummaryPage(
      client,
      pageToken ? { maxResults, pageToken } : { maxResults, filter: q.filter, orderBy: q.orderBy },
    );
    for (const item of page.data.slice(0, left)) yield item;
    left -= Math.min(page.data.length, left);
    pageToken = tokens.next(page.nextPageToken, page.data);
    if (!pageToken) return;
  }
}

// ── Reflections themselves (docs/api-facts.md §10.1–10.2) ───────────────────────────────────────────────────

const REFLECTIONS = v3('reflection', 'reflection');

const FieldRefSchema = z.looseObject({ name: z.string() });
export const ReflectionSchema = z.looseObject({
  id: text,
  type: optional(z.string()),
  name: optional(z.string()),
  tag: optional(text),
  datasetId: optional(z.string()),
  enabled: optional(z.boolean()),
  currentSizeBytes: optional(count),
  status: optional(z.looseObject({ combinedStatus: optional(z.string()) })),
  displayFields: z.optional(z.array(FieldRefSchema)),
  dimensionFields: z.optional(z.array(FieldRefSchema)),
  measureFields: z.optional(z.array(FieldRefSchema)),
  partitionFields: z.optional(z.array(FieldRefSchema)),
  sortFields: z.optional(z.array(FieldRefSchema)),
  distributionFields: z.optional(z.array(FieldRefSchema)),
});
export type Reflection = z.infer<typeof ReflectionSchema>;
const ReflectionListSchema = z.looseObject({ data: z.array(ReflectionSchema) });

export const FIELD_LISTS = [
  'displayFields',
  'dimensionFields',
  'measureFields',
  'partitionFields',
  'sortFields',
  'distributionFields',
] as const;
type FieldListKey = (typeof FIELD_LISTS)[number];
export type FieldLists = Partial<Record<FieldListKey, Array<Record<string, unknown>>>>;

function reflectionTarget(id: string): Target {
  if (!isUuid(id)) {
    throw new UsageError(`"${id}" is not a reflection id`, { hint: { kind: 'list-reflections' } });
  }
  return v3('reflection', `reflection/${segment(id, 'reflection id')}`, { key: { id } });
}

/** Every reflection (Enterprise: GET /reflection) or a dataset's (GET /dataset/{id}/reflection). */
export async function listReflections(client: ApiClient, datasetId?: string): Promise<Reflection[]> {
  const at = datasetId
    ? v3('dataset', `dataset/${segment(datasetId, 'dataset id')}/reflection`, { key: { id: datasetId } })
    : REFLECTIONS;
  const call = () => client.request({ method: 'GET', at, schema: ReflectionListSchema });
  const res = datasetId ? await call() : await enterprise('listing all reflections', call);
  return res.data;
}

export function getReflection(client: ApiClient, id: string, signal?: AbortSignal): Promise<Reflection> {
  return client.request({ method: 'GET', at: reflectionTarget(id), schema: ReflectionSchema, signal });
}

export function createReflectionRequest(body: Record<string, unknown>) {
  return { method: 'POST', at: REFLECTIONS, json: body } as const;
}

/** POST /reflection: never repeated automatically (a second reflection is worse than an error). */
export function createReflection(client: ApiClient, body: Record<string, unknown>): Promise<Reflection> {
  return client.request({ ...createReflectionRequest(body), schema: ReflectionSchema });
}

/** PUT /reflection/{id} with the tag read before; a stale tag is exit 5 with the current tag in the hint. */
export function reflectionUpdate(body: Reflection): Write<Reflection> {
  return write(
    { method: 'PUT', at: reflectionTarget(body.id), json: body, idempotent: true },
    (client, request) => sendUpdate(client, request, body),
  );
}

export function updateReflection(client: ApiClient, body: Reflection): Promise<Reflection> {
  return reflectionUpdate(body).send(client);
}

async function sendUpdate(client: ApiClient, request: WriteRequest, body: Reflection): Promise<Reflection> {
  try {
    return await client.request({ ...request, schema: ReflectionSchema });
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
    const current = await getReflection(client, body.id).catch(() => undefined);
    if (!current || current.tag === body.tag) throw err;
    throw new ConflictError(
      `reflection ${body.id} was changed by someone else since it was read (tag "${body.tag}")`,
      {
        moreInfo: err.message,
        hint: { kind: 'stale-reflection-tag', id: body.id, currentTag: current.tag! },
      },
    );
  }
}

export function deleteReflectionRequest(id: string) {
  return { method: 'DELETE', at: reflectionTarget(id) } as const;
}

export async function deleteReflection(client: ApiClient, id: string): Promise<void> {
  await client.request({ ...deleteReflectionRequest(id), responseType: 'text', idempotent: true });
}

export function refreshReflectionRequest(id: string) {
  return { method: 'POST', at: below(reflectionTarget(id), 'refresh') } as const;
}

export async function refreshReflection(client: ApiClient, id: string): Promise<void> {
  await enterprise('refreshing a reflection', () =>
    client.request({ ...refreshReflectionRequest(id), responseType: 'text' }),
  );
}

/** Where a wait on a refresh ends: usable (exit 0), failed (exit 6), or not yet. */
function refreshOutcome(r: Reflection): 'ready' | 'failed' | 'pending' {
  const s = r.status?.combinedStatus ?? '';
  if (s === 'CAN_ACCELERATE' || s === 'CAN_ACCELERATE_WITH_FAILURES') return 'ready';
  if (['FAILED', 'INVALID', 'DISABLED', 'EXPIRED'].includes(s)) return 'failed';
  return 'pending';
}

/**
 * Polls a reflection until it can accelerate (returned) or has failed (JobFailedError, exit 6), or until
 * `timeoutMs` (ServiceError, exit 7; the refresh goes on). Polling backs off from 0.25 s to 5 s: a refresh takes
 * seconds at least, a job's first poll is sooner (src/api/jobs.ts).
 */
export async function waitForReflection(
  client: ApiClient,
  id: string,
  opts: { timeoutMs?: number; signal?: AbortSignal; onPoll?: (r: Reflection) => void } = {},
): Promise<Reflection> {
  const { abortableSleep } = await import('./jobs.js');
  const deadline = opts.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + opts.timeoutMs;
  let delay = 250;
  let status = 'unknown';
  for (;;) {
    const left = deadline - Date.now();
    const timer = Number.isFinite(left)
      ? AbortSignal.timeout(timerMs(Math.max(1, Math.ceil(left))))
      : undefined;
    const signals = [opts.signal, timer].filter((s): s is AbortSignal => s !== undefined);
    let r: Reflection;
    try {
      r = await getReflection(client, id, signals.length ? AbortSignal.any(signals) : undefined);
    } catch (err) {
      if (timer?.aborted && !opts.signal?.aborted) throw refreshTimeout(id, status, opts.timeoutMs!);
      throw err;
    }
    status = r.status?.combinedStatus ?? 'unknown';
    opts.onPoll?.(r);
    const outcome = refreshOutcome(r);
    if (outcome === 'ready') return r;
    if (outcome === 'failed') {
      const why = (r.status as { lastFailureMessage?: unknown } | undefined)?.lastFailureMessage;
      throw new JobFailedError(
        `reflection ${id} cannot accelerate: it is ${status}${typeof why === 'string' && why ? ` (${why})` : ''}`,
      );
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw refreshTimeout(id, status, opts.timeoutMs!);
    await abortableSleep(Math.min(delay, remaining), opts.signal);
    delay = Math.min(5_000, Math.round(delay * 1.5));
  }
}

function refreshTimeout(id: string, status: string, timeoutMs: number): ServiceError {
  return new ServiceError(
    `gave up waiting for reflection ${id} after ${formatDuration(timeoutMs)}: it is still ${status} (the refresh goes on)`,
    { hint: { kind: 'reflection-refresh-pending', id } },
  );
}
