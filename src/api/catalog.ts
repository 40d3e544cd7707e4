// The catalog endpoints (docs/api-facts.md §5): one typed function per endpoint, the `<ref>` lookup,
// children paging and the concurrent tree walk. Ids travel as one URL segment, paths component by component.
// Writes are also available as plain request descriptions (`…Request`), which is what --dry-run prints.

import * as z from 'zod/mini';
import '../util/zod.js';
import { NotFoundError, UsageError } from '../errors.js';
import type { CatalogRef } from '../util/catalog-ref.js';
import { explainStaleTag } from './conflicts.js';
import { below, type Target, v3 } from './endpoint.js';
import type { ApiClient } from './http.js';
import { PageTokens } from './paging.js';
import {
  type CatalogEntity,
  CatalogEntitySchema,
  CatalogListSchema,
  type CatalogSummary,
  type Tags,
  TagsSchema,
  type Wiki,
  WikiSchema,
} from './schemas/catalog.js';
import { segment, segments } from './url-segment.js';
import type { WriteRequest } from './write.js';

export type { WriteRequest } from './write.js';

const CATALOG = v3('catalog', 'catalog');

/** The top-level catalog listing: the API root every user may read (doctor asks it without credentials). */
export const catalogRoot = (): Target => CATALOG;

export interface GetOptions {
  /** Non-default attributes, e.g. `permissions`. */
  include?: readonly string[];
  /** Attributes to drop, e.g. `children`. */
  exclude?: readonly string[];
  /** Children per page; without it the service sends them all. */
  maxChildren?: number;
  pageToken?: string;
}

// An id is one segment (internal ids such as `service:/Samples/a b` carry slashes and spaces); a path is one
// segment per component, each encoded on its own (the service decodes segment by segment).
export const entityById = (id: string): Target =>
  v3('catalog', `catalog/${segment(id, 'catalog id')}`, { key: { id } });
export const entityByPath = (path: readonly string[]): Target =>
  v3('catalog', `catalog/by-path/${segments(path, 'catalog path component')}`, { key: { path } });
/** Something of an entity's (its tags, wiki, grants): a 404 there means the entity is missing. */
export const ofEntity = (id: string, sub: string): Target => below(entityById(id), sub, { key: { id } });

function getQuery(opts: GetOptions): Record<string, string | readonly string[] | undefined> {
  return {
    include: opts.include?.length ? opts.include : undefined,
    exclude: opts.exclude?.length ? opts.exclude : undefined,
    maxChildren: opts.maxChildren === undefined ? undefined : String(opts.maxChildren),
    pageToken: opts.pageToken,
  };
}

// ── Reads ───────────────────────────────────────────────────────────────────────────────────────────────

/** The caller's home, the spaces and the sources. */
export async function listTopLevel(client: ApiClient): Promise<CatalogSummary[]> {
  const list = await client.request({ method: 'GET', at: CATALOG, schema: CatalogListSchema });
  return list.data;
}

export function getById(client: ApiClient, id: string, opts: GetOptions = {}): Promise<CatalogEntity> {
  return client.request({
    method: 'GET',
    at: entityById(id),
    query: getQuery(opts),
    schema: CatalogEntitySchema,
  });
}

export function getByPath(
  client: ApiClient,
  path: readonly string[],
  opts: GetOptions = {},
): Promise<CatalogEntity> {
  return client.request({
    method: 'GET',
    at: entityByPath(path),
    query: getQuery(opts),
    schema: CatalogEntitySchema,
  });
}

/** The entity a `<ref>` names (a path or an id); a 404 names what was looked for. */
export function resolveRef(
  client: ApiClient,
  ref: CatalogRef,
  opts: GetOptions = {},
): Promise<CatalogEntity> {
  return ref.kind === 'id' ? getById(client, ref.id, opts) : getByPath(client, ref.path, opts);
}

/** Children per listing request unless told otherwise. */
const DEFAULT_PAGE_SIZE = 500;

/**
 * A container and all its children, following `nextPageToken` page after page (the other query parameters
 * stay the same between pages, as the service requires). Filesystem sources ignore paging and send all at once.
 */
export async function listChildren(
  client: ApiClient,
  ref: CatalogRef,
  opts: { pageSize?: number } = {},
): Promise<{ entity: CatalogEntity; children: CatalogSummary[] }> {
  const maxChildren = opts.pageSize ?? DEFAULT_PAGE_SIZE;
  let entity: CatalogEntity | undefined;
  const children: CatalogSummary[] = [];
  let pageToken: string | undefined;
  let tokens: PageTokens | undefined;
  do {
    const page = await resolveRef(client, ref, { maxChildren, pageToken });
    // Later pages are asked by id: the first page told us which entity this is.
    if (!entity) {
      entity = page;
      ref = { kind: 'id', id: page.id };
    }
    // One by one: a filesystem source sends every child in one page, more than a spread call takes.
    for (const child of page.children ?? []) children.push(child);
    tokens ??= new PageTokens(`the children of ${page.id}`);
    pageToken = tokens.next(page.nextPageToken, page.children ?? []);
  } while (pageToken);
  const { nextPageToken: _, ...rest } = entity;
  return { entity: { ...rest, children }, children };
}

/** The path of a full entity: spaces, sources and homes carry a `name` instead. */
export function entityPath(entity: Pick<CatalogEntity, 'path' | 'name' | 'id'>): string[] {
  return entity.path ?? (entity.name === undefined ? [entity.id] : [entity.name]);
}

/** Entities that have children. */
export function isContainerEntity(entity: Pick<CatalogEntity, 'entityType'>): boolean {
  return ['space', 'source', 'folder', 'home'].includes(entity.entityType);
}

// ── Writes ──────────────────────────────────────────────────────────────────────────────────────────────

export function createRequest(
  entity: Record<string, unknown>,
  secretFields?: readonly string[],
): WriteRequest {
  return { method: 'POST', at: CATALOG, json: entity, secretFields };
}

export function updateRequest(
  id: string,
  entity: Record<string, unknown>,
  secretFields?: readonly string[],
): WriteRequest {
  return { method: 'PUT', at: entityById(id), json: entity, secretFields, idempotent: true };
}

export function removeRequest(id: string, tag?: string): WriteRequest {
  // With the tag the delete is checked against the version read, and may be repeated safely.
  return { method: 'DELETE', at: entityById(id), query: { tag }, idempotent: tag !== undefined };
}

export function refreshRequest(id: string): WriteRequest {
  return { method: 'POST', at: ofEntity(id, 'refresh') };
}

export function promoteRequest(id: string, entity: Record<string, unknown>): WriteRequest {
  return { method: 'POST', at: entityById(id), json: entity };
}

export function setTagsRequest(id: string, tags: readonly string[], version?: string | number): WriteRequest {
  return {
    method: 'POST',
    at: ofEntity(id, 'collaboration/tag'),
    json: { tags, ...(version === undefined ? {} : { version }) },
  };
}

export function setWikiRequest(id: string, text: string, version?: string | number): WriteRequest {
  return {
    method: 'POST',
    at: ofEntity(id, 'collaboration/wiki'),
    json: { text, ...(version === undefined ? {} : { version }) },
  };
}

export function create(
  client: ApiClient,
  entity: Record<string, unknown>,
  secretFields?: readonly string[],
): Promise<CatalogEntity> {
  return client.request({ ...createRequest(entity, secretFields), schema: CatalogEntitySchema });
}

/** PUT with the tag in the body; a stale tag ends in a ConflictError whose hint names the current tag. */
export async function update(
  client: ApiClient,
  id: string,
  entity: Record<string, unknown>,
  secretFields?: readonly string[],
): Promise<CatalogEntity> {
  try {
    return await client.request({ ...updateRequest(id, entity, secretFields), schema: CatalogEntitySchema });
  } catch (err) {
    throw await withCurrentTag(client, id, err, entity.tag);
  }
}

/** DELETE, with `?tag=` when given (without it the service deletes whatever version it has). */
export async function remove(client: ApiClient, id: string, tag?: string): Promise<void> {
  try {
    await client.request({ ...removeRequest(id, tag), responseType: 'none' });
  } catch (err) {
    throw await withCurrentTag(client, id, err, tag);
  }
}

/** Refreshes the reflections that depend on a physical dataset (204). */
export async function refresh(client: ApiClient, id: string): Promise<void> {
  await client.request({ ...refreshRequest(id), responseType: 'none' });
}

/** Promotes a file or folder of a filesystem source to a table ("format as table"). */
export function promote(
  client: ApiClient,
  id: string,
  entity: Record<string, unknown>,
): Promise<CatalogEntity> {
  return client.request({ ...promoteRequest(id, entity), schema: CatalogEntitySchema });
}

/** A stale tag on a write of entity `id`: the hint names the current tag. */
function withCurrentTag(client: ApiClient, id: string, err: unknown, sent: unknown): Promise<unknown> {
  return explainStaleTag(
    err,
    sent,
    () => getById(client, id, { exclude: ['children'] }),
    (current) => ({
      hint: `the entity changed since tag ${String(sent)} was read; its current tag is ${current.tag}: re-read it, apply the change again and send that tag`,
    }),
  );
}

// ── Collaboration: tags and wiki ────────────────────────────────────────────────────────────────────────

/**
 * The entity's tags, or undefined when it has none: the service answers "no tags" with a 404, so callers that
 * need to tell a missing entity apart look the entity up first.
 */
export async function getTags(client: ApiClient, id: string): Promise<Tags | undefined> {
  try {
    return await client.request({
      method: 'GET',
      at: ofEntity(id, 'collaboration/tag'),
      schema: TagsSchema,
      notFoundIsUndefined: true,
    });
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

/** Replaces the tags; `version` is the current one (none when the entity has no tags yet). */
export function setTags(
  client: ApiClient,
  id: string,
  tags: readonly string[],
  version?: string | number,
): Promise<Tags> {
  return client.request({ ...setTagsRequest(id, tags, version), schema: TagsSchema });
}

/** The wiki text, or undefined when there is none (a 404, as for tags). */
export async function getWiki(client: ApiClient, id: string): Promise<Wiki | undefined> {
  try {
    return await client.request({
      method: 'GET',
      at: ofEntity(id, 'collaboration/wiki'),
      schema: WikiSchema,
      notFoundIsUndefined: true,
    });
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

/** Replaces the wiki text; `version` must be the stored one (none for the first text). */
export function setWiki(
  client: ApiClient,
  id: string,
  text: string,
  version?: string | number,
): Promise<Wiki> {
  return client.request({ ...setWikiRequest(id, text, version), schema: WikiSchema });
}

// ── Entities written by users (--file) ──────────────────────────────────────────────────────────────────

/** An error message that tells a missing field from a wrong one. */
const expected = (what: string) => (issue: { input: unknown }) =>
  issue.input === undefined ? 'is required' : `must be ${what}`;
const names = z.array(z.string({ error: expected('a string') }), { error: expected('a list of strings') });
const text = () => z.string({ error: expected('a string') });
const object = z.record(z.string(), z.unknown(), { error: expected('an object') });

/** What `POST /catalog` accepts, checked before sending so that a wrong file costs no request. */
const NewEntitySchema = z.discriminatedUnion(
  'entityType',
  [
    z.looseObject({
      entityType: z.literal('space'),
      name: text().check(z.minLength(1, 'must not be empty')),
    }),
    z.looseObject({
      entityType: z.literal('folder'),
      path: names.check(z.minLength(2, 'must name the parent and the new folder')),
    }),
    z.discriminatedUnion(
      'type',
      [
        z.looseObject({
          entityType: z.literal('dataset'),
          type: z.literal('VIRTUAL_DATASET'),
          path: names.check(z.minLength(2, 'must name the container and the dataset')),
          sql: text().check(z.minLength(1, 'must not be empty')),
          sqlContext: z.optional(names),
        }),
        z.looseObject({
          entityType: z.literal('dataset'),
          type: z.literal('PHYSICAL_DATASET'),
          path: names.check(z.minLength(2, 'must name the file or folder to promote')),
          format: z.looseObject({ type: text() }, { error: expected('an object with a "type"') }),
        }),
      ],
      { error: 'must be VIRTUAL_DATASET (a view) or PHYSICAL_DATASET (a file or folder to promote)' },
    ),
    z.looseObject({
      entityType: z.literal('source'),
      name: text().check(z.minLength(1, 'must not be empty')),
      type: text(),
      config: z.optional(object),
    }),
  ],
  { error: 'must be one of space, folder, dataset, source' },
);

/** An update may carry any part of an entity; what it carries must have the right shape. */
const EntityPatchSchema = z.looseObject({
  entityType: z.optional(
    z.enum(['space', 'folder', 'dataset', 'source', 'home', 'file', 'function'], {
      error: 'must be one of space, folder, dataset, source',
    }),
  ),
  id: z.optional(text()),
  tag: z.optional(z.union([z.string(), z.number()], { error: expected('a string') })),
  name: z.optional(text()),
  path: z.optional(names),
  sql: z.optional(text()),
  sqlContext: z.optional(names),
  config: z.optional(object),
});

function checkEntity<T>(schema: z.ZodMiniType<T>, value: unknown, what: string): T {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`${what} is not a catalog entity: expected a JSON object`, {
      hint: { kind: 'entity-example' },
    });
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new UsageError(`${what} is not a catalog entity`, {
    details: parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(entity)'}: ${i.message}`),
    hint: 'an entity needs entityType and its fields, e.g. {"entityType": "space", "name": "Sales"}',
  });
}

/** A new entity (space, folder, view, table to promote, source); `what` names the input in messages. */
export function checkNewEntity(value: unknown, what: string): Record<string, unknown> {
  return checkEntity(NewEntitySchema, value, what) as Record<string, unknown>;
}

/** The changed fields of an existing entity. */
export function checkEntityPatch(value: unknown, what: string): Record<string, unknown> {
  return checkEntity(EntityPatchSchema, value, what) as Record<string, unknown>;
}

/**
 * An entity without what belongs to one reading of it (children, paging, health, the caller's permissions),
 * which is not sent back on update.
 */
export function editableFields(entity: Record<string, unknown>): Record<string, unknown> {
  const { children: _c, nextPageToken: _n, state: _s, permissions: _p, ...rest } = entity;
  return rest;
}

// ── The tree walk ───────────────────────────────────────────────────────────────────────────────────────

/** A listed item with, for the containers that were walked, their children. */
export type TreeNode<T = CatalogSummary> = T & { children?: TreeNode[] };

interface WalkOptions {
  /** Levels to show below the start (the top level counts as level 1); undefined walks everything. */
  depth?: number;
  /** Listing requests in flight at once (over the client's keep-alive connections). */
  concurrency: number;
  pageSize?: number;
  /** Called after each container is listed, e.g. to move a spinner. */
  onListed?: (count: number) => void;
}

/**
 * Lists every container below the start down to `depth`, at most `concurrency` requests at a time: from the
 * top-level items (`roots`, level 1) or from the children of one container (`id`, whose children are level 1).
 * Children keep the service's order. The first failing listing fails the walk, and no request starts after it.
 */
export async function walkTree(
  client: ApiClient,
  start: { roots: CatalogSummary[] } | { id: string },
  opts: WalkOptions,
): Promise<TreeNode[]> {
  const limit = limiter(opts.concurrency);
  const maxChildren = opts.pageSize ?? DEFAULT_PAGE_SIZE;
  /** The first failure: once set, no listing starts, and it is what the walk rejects with. */
  let failure: { error: unknown } | undefined;
  let listed = 0;
  const within = (level: number) => opts.depth === undefined || level <= opts.depth;
  const listBelow = async (id: string, level: number): Promise<TreeNode[]> => {
    const children: CatalogSummary[] = [];
    let pageToken: string | undefined;
    const tokens = new PageTokens(`the children of ${id}`);
    do {
      const page = await limit(async () => {
        if (failure) throw failure.error;
        try {
          return await getById(client, id, { maxChildren, pageToken });
        } catch (error) {
          // Recorded before the slot is handed on, so that no waiting listing starts.
          failure ??= { error };
          throw error;
        }
      });
      for (const child of page.children ?? []) children.push(child);
      try {
        pageToken = tokens.next(page.nextPageToken, page.children ?? []);
      } catch (error) {
        failure ??= { error };
        throw error;
      }
    } while (pageToken);
    opts.onListed?.(++listed);
    return Promise.all(children.map((c) => expand(c, level)));
  };
  const expand = async (node: CatalogSummary, level: number): Promise<TreeNode> =>
    node.type === 'CONTAINER' && within(level + 1)
      ? { ...node, children: await listBelow(node.id, level + 1) }
      : node;
  if ('id' in start) return within(1) ? listBelow(start.id, 1) : [];
  return Promise.all(start.roots.map((r) => expand(r, 1)));
}

/** Runs at most `max` tasks at once; a finished task hands its slot straight to the next waiting one. */
export function limiter(max: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    if (active < max) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}

/** `fn` over `items`, at most `max` at once, results in the order of `items`. */
export function mapConcurrent<T, R>(
  items: readonly T[],
  max: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const limit = limiter(max);
  return Promise.all(items.map((item) => limit(() => fn(item))));
}
