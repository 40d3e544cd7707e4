// Comparing definitions with the service: one entry per entity to create or update, field by field. What was
// read (id, tag, tag and wiki versions) stays in the entry, so that apply writes against that version only.
import * as catalog from '../api/catalog.js';
import type { ApiClient } from '../api/http.js';
import type { CatalogEntity } from '../api/schemas.js';
import { NotFoundError } from '../errors.js';
import { adminPlanner } from './admin-kinds.js';
import {
  ADMIN_KINDS,
  type Definition,
  isAdminKind,
  kindOf,
  secretFields,
  TAGGABLE,
  toDefinition,
} from './definitions.js';
import { catalogKey } from './order.js';
import { comparePaths } from './pull.js';

interface Change {
  /** Dotted: `sql`, `config.port`, `tags`. */
  field: string;
  from?: unknown;
  to?: unknown;
}

export interface PlanEntry {
  action: 'create' | 'update' | 'delete';
  /** For a delete (`--prune`): the entity as read from the service. */
  def: Definition;
  changes: Change[];
  /** Updates and deletes: the entity as read when planning. */
  current?: CatalogEntity;
  tagsVersion?: string | number;
  wikiVersion?: string | number;
  /** Admin kinds: what was read when planning (the queue, the ruleset, the reflection, the grants). */
  state?: unknown;
  /** A source's `${env:…}` secrets sent again (`--refresh-secrets`), by field name; never their values. */
  secrets?: string[];
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Field-by-field differences; objects are compared member by member, anything else as a whole. */
export function diffFields(
  from: Record<string, unknown>,
  to: Record<string, unknown>,
  prefix = '',
): Change[] {
  const changes: Change[] = [];
  for (const key of [...new Set([...Object.keys(from), ...Object.keys(to)])].sort()) {
    const a = from[key];
    const b = to[key];
    const field = prefix + key;
    if (isObject(a) && isObject(b)) changes.push(...diffFields(a, b, `${field}.`));
    else if (JSON.stringify(a) !== JSON.stringify(b)) {
      changes.push({ field, ...(a === undefined ? {} : { from: a }), ...(b === undefined ? {} : { to: b }) });
    }
  }
  return changes;
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

/** `missing` collects the paths found absent. */
async function planOne(
  client: ApiClient,
  def: Definition,
  missing: Set<string>,
): Promise<PlanEntry | undefined> {
  let current: CatalogEntity;
  try {
    current = await catalog.getByPath(client, def.path, { exclude: ['children'] });
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
  const read = toDefinition(current, def.path, { tags: tags?.tags, wiki: wiki?.text });
  const have = read ? comparable(read) : {};
  if (def.kind === 'source' && isObject(have.config) && isObject(def.fields.config)) {
    // Config fields the file leaves out are not managed by it (the service fills in defaults).
    const want = def.fields.config;
    have.config = Object.fromEntries(Object.entries(have.config).filter(([k]) => k in want));
  }
  if (def.kind === 'source' && def.fields.metadataPolicy === undefined) delete have.metadataPolicy;
  if (read && read.kind !== def.kind) {
    return {
      action: 'update',
      def,
      current,
      changes: [{ field: 'kind', from: read.kind, to: def.kind }],
    };
  }
  const changes = withoutEmpty(diffFields(have, comparable(def)));
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
  const planAdmin = adminPlanner(client);
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
        return limit(() => planOne(client, def, missing));
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
    ...(e.secrets?.length ? { secrets: e.secrets } : {}),
  }));
}
