// `--prune`: the entities under the files' roots that no file names, as `delete` plan entries. A root is an
// entity a file names whose container no file names: after a full `pull`, every space and source; after
// `pull Sales/reports`, that folder. Nothing outside a root is ever a candidate, so a space or source is never
// pruned (they are roots, or outside every root), nor is a home, a source's folder or file, or anything that is
// no definition kind. A container that holds something a file names is kept. The admin kinds (queue, rule,
// reflection, grant) are never pruned and make no root, but the dataset a reflection file is on, or the entity a
// grant file is for, counts as named: deleting it would fail that file.
import * as catalog from '../api/catalog.js';
import type { ApiClient } from '../api/http.js';
import type { CatalogEntity } from '../api/schemas/catalog.js';
import { NotFoundError } from '../errors.js';
import { type Definition, isAdminKind, kindOf, toDefinition } from './definitions.js';
import type { PlanEntry } from './diff.js';
import { catalogKey, dependencies } from './order.js';
import { collect, comparePaths } from './pull.js';

/** The catalog path a definition names: its own, a reflection's dataset's, a grant's entity's; none for the rest. */
function catalogPath(def: Definition): string[] | undefined {
  if (!isAdminKind(def.kind)) return def.path;
  if (def.kind === 'reflection') return def.path.slice(0, -1);
  if (def.kind === 'grant') return def.path;
  return undefined;
}

/** The catalog definitions whose container no catalog definition names. */
function pruneRoots(defs: readonly Definition[]): Definition[] {
  const own = defs.filter((d) => !isAdminKind(d.kind));
  const named = new Set(own.map((d) => catalogKey(d.path)));
  return own.filter((d) => d.path.length === 1 || !named.has(catalogKey(d.path.slice(0, -1))));
}

interface Root {
  entity: CatalogEntity;
  /** Below a source only promoted datasets are definitions. */
  inSource: boolean;
}

const read = async (client: ApiClient, path: readonly string[]) => {
  try {
    return await catalog.getByPath(client, path, { exclude: ['children'] });
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
};

/**
 * The root as it is on the service, or undefined when it is not there yet or cannot hold definitions: only a
 * space, a source, or a folder in one of them (never a home or what is in it).
 */
async function readRoot(client: ApiClient, def: Definition): Promise<Root | undefined> {
  const entity = await read(client, def.path);
  const kind = entity && kindOf(entity);
  if (!entity || (kind !== 'space' && kind !== 'folder' && kind !== 'source')) return undefined;
  const top = def.path.length === 1 ? entity : await read(client, def.path.slice(0, 1));
  if (top?.entityType !== 'space' && top?.entityType !== 'source') return undefined;
  return { entity, inSource: top.entityType === 'source' };
}

/**
 * One `delete` entry per entity under a root that no file names, sorted by path. Each carries the entity as
 * read now (its tag, so that apply deletes that version only) and, for a view, its SQL (for the delete order).
 */
export async function planDeletes(
  client: ApiClient,
  defs: readonly Definition[],
  concurrency = 8,
): Promise<PlanEntry[]> {
  const paths = defs.map(catalogPath).filter((p): p is string[] => p !== undefined);
  const named = new Set(paths.map((p) => catalogKey(p)));
  // A container of something a file names stays, even when no file names the container itself.
  const holding = new Set(paths.flatMap((p) => p.slice(1).map((_, n) => catalogKey(p.slice(0, n + 1)))));
  const roots = (
    await catalog.mapConcurrent(pruneRoots(defs), concurrency, (d) => readRoot(client, d))
  ).filter((r): r is Root => r !== undefined);
  const candidates: Parameters<typeof collect>[2] = [];
  for (const root of roots) {
    const below = await catalog.walkTree(client, { id: root.entity.id }, { concurrency });
    collect(below, root.inSource, candidates);
  }
  const unnamed = candidates.filter(
    (c) => !named.has(catalogKey(c.path)) && !holding.has(catalogKey(c.path)),
  );
  const entries = await catalog.mapConcurrent(
    unnamed,
    concurrency,
    async (c): Promise<PlanEntry | undefined> => {
      let entity: CatalogEntity;
      try {
        entity = await catalog.getById(client, c.id, { exclude: ['children'] });
      } catch (err) {
        // Gone since the listing: nothing to delete.
        if (err instanceof NotFoundError) return undefined;
        throw err;
      }
      const kind = kindOf(entity);
      // Inside a source only promoted datasets are definitions; its folders and files are its data.
      if (!kind || (c.inSource && kind !== 'dataset')) return undefined;
      const def = toDefinition(entity, catalog.entityPath(entity), {});
      return def && { action: 'delete', def, changes: [], current: entity };
    },
  );
  return entries
    .filter((e): e is PlanEntry => e !== undefined)
    .sort((x, y) => comparePaths(x.def.path, y.def.path));
}

/**
 * Marks each delete with the views that remain (a file names them) and read it, by their SQL as apply orders
 * them (order.ts): deleting it would break them. A reader deleted in the same plan is no reader. Views that no
 * file names and that lie outside the files' roots are not seen.
 */
export function markBreaks(deletes: readonly PlanEntry[], defs: readonly Definition[]): void {
  const readers = defs.filter((d) => d.kind === 'view' && typeof d.fields.sql === 'string');
  const deps = dependencies([
    ...deletes.map((e) => ({ path: e.def.path })),
    ...readers.map((d) => ({
      path: d.path,
      sql: d.fields.sql as string,
      sqlContext: Array.isArray(d.fields.sqlContext) ? (d.fields.sqlContext as string[]) : undefined,
    })),
  ]);
  readers.forEach((reader, i) => {
    for (const m of deps[deletes.length + i]!) {
      const entry = deletes[m];
      if (!entry || isAncestor(entry.def.path, reader.path)) continue;
      entry.breaks ??= [];
      entry.breaks.push(reader.path);
    }
  });
  for (const e of deletes) e.breaks?.sort(comparePaths);
}

const isAncestor = (a: readonly string[], b: readonly string[]) =>
  a.length < b.length && catalogKey(a) === catalogKey(b.slice(0, a.length));
