// Reflection summary (api-extra §10.3): `GET /api/v3/reflection-summary`, paged with maxResults and an
// opaque pageToken; `filter` is a JSON object sent URL-encoded, `orderBy` a field name (`-` for descending).
import { API_PREFIX } from '../constants.js';
import { ServiceError, UsageError } from '../errors.js';
import type { ApiClient } from './http.js';
import { ReflectionSummaryPageSchema } from './schemas.js';

/** The service's largest page of summaries. */
export const MAX_SUMMARY_PAGE = 100;
export const SUMMARY_ORDER_FIELDS = ['reflectionName', 'datasetName', 'reflectionType'] as const;

export interface SummaryQuery {
  filter?: Record<string, unknown>;
  orderBy?: string;
  /** Stop after this many summaries (default: all). */
  limit?: number;
}

type Page = Awaited<ReturnType<typeof getSummaryPage>>;
export type ReflectionSummary = Page['data'][number];

export function getSummaryPage(
  client: ApiClient,
  query: { filter?: Record<string, unknown>; orderBy?: string; maxResults: number; pageToken?: string },
) {
  return client.request({
    method: 'GET',
    path: `${API_PREFIX}/reflection-summary`,
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
  const seen = new Set<string>();
  while (left > 0) {
    const maxResults = Math.min(MAX_SUMMARY_PAGE, left);
    const page = await getSummaryPage(
      client,
      pageToken ? { maxResults, pageToken } : { maxResults, filter: q.filter, orderBy: q.orderBy },
    );
    for (const item of page.data.slice(0, left)) yield item;
    left -= Math.min(page.data.length, left);
    if (!page.nextPageToken || page.data.length === 0) return;
    // A server that hands out the same token twice would page forever.
    if (seen.has(page.nextPageToken))
      throw new ServiceError('the reflection summary returned the same page token twice');
    seen.add(page.nextPageToken);
    pageToken = page.nextPageToken;
  }
}

const ARRAY_KEYS = ['reflectionType', 'refreshStatus', 'availabilityStatus', 'configStatus', 'reflectionIds'];
/** The values the service knows for the closed-set filter keys; a typo would silently match nothing. */
const FILTER_VALUES: Record<string, readonly string[]> = {
  reflectionType: ['RAW', 'AGGREGATION'],
  refreshStatus: ['GIVEN_UP', 'MANUAL', 'RUNNING', 'SCHEDULED', 'ON_DATA_CHANGES'],
  availabilityStatus: ['NONE', 'EXPIRED', 'AVAILABLE'],
  configStatus: ['OK', 'INVALID'],
};
const FILTER_KEYS = [...ARRAY_KEYS, 'enabledFlag', 'reflectionNameOrDatasetPath'];

/**
 * The filter object from `--filter` values: a JSON object, or `key=value` pairs (lists comma-separated),
 * e.g. `reflectionType=RAW,AGGREGATION`, `enabledFlag=true`, `reflectionNameOrDatasetPath=orders`.
 */
export function buildSummaryFilter(values: readonly string[]): Record<string, unknown> | undefined {
  if (values.length === 0) return undefined;
  const filter: Record<string, unknown> = {};
  for (const raw of values) {
    const text = raw.trim();
    if (text.startsWith('{')) {
      let obj: unknown;
      try {
        obj = JSON.parse(text);
      } catch (e) {
        throw new UsageError(`--filter is not valid JSON: ${(e as Error).message}`);
      }
      if (!obj || typeof obj !== 'object' || Array.isArray(obj))
        throw new UsageError('--filter JSON must be an object');
      for (const [key, value] of Object.entries(obj)) {
        filter[key] = Array.isArray(value) && FILTER_VALUES[key] ? value.map((v) => known(key, v)) : value;
      }
      continue;
    }
    const eq = text.indexOf('=');
    const key = eq > 0 ? text.slice(0, eq).trim() : '';
    if (!FILTER_KEYS.includes(key)) {
      throw new UsageError(
        eq > 0 ? `unknown --filter attribute "${key}"` : `--filter "${raw}" is not key=value or JSON`,
        { hint: `use one of: ${FILTER_KEYS.join(', ')} (e.g. --filter reflectionType=RAW)` },
      );
    }
    const value = text.slice(eq + 1).trim();
    if (ARRAY_KEYS.includes(key)) {
      const items = value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean)
        .map((v) => (FILTER_VALUES[key] ? known(key, v) : v));
      filter[key] = [...((filter[key] as string[] | undefined) ?? []), ...items];
    } else if (key === 'enabledFlag') {
      if (!/^(true|false)$/i.test(value)) throw new UsageError('--filter enabledFlag takes true or false');
      filter[key] = value.toLowerCase() === 'true';
    } else {
      filter[key] = value;
    }
  }
  return filter;
}

/** A closed-set filter value in the service's spelling (case-insensitive), or a UsageError listing them. */
function known(key: string, value: unknown): string {
  const values = FILTER_VALUES[key] ?? [];
  const found = values.find((v) => typeof value === 'string' && v === value.toUpperCase());
  if (found === undefined) {
    throw new UsageError(`--filter ${key} "${String(value)}" is not one of: ${values.join(', ')}`);
  }
  return found;
}

/** `--order-by`: one of the service's fields, `-` in front for descending. */
export function checkSummaryOrder(orderBy: string): string {
  const field = orderBy.startsWith('-') ? orderBy.slice(1) : orderBy;
  if (!(SUMMARY_ORDER_FIELDS as readonly string[]).includes(field)) {
    throw new UsageError(`cannot order reflections by "${orderBy}"`, {
      hint: `use one of: ${SUMMARY_ORDER_FIELDS.join(', ')} (prefix - for descending)`,
    });
  }
  return orderBy;
}
