// How catalog entities look on the wire (docs/api-facts.md §5.2, §6.1): summaries, full entities and children
// paging.
import {
  type CatalogNode,
  type CatalogStore,
  type DatasetEntity,
  internalId,
  type NsEntity,
  nodeName,
  nodePath,
  type SourceEntity,
} from './catalog-store.js';
import { badRequest } from './http.js';
import { compareNames, nasState } from './nas.js';
import { maskSecrets } from './source-configs.js';

/** Children to render: omitted (`exclude=children`), or a page of them. */
export type ChildrenOption =
  | { exclude: true }
  | { exclude?: false; maxChildren?: number; pageToken?: string };

/** What the spec shows as `accessControlList` on spaces and sources (no grants in the emulator). */
const ACL = { version: '0', users: [] as unknown[] };

/** Drops undefined values so that nulls are omitted, as the service's JSON mapper does (NON_NULL). */
function compact(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** A catalog item: the element of `GET /catalog` and of `children`. Folders carry no createdAt (§5.1). */
export function summary(node: CatalogNode): Record<string, unknown> {
  if (node.kind === 'file') return { id: internalId(node.path), path: node.path, type: 'FILE' };
  if (node.kind === 'dir') {
    return { id: internalId(node.path), path: node.path, type: 'CONTAINER', containerType: 'FOLDER' };
  }
  const e = node.entity;
  const base = { id: e.id, path: e.path, tag: e.tag };
  switch (e.kind) {
    case 'dataset':
      return {
        ...base,
        type: 'DATASET',
        datasetType: e.type === 'VIRTUAL_DATASET' ? 'VIRTUAL' : 'PROMOTED',
        createdAt: e.createdAt,
      };
    case 'folder':
      return { ...base, type: 'CONTAINER', containerType: 'FOLDER' };
    default:
      return { ...base, type: 'CONTAINER', containerType: e.kind.toUpperCase(), createdAt: e.createdAt };
  }
}

/** The full entity of `GET /catalog/{id}` and by-path, of create/update responses. */
export function renderNode(
  store: CatalogStore,
  node: CatalogNode,
  children: ChildrenOption,
): Record<string, unknown> {
  if (node.kind === 'file') return { entityType: 'file', id: internalId(node.path), path: node.path };
  if (node.kind === 'dir') {
    // Folders of a filesystem are not in the namespace: no tag until promoted.
    return compact({
      entityType: 'folder',
      id: internalId(node.path),
      path: node.path,
      ...page(store, node, children),
    });
  }
  return renderEntity(store, node.entity, children);
}

export function renderEntity(
  store: CatalogStore,
  e: NsEntity,
  children: ChildrenOption,
): Record<string, unknown> {
  const kids = () => page(store, { kind: 'entity', entity: e }, children);
  switch (e.kind) {
    case 'space':
      return compact({
        entityType: 'space',
        id: e.id,
        name: e.path[0],
        tag: e.tag,
        createdAt: e.createdAt,
        ...kids(),
        accessControlList: ACL,
      });
    case 'home':
      return compact({ entityType: 'home', id: e.id, name: e.path[0], tag: e.tag, ...kids() });
    case 'folder':
      return compact({ entityType: 'folder', id: e.id, path: e.path, tag: e.tag, ...kids() });
    case 'source':
      return renderSource(e, kids(), store.secretPlaceholder);
    case 'dataset':
      return renderDataset(e);
  }
}

function renderSource(
  s: SourceEntity,
  kids: Record<string, unknown>,
  placeholder?: string,
): Record<string, unknown> {
  const { description, ...settings } = s.settings;
  return compact({
    entityType: 'source',
    id: s.id,
    tag: s.tag,
    type: s.type,
    name: s.path[0],
    description,
    createdAt: s.createdAt,
    config: maskSecrets(s.type, s.config, placeholder),
    // Only NAS sources have something real to check; every other type is reported healthy.
    state: s.type === 'NAS' ? nasState(s.config.path) : { status: 'good', messages: [] },
    metadataPolicy: { ...s.metadataPolicy },
    ...settings,
    ...kids,
    accessControlList: ACL,
  });
}

function renderDataset(d: DatasetEntity): Record<string, unknown> {
  const table = d.type === 'PHYSICAL_DATASET';
  return compact({
    entityType: 'dataset',
    id: d.id,
    type: d.type,
    path: d.path,
    fields: d.fields,
    createdAt: d.createdAt,
    tag: d.tag,
    accelerationRefreshPolicy: d.accelerationRefreshPolicy,
    sql: d.sql,
    sqlContext: d.sqlContext,
    format: d.format,
    approximateStatisticsAllowed: table ? false : undefined,
    // Metadata is read once, at promotion; the emulator never lets it expire.
    isMetadataExpired: table ? false : undefined,
    lastMetadataRefreshAt: table ? d.createdAt : undefined,
  });
}

/**
 * Children paging of docs/api-facts.md §5.2: no maxChildren → all; maxChildren ≤ 0 → an empty list; else N
 * children from the token's name on, and a token naming the (N+1)-th when there is one. Filesystem listings
 * (NAS) ignore maxChildren and pageToken altogether.
 */
function page(store: CatalogStore, node: CatalogNode, opt: ChildrenOption): Record<string, unknown> {
  if (opt.exclude) return {};
  const all = store.children(node);
  if (store.isFilesystem(node)) return { children: all.map(summary) };
  const parent = nodePath(node);
  let start = 0;
  if (opt.pageToken !== undefined) {
    const token = decodePageToken(opt.pageToken);
    const expected = dottedPath(parent);
    if (token.path !== expected) {
      throw badRequest(
        `Passed path [${listString(parent)}] does not match previous path [${listString(parseDotted(token.path))}]`,
      );
    }
    start = all.findIndex((c) => compareNames(nodeName(c), token.pageToken) >= 0);
    if (start < 0) start = all.length;
  }
  const max = opt.maxChildren;
  if (max === undefined) return { children: all.slice(start).map(summary) };
  if (max <= 0) return { children: [] };
  const slice = all.slice(start, start + max + 1); // the N+1 read
  const next = slice.length > max ? slice[max] : undefined;
  return {
    children: slice.slice(0, max).map(summary),
    nextPageToken: next ? encodePageToken(parent, nodeName(next)) : undefined,
  };
}

/** Java's `List.toString` inside brackets, as the service's messages show paths: `[[a, b]]`. */
export const listString = (path: readonly string[]): string => `[${path.join(', ')}]`;

/** The dotted form of a path in page tokens: components with `.` or `"` are quoted, inner quotes doubled. */
export function dottedPath(path: readonly string[]): string {
  return path.map((c) => (/[."]/.test(c) ? `"${c.replaceAll('"', '""')}"` : c)).join('.');
}

function parseDotted(s: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i <= s.length) {
    let comp = '';
    if (s[i] === '"') {
      i++;
      while (i < s.length) {
        if (s[i] === '"' && s[i + 1] === '"') {
          comp += '"';
          i += 2;
        } else if (s[i] === '"') {
          i++;
          break;
        } else comp += s[i++];
      }
    }
    while (i < s.length && s[i] !== '.') comp += s[i++];
    out.push(comp);
    i++;
  }
  return out;
}

export function encodePageToken(parent: readonly string[], firstName: string): string {
  return Buffer.from(JSON.stringify({ path: dottedPath(parent), pageToken: firstName })).toString(
    'base64url',
  );
}

function decodePageToken(token: string): { path: string; pageToken: string } {
  try {
    if (!/^[A-Za-z0-9_-]+={0,2}$/.test(token)) throw new Error('not base64url');
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (typeof parsed?.path === 'string' && typeof parsed.pageToken === 'string') {
      return { path: parsed.path, pageToken: parsed.pageToken };
    }
  } catch {
    // falls through to the service's message
  }
  throw badRequest('Failed to parse pagination token.');
}
