// What a plan is made of, apart from how it is made (plan.ts) so that every kind's module can use it without
// importing the planner: an entry per entity to create, update or delete, field-by-field changes, and the
// comparison that finds them.
import type { CatalogEntity } from '../api/schemas/catalog.js';
import type { Definition } from './definitions.js';

export interface Change {
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
  /** Set when the entity could not be planned (failedEntry): apply reports it as failed and writes nothing. */
  error?: Error;
  /** A delete (`--prune`): the views that remain and read it, which it would break (prune.ts). */
  breaks?: string[][];
  /** A source's `${env:…}` secrets sent again (`--refresh-secrets`), by field name; never their values. */
  secrets?: string[];
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The lists whose order the API gives a meaning, compared item by item in order: a view's `sqlContext` (a path),
 * the ruleset's `rules` (their priority), a reflection's `sortFields` and `partitionFields` (the sort and the
 * partition hierarchy). Any other list (tags, a reflection's display, dimension and measure fields, a measure's
 * `measureTypeList`, a source's host lists) is compared as a set (docs/cli-contract.md, "Definitions as code").
 */
const ORDERED_LISTS: ReadonlySet<string> = new Set(['sqlContext', 'rules', 'sortFields', 'partitionFields']);

/**
 * A value as one string whatever the order of its keys, at every depth; `key` is the name the value has in its
 * object, which says whether a list's order counts (ORDERED_LISTS). Absent (undefined) members are no members.
 */
function canonical(value: unknown, key = ''): string {
  if (Array.isArray(value)) {
    const items = value.map((v) => canonical(v ?? null));
    if (!ORDERED_LISTS.has(key)) items.sort();
    return `[${items.join(',')}]`;
  }
  if (isObject(value)) {
    const members = Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k], k)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

/**
 * Field-by-field differences; objects are compared member by member, anything else as a whole, in a canonical
 * form: the order of an object's keys never counts, a list's order only where the API gives it a meaning.
 */
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
    else if (canonical(a, key) !== canonical(b, key)) {
      changes.push({ field, ...(a === undefined ? {} : { from: a }), ...(b === undefined ? {} : { to: b }) });
    }
  }
  return changes;
}

/**
 * One read per catalog path for a whole plan: an entity's own plan, its reflections' and its grants' share it,
 * so a plan reads no entity twice. A path found absent is a NotFoundError each time it is asked for.
 */
export type EntityReader = (path: readonly string[]) => Promise<CatalogEntity>;
