// Catalog search in its three forms (docs/api-facts.md §15): every self-hosted server has
// `GET /api/v3/catalog/search?query=` (`{data: [CatalogItem…]}`); Enterprise 26.x also has `POST /api/v3/search`
// (`{query, filter, maxResults, pageToken}` → `{sessionId, nextPageToken?, results: [{category, catalogObject |
// jobObject}]}`), which the hosted edition serves as `POST /v0/projects/{id}/search` (emulator/src/cloud.ts
// hands it here). `EmulatorOptions.search` chooses which a self-hosted emulator has.
//
// Matching is a case-insensitive substring of an entity's name (or a job's id or query text); the filter is
// read only in its `category in ["A", "B"]` form. Page tokens are opaque to the client: here, the offset.
// What is found is what the service's search indexes (docs/api-facts.md §15 "Catalog search"): spaces, sources,
// folders (a source's folders too, read from its files), tables (a source's promoted files and folders among
// them) and views; a file that is not a table is no entry of the catalog, so no search finds it.
import { randomUUID } from 'node:crypto';
import type { AreaContext } from './area.js';
import { type CatalogNode, type CatalogStore, internalId, type NsEntity } from './catalog-store.js';
import { requireAuth } from './guards.js';
import { badRequest, jsonBody, ok } from './http.js';

/** What the search reads of the jobs area. */
export interface SearchableJob {
  id: string;
  sql: string;
  user: string;
  state: string;
  startedAt: number;
}

const DEFAULT_PAGE = 50;
const MAX_PAGE = 200;
/** How deep into a source's files the search looks for folders, and how many folders it reads at most. */
const FOLDER_DEPTH = 8;
const FOLDERS_READ = 10_000;

/** A match: an entity of the catalog, or a folder of a source's files (which is no entity until promoted). */
type Found = { kind: 'entity'; entity: NsEntity } | { kind: 'folder'; path: string[]; mtimeMs: number };

/** The folders of the filesystem sources whose name holds `text`, as the service's search index lists them. */
function sourceFolders(store: CatalogStore, text: string): Found[] {
  const out: Found[] = [];
  let read = 0;
  const walk = (node: CatalogNode, depth: number): void => {
    if (depth > FOLDER_DEPTH) return;
    for (const child of store.children(node)) {
      if (child.kind !== 'dir' || ++read > FOLDERS_READ) continue;
      if (child.path.at(-1)!.toLowerCase().includes(text))
        out.push({ kind: 'folder', path: child.path, mtimeMs: child.disk.mtimeMs });
      walk(child, depth + 1);
    }
  };
  for (const source of store.sources())
    if (store.isFilesystem({ kind: 'entity', entity: source })) walk({ kind: 'entity', entity: source }, 1);
  return out;
}

export function registerSearch(area: AreaContext, store: CatalogStore, jobs: () => SearchableJob[]): void {
  const { router, options } = area;
  const unified = (options.search ?? (options.edition === 'community' ? 'catalog' : 'unified')) === 'unified';
  const hosted = options.edition === 'cloud';

  const entities = (text: string): Found[] => {
    const t = text.toLowerCase();
    const found: Found[] = [
      ...store
        .descendants([])
        .filter((e) => e.kind !== 'home' && e.path.at(-1)!.toLowerCase().includes(t))
        .map((entity): Found => ({ kind: 'entity', entity })),
      ...sourceFolders(store, t),
    ];
    return found.sort((a, b) => pathOf(a).join('.').localeCompare(pathOf(b).join('.')));
  };

  // The open-source form: every match at once (the service pages nothing here).
  if (!hosted) {
    router.get('/api/v3/catalog/search', (req) => {
      requireAuth(req);
      const text = req.query.get('query') ?? '';
      return ok({ data: entities(text).map(catalogItem) });
    });
  }

  if (unified || hosted) {
    router.post('/api/v3/search', (req) => {
      requireAuth(req);
      const body = jsonBody<Record<string, unknown>>(req) ?? {};
      if (typeof body.query !== 'string') throw badRequest('query is required');
      const max = body.maxResults === undefined ? DEFAULT_PAGE : Number(body.maxResults);
      if (!Number.isInteger(max) || max < 1 || max > MAX_PAGE) {
        throw badRequest(`maxResults must be between 1 and ${MAX_PAGE}`);
      }
      const categories = categoriesOf(body.filter);
      const text = body.query.toLowerCase();
      const all: Array<Record<string, unknown>> = [];
      for (const e of entities(body.query)) {
        const category = categoryOf(e);
        if (!categories || categories.has(category)) all.push({ category, catalogObject: catalogObject(e) });
      }
      if (!categories || categories.has('JOB')) {
        for (const j of jobs()) {
          if (j.id.includes(text) || j.sql.toLowerCase().includes(text)) {
            all.push({ category: 'JOB', jobObject: jobObject(j) });
          }
        }
      }
      const start = typeof body.pageToken === 'string' ? Number(Buffer.from(body.pageToken, 'base64url')) : 0;
      if (!Number.isInteger(start) || start < 0) throw badRequest('Invalid page token');
      const page = all.slice(start, start + max);
      const next =
        start + max < all.length ? Buffer.from(String(start + max)).toString('base64url') : undefined;
      return ok({ sessionId: randomUUID(), nextPageToken: next, results: page });
    });
  }
}

const pathOf = (f: Found): string[] => (f.kind === 'entity' ? f.entity.path : f.path);

/** `category in ["TABLE", "VIEW"]` → the set; no filter → undefined (everything). */
function categoriesOf(filter: unknown): Set<string> | undefined {
  if (filter === undefined || filter === null || filter === '') return undefined;
  const m = typeof filter === 'string' ? /^\s*category\s+in\s+\[(.*)\]\s*$/i.exec(filter) : null;
  if (!m) throw badRequest(`Unsupported filter: ${String(filter)}`);
  return new Set([...m[1]!.matchAll(/"([^"]*)"/g)].map((x) => x[1]!.toUpperCase()));
}

function categoryOf(f: Found): string {
  if (f.kind === 'folder') return 'FOLDER';
  const e = f.entity;
  switch (e.kind) {
    case 'dataset':
      return e.type === 'VIRTUAL_DATASET' ? 'VIEW' : 'TABLE';
    case 'space':
      return 'SPACE';
    case 'source':
      return 'SOURCE';
    default:
      return 'FOLDER';
  }
}

/** The v3 CatalogItem of the open-source form (a source's folder: its path-derived id, no tag until promoted). */
function catalogItem(f: Found): Record<string, unknown> {
  if (f.kind === 'folder')
    return { id: internalId(f.path), path: f.path, type: 'CONTAINER', containerType: 'FOLDER' };
  const e = f.entity;
  const item: Record<string, unknown> = { id: e.id, path: e.path, tag: e.tag };
  if (e.kind === 'dataset') {
    item.type = 'DATASET';
    item.datasetType = e.type === 'VIRTUAL_DATASET' ? 'VIRTUAL' : 'PROMOTED';
  } else {
    item.type = 'CONTAINER';
    item.containerType = e.kind.toUpperCase();
  }
  return item;
}

/** The unified form's catalogObject (docs: path, type, labels, owner, createdAt, lastModifiedAt, columns). */
function catalogObject(f: Found): Record<string, unknown> {
  if (f.kind === 'folder') {
    const at = new Date(f.mtimeMs).toISOString();
    return {
      id: internalId(f.path),
      path: f.path,
      type: 'FOLDER',
      labels: [],
      createdAt: at,
      lastModifiedAt: at,
    };
  }
  const e = f.entity;
  return {
    id: e.id,
    path: e.path,
    type: categoryOf(f),
    labels: [],
    createdAt: e.createdAt,
    lastModifiedAt: e.createdAt,
    ...(e.kind === 'dataset' && e.fields ? { columns: e.fields.map((c) => c.name) } : {}),
  };
}

function jobObject(j: SearchableJob): Record<string, unknown> {
  return {
    id: j.id,
    query: j.sql,
    user: j.user,
    jobStatus: j.state,
    submittedAt: new Date(j.startedAt).toISOString(),
  };
}
