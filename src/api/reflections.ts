// Reflection summary (docs/api-facts.md §10.3): `GET /api/v3/reflection-summary`, paged with maxResults and
// an opaque pageToken; `filter` is a JSON object sent URL-encoded, `orderBy` a field name (`-` for
// descending).
import { API_PREFIX } from '../constants.js';
import { ServiceError, UsageError } from '../errors.js';
import type { ApiClient } from './http.js';
import { ReflectionSummaryPageSchema } from './schemas.js';

/** The service's largest page of summaries. */
const MAX_SUMMARY_PAGE = 100;
const SUMMARY_ORDER_FIELDS = ['reflectionName', 'datasetName', 'reflectionType'] as const;

interface SummaryQuery {
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

/** An order: one of the service's fields, `-` in front for descending. */
export function checkSummaryOrder(orderBy: string): string {
  const field = orderBy.startsWith('-') ? orderBy.slice(1) : orderBy;
  if (!(SUMMARY_ORDER_FIELDS as readonly string[]).includes(field)) {
    throw new UsageError(`cannot order reflections by "${orderBy}"`, {
      hint: `use one of: ${SUMMARY_ORDER_FIELDS.join(', ')} (prefix - for descending)`,
    });
  }
  return orderBy;
}
