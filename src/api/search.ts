// Catalog search (docs/api-facts.md §15) in its three forms: Enterprise 26.x `POST /api/v3/search`
// `{query, filter, maxResults, pageToken}` → `{results: [{category?, catalogObject | jobObject | …}],
// nextPageToken?}` (the hosted edition serves the same at `POST /v0/projects/{id}/search`, where src/api/roots.ts
// routes it); open-source and older servers `GET /api/v3/catalog/search?query=` → `{data: [CatalogItem…]}`,
// all at once. Field drift accepted: `category` in either case or absent (the object's `type` then),
// `modifiedAt` or `lastModifiedAt`, results carrying ids only. No printing here.
import { API_PREFIX } from '../constants.js';
import { DlakeError, NotFoundError, ServiceError } from '../errors.js';
import { v3 } from './endpoint.js';
import type { ApiClient } from './http.js';

/** `unified`: POST /api/v3/search (and the hosted form); `catalog`: GET /api/v3/catalog/search. */
export type SearchForm = 'unified' | 'catalog';

/** The kinds `--type` takes, and the unified form's categories for them. */
export const SEARCH_KINDS = [
  'table',
  'view',
  'folder',
  'space',
  'source',
  'udf',
  'job',
  'reflection',
] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

export interface SearchHit {
  kind: string;
  path: string[] | null;
  id: string | null;
  /** Of a job hit. */
  jobId?: string;
  [k: string]: unknown;
}

interface SearchPage {
  hits: SearchHit[];
  next?: string;
}

/** The CEL filter of the unified form: `category in ["TABLE", "VIEW"]`. */
function categoryFilter(kinds: readonly SearchKind[]): string | undefined {
  if (!kinds.length) return undefined;
  return `category in [${kinds.map((k) => `"${k.toUpperCase()}"`).join(', ')}]`;
}

/** Whether an error says the server has no such endpoint (404 or 405 of the framework). */
export function isMissingEndpoint(err: unknown): boolean {
  if (!(err instanceof DlakeError)) return false;
  if (err instanceof NotFoundError) return true;
  return /\b405\b|Method Not Allowed/i.test(err.message);
}

/** One page of the unified form. */
export async function unifiedSearch(
  client: ApiClient,
  q: { query: string; kinds: readonly SearchKind[]; maxResults: number; pageToken?: string },
  signal?: AbortSignal,
): Promise<SearchPage> {
  const filter = categoryFilter(q.kinds);
  const body = (await client.request({
    method: 'POST',
    at: v3('search', 'search'),
    json: {
      query: q.query,
      ...(filter ? { filter } : {}),
      maxResults: q.maxResults,
      ...(q.pageToken ? { pageToken: q.pageToken } : {}),
    },
    // A search changes nothing: sending it again is safe.
    idempotent: true,
    signal,
  })) as Record<string, unknown> | null;
  const results = Array.isArray(body?.results) ? body.results : undefined;
  if (!results)
    throw new ServiceError(`unexpected answer from POST ${API_PREFIX}/search: results: expected an array`);
  const next = typeof body?.nextPageToken === 'string' && body.nextPageToken ? body.nextPageToken : undefined;
  return { hits: results.map(unifiedHit), next };
}

function unifiedHit(r: unknown): SearchHit {
  const o = (r && typeof r === 'object' ? r : {}) as Record<string, unknown>;
  const objectKey = ['catalogObject', 'jobObject', 'reflectionObject', 'scriptObject'].find((k) => o[k]);
  const obj = (objectKey ? o[objectKey] : {}) as Record<string, unknown>;
  const category =
    typeof o.category === 'string'
      ? o.category
      : objectKey === 'jobObject'
        ? 'JOB'
        : objectKey === 'reflectionObject'
          ? 'REFLECTION'
          : objectKey === 'scriptObject'
            ? 'SCRIPT'
            : typeof obj.type === 'string'
              ? obj.type
              : 'UNKNOWN';
  const path = Array.isArray(obj.path) ? obj.path.map(String) : null;
  const id = typeof obj.id === 'string' ? obj.id : null;
  const hit: SearchHit = { kind: category.toLowerCase(), path, id };
  if (objectKey === 'jobObject') hit.jobId = id ?? (typeof obj.jobId === 'string' ? obj.jobId : undefined);
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'path' || k === 'id') continue;
    hit[k === 'modifiedAt' ? 'lastModifiedAt' : k] = v;
  }
  return hit;
}

/** The open-source form: every match in one answer; kinds filtered here (it takes no filter). */
export async function catalogSearch(
  client: ApiClient,
  q: { query: string; kinds: readonly SearchKind[] },
  signal?: AbortSignal,
): Promise<SearchHit[]> {
  const body = (await client.request({
    method: 'GET',
    at: v3('search', 'catalog/search'),
    query: { query: q.query },
    signal,
  })) as Record<string, unknown> | null;
  const data = Array.isArray(body?.data) ? body.data : undefined;
  if (!data)
    throw new ServiceError(
      `unexpected answer from GET ${API_PREFIX}/catalog/search: data: expected an array`,
    );
  const hits = data.map(catalogHit);
  return q.kinds.length ? hits.filter((h) => (q.kinds as readonly string[]).includes(h.kind)) : hits;
}

function catalogHit(r: unknown): SearchHit {
  const o = (r && typeof r === 'object' ? r : {}) as Record<string, unknown>;
  const kind =
    o.type === 'DATASET'
      ? o.datasetType === 'VIRTUAL'
        ? 'view'
        : 'table'
      : typeof o.containerType === 'string'
        ? o.containerType.toLowerCase()
        : typeof o.type === 'string'
          ? o.type.toLowerCase()
          : 'unknown';
  const { id, path, ...rest } = o;
  return {
    kind,
    path: Array.isArray(path) ? path.map(String) : null,
    id: typeof id === 'string' ? id : null,
    ...rest,
  };
}
