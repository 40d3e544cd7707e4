// Comparing definitions with the service: one entry per entity to create or update, field by field. What was
// read (id, tag, tag and wiki versions) stays in the entry, so that apply writes against that version only.
import * as catalog from '../api/catalog.js';
import type { ApiClient } from '../api/http.js';
import type { CatalogEntity } from '../api/schemas/catalog.js';
import { NotFoundError } from '../errors.js';
import { adminPlanner } from './admin-kinds.js';
import { ADMIN_KINDS, type Definition, isAdminKind, kindOf, TAGGABLE, toDefinition } from './definitions.js';
import { type Change, diffFields, type EntityReader, isObject, type PlanEntry } from './diff.js';
import { catalogKey } from './order.js';
import { comparePaths } from './pull.js';
import { secretFields } from './secret-fields.js';

/**
 * What the service has, less what the file does not manage: a field the file leaves out (at any depth of its
 * objects: `config.port`, `format.fieldDelimiter`, `metadataPolicy`) keeps the service's value, so it is not
 * compared. Tags and wiki are always compared: left out, they are none.
 */
function managedBy(have: Record<string, unknown>, want: Record<string, unknown>, top = true) {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(have)) {
    if (top && (key === 'tags' || key === 'wiki')) out[key] = value;
    else if (!(key in want)) continue;
    else if (isObject(value) && isObject(want[key])) out[key] = managedBy(value, want[key], false);
    else out[key] = value;
  }
  return out;
}

/** A planning that could not be made, e.g. an `${env:NAME}` that is not set: apply fails it, and what needs it. */
export function failedEntry(def: Definition, error: Error): PlanEntry {
  return { action: 'update', def, changes: [], error };
}

function entityReader(client: ApiClient): EntityReader {
  const reads = new Map<string, Promise<CatalogEntity>>();
  return (path) => {
    const key = catalogKey(path);
    let read = reads.get(key);
    if (!read) {
      read = catalog.getByPath(client, path, { exclude: ['children'] });
      // Marked as handled here: each caller handles the rejection it is given.
      read.catch(() => undefined);
      reads.set(key, read);
    }
    return read;
  };
}

/** What a definition says, flattened for comparison; secrets cannot be compared and are left out. */
function comparable(def: Definition): Record<string, unknown> {
  const fields = { ...def.fields };
  if (def.kind === 'source' && isObject(fields.config)) {
    const config = { ...fields.config };
    for (const name of secretFields(fields.type)) delete config[name];
    fields.config = config;
  }
  return { ...fields, tags: def.tags ?? [], wiki: def.wiki ?? '' };
}

function withoutEmpty(changes: Change[]): Change[] {
  return changes.map((c) => {
    const out: Change = { field: c.field };
    if (
      c.from !== undefined &&
      !(c.field === 'wiki' && c.from === '') &&
      !(c.field === 'tags' && Array.isArray(c.from) && c.from.length === 0)
    )
      out.from = c.from;
    if (
      c.to !== undefined &&
      !(c.field === 'wiki' && c.to === '') &&
      !(c.field === 'tags' && Array.isArray(c.to) && c.to.length === 0)
    )
      out.to = c.to;
    return out;
  });
}

function creation(def: Definition): PlanEntry {
  // No tags and no wiki are nothing to show (not `tags: undefined`).
  const changes = withoutEmpty(diffFields({}, comparable(def))).filter((c) => 'to' in c);
  return { action: 'create', def, changes };
}

/** The changes of an update: what `def` says against what was found (`found`, as a definition). */
function updateChanges(def: Definition, found: Definition | undefined): Change[] {
  if (found && found.kind !== def.kind) return [{ field: 'kind', from: found.kind, to: def.kind }];
  const want = comparable(def);
  const have = found ? managedBy(comparable(found), want) : {};
  return withoutEmpty(diffFields(have, want));
}

/**
 * The changes a saved catalog entry's `def` makes, from it and what was read when planning (`current`), as
 * planOne derived them: what `apply --plan` shows is then what it sends (saved-plan.ts). The tags and the
 * wiki, which the plan keeps only the versions of, are taken from the saved changes' `from` (unchanged when
 * none names them). Undefined for the admin kinds, derived by their own modules from what they read.
 */
export function derivedCatalogChanges(entry: PlanEntry): Change[] | undefined {
  const { def } = entry;
  if (isAdminKind(def.kind) || entry.action === 'delete') return undefined;
  if (entry.action === 'create') return creation(def).changes;
  if (!entry.current) return undefined;
  const saved = (field: string, otherwise: unknown) => {
    const c = entry.changes.find((x) => x.field === field);
    return c ? c.from : otherwise;
  };
  const tags = saved('tags', def.tags ?? []) as string[] | undefined;
  const wiki = saved('wiki', def.wiki ?? '') as string | undefined;
  const found = toDefinition(entry.current, def.path, { tags: tags ?? [], wiki: wiki ?? '' });
  return updateChanges(def, found);
}

/** `missing` collects the paths found absent. */
async function planOne(
  client: ApiClient,
  read: EntityReader,
  def: Definition,
  missing: Set<string>,
): Promise<PlanEntry | undefined> {
  let current: CatalogEntity;
  try {
    current = await read(def.path);
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    missing.add(catalogKey(def.path));
    return creation(def);
  }
  const kind = kindOf(current);
  // A file or folder of a source that is not promoted yet: a dataset definition creates it by promotion.
  if (
    kind === undefined &&
    def.kind === 'dataset' &&
    (current.entityType === 'file' || current.entityType === 'folder')
  ) {
    return creation(def);
  }
  const [tags, wiki] = await Promise.all([
    kind && TAGGABLE.has(kind) ? catalog.getTags(client, current.id) : undefined,
    catalog.getWiki(client, current.id),
  ]);
  const found = toDefinition(current, def.path, { tags: tags?.tags, wiki: wiki?.text });
  if (found && found.kind !== def.kind) {
    return { action: 'update', def, current, changes: updateChanges(def, found) };
  }
  const changes = updateChanges(def, found);
  if (changes.length === 0) return undefined;
  return { action: 'update', def, changes, current, tagsVersion: tags?.version, wikiVersion: wiki?.version };
}

/**
 * The changes that would make the service match `defs`, in plan order (compareDefinitions). What lies below a
 * container found absent is absent too and is not read: applying into an empty service reads only its spaces
 * and sources.
 */
export async function computePlan(
  client: ApiClient,
  defs: readonly Definition[],
  concurrency = 8,
): Promise<PlanEntry[]> {
  const read = entityReader(client);
  const planAdmin = adminPlanner(client, read);
  const limit = catalog.limiter(concurrency);
  const missing = new Set<string>();
  const planned = new Map<string, Promise<unknown>>();
  const nearestDefined = (path: readonly string[]) => {
    for (let n = path.length - 1; n >= 1; n--) {
      const key = catalogKey(path.slice(0, n));
      const found = planned.get(key);
      if (found) return { key, found };
    }
    return undefined;
  };
  // Containers before their contents, so that each finds its container's read under way.
  const ordered = [...defs].sort((x, y) => comparePaths(x.path, y.path));
  const entries = await Promise.all(
    ordered.map((def) => {
      if (isAdminKind(def.kind)) return limit(() => planAdmin(def));
      const container = nearestDefined(def.path);
      const task = (async () => {
        if (container) {
          await container.found.catch(() => undefined);
          if (missing.has(container.key)) {
            missing.add(catalogKey(def.path));
            return creation(def);
          }
        }
        return limit(() => planOne(client, read, def, missing));
      })();
      planned.set(catalogKey(def.path), task);
      return task;
    }),
  );
  return entries
    .filter((e): e is PlanEntry => e !== undefined)
    .sort((x, y) => compareDefinitions(x.def, y.def));
}

/** The catalog's entities by path, then the admin kinds (queues, the ruleset, reflections, grants) by path. */
export function compareDefinitions(a: Definition, b: Definition): number {
  const rank = (d: Definition) => (isAdminKind(d.kind) ? 1 + ADMIN_KINDS.indexOf(d.kind) : 0);
  return rank(a) - rank(b) || comparePaths(a.path, b.path);
}

/** The plan as `-o json` prints it. */
export function planJson(plan: readonly PlanEntry[]) {
  return plan.map((e) => ({
    action: e.action,
    kind: e.def.kind,
    path: e.def.path,
    changes: e.changes,
    ...(e.error ? { error: e.error.message } : {}),
    ...(e.breaks?.length ? { breaks: e.breaks } : {}),
    ...(e.secrets?.length ? { secrets: e.secrets } : {}),
  }));
}
