// Collaboration data on catalog entities: labels (`…/collaboration/tag`, docs/api-facts.md §5.10) and wiki
// (`…/collaboration/wiki`, §5.11), each versioned on its own, apart from the entity's tag.
import type { CatalogNode, CatalogStore } from './catalog-store.js';
import { nodePath } from './catalog-store.js';
import { asObject, invalidAt, requireWrite } from './catalog-write.js';
import { badRequest, conflict, type EmuResponse, notFound, ok, type Principal } from './http.js';
import { newTag } from './state.js';

const MAX_TAG_LENGTH = 128;
const MAX_WIKI_LENGTH = 100_000;

/**
 * An unknown id. docs/api-facts.md §5.10 says the service answers 400 here (an IllegalArgumentException); the
 * spec lists "404 (entity missing …)" for both reads, and the spec wins: 404, with the service's text.
 */
function resolve(store: CatalogStore, id: string): CatalogNode {
  const node = store.resolveId(id);
  if (!node) throw notFound(`Could not find entity with id [${id}].`);
  return node;
}

/**
 * Spec vs server (docs/api-facts.md §5.10): per the server, only views and tables take labels (`Labels may
 * only be set on views and tables.`); the spec says "only source, space, dataset can", and wins. Folders,
 * homes and unpromoted files get the 400, with the service's message widened to the spec's set.
 */
function labelTarget(store: CatalogStore, id: string): { key: string; path: string[] } {
  const node = resolve(store, id);
  const kind = node.kind === 'entity' ? node.entity.kind : node.kind;
  if (node.kind !== 'entity' || !['source', 'space', 'dataset'].includes(kind)) {
    throw badRequest('Labels may only be set on views, tables, spaces and sources.');
  }
  return { key: node.entity.id, path: node.entity.path };
}

/**
 * Spec vs server (docs/api-facts.md §5.10): per the server, a GET before any labels answers `{tags: []}`; the
 * spec says 404 for "entity missing or no tags". The spec wins: 404 `No tags found for entity [<id>]`.
 */
export function getLabels(store: CatalogStore, id: string): EmuResponse {
  const { key } = labelTarget(store, id);
  const labels = store.labels.get(key);
  if (!labels) throw notFound(`No tags found for entity [${id}]`);
  return ok({ tags: labels.tags, version: labels.version });
}

export function setLabels(store: CatalogStore, p: Principal, id: string, body: unknown): EmuResponse {
  const { key, path } = labelTarget(store, id);
  requireWrite(store, p, path);
  const b = asObject(body);
  const tags = b.tags ?? [];
  if (!Array.isArray(tags)) throw invalidAt('tags');
  const seen = new Set<string>();
  tags.forEach((t, i) => {
    if (typeof t !== 'string') throw invalidAt(`tags[${i}]`);
    if (t.length > MAX_TAG_LENGTH) {
      throw badRequest(
        `Tags must be at most 128 characters in length, but found [${t}] which is [${t.length}] long.`,
      );
    }
    // Labels are case-insensitive (docs): `Prod` and `prod` are the same label.
    if (seen.has(t.toLowerCase())) {
      throw badRequest(`Tags must be unique but found multiple instances of [${t}].`);
    }
    seen.add(t.toLowerCase());
  });
  const current = store.labels.get(key);
  if (current) {
    // The versioned KV store's texts: no version means "create", which clashes with the stored record.
    if (b.version == null) throw conflict(`Tried to create, found tag ${current.version}`);
    if (String(b.version) !== current.version) {
      throw conflict(`Tried to update version ${String(b.version)}, found tag ${current.version}`);
    }
  }
  // With no labels stored, a stray `version` is ignored (the spec is silent; lenient like a first wiki save).
  if (tags.length === 0) {
    // Clearing removes the record, so the next GET is the spec's "no tags" 404 and the next POST needs no version.
    store.labels.delete(key);
    return ok({ tags: [] });
  }
  const saved = { tags: [...(tags as string[])], version: newTag() };
  store.labels.set(key, saved);
  return ok({ tags: saved.tags, version: saved.version });
}

/** Wiki text may sit on any entity (docs: source, space, dataset; the source code: any namespace entity). */
function wikiTarget(store: CatalogStore, id: string): { key: string; path: string[] } {
  const node = resolve(store, id);
  return { key: node.kind === 'entity' ? node.entity.id : id, path: nodePath(node) };
}

/**
 * Spec vs server (docs/api-facts.md §5.11): per the server, a GET before any wiki answers `{text: ""}`; the
 * spec says 404 for "entity missing or no wiki". The spec wins: 404 `No wiki found for entity [<id>]`.
 */
export function getWiki(store: CatalogStore, id: string): EmuResponse {
  const { key } = wikiTarget(store, id);
  const wiki = store.wikis.get(key);
  if (!wiki) throw notFound(`No wiki found for entity [${id}]`);
  return ok({ text: wiki.text, version: wiki.version });
}

export function setWiki(store: CatalogStore, p: Principal, id: string, body: unknown): EmuResponse {
  const { key, path } = wikiTarget(store, id);
  requireWrite(store, p, path);
  const b = asObject(body);
  const text = b.text ?? '';
  if (typeof text !== 'string') throw invalidAt('text');
  if (text.length > MAX_WIKI_LENGTH) {
    throw badRequest(`Wiki text can not contain more than 100K characters but found [${text.length}].`);
  }
  const current = store.wikis.get(key);
  let version = 0; // the first save ignores `version` and stores 0
  if (current) {
    // Jackson binds "3" and 3 alike to the Long version; anything else is a mismatch, as is a missing one.
    const given = typeof b.version === 'string' && /^\d+$/.test(b.version) ? Number(b.version) : b.version;
    if (given !== current.version) {
      const shown = given == null ? 'null' : String(given);
      throw conflict(
        `The provided version [${shown}] does not match the stored version [${current.version}].`,
      );
    }
    version = current.version + 1;
  }
  store.wikis.set(key, { text, version });
  return ok({ text, version });
}
