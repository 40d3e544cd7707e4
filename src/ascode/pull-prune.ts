// `pull --prune`: after a pull, the files of entities that no longer exist under what was pulled are removed.
// Only files pull itself writes are candidates (a definition where pull puts it: see fileFor); a file of
// another layout, a link, or no definition at all, is never touched. Without --prune, pull keeps them. The files
// are removed with the pull's writes, all or nothing (folder.ts, writeDefinitions).
import { resolve } from 'node:path';
import { type Definition, isAdminKind, type Kind } from './definitions.js';
import { pulledFiles } from './folder.js';
import { catalogKey } from './order.js';

/** The catalog path a definition is under: its own, a reflection's dataset's, a grant's entity's. */
export function catalogPathOf(def: Pick<Definition, 'kind' | 'path'>): string[] | undefined {
  if (!isAdminKind(def.kind)) return def.path;
  if (def.kind === 'reflection') return def.path.slice(0, -1);
  if (def.kind === 'grant') return def.path;
  return undefined;
}

/** Whether `path` is one of `roots` or lies below one (without regard to case, as the catalog). */
export function under(path: readonly string[], roots: readonly (readonly string[])[]): boolean {
  return roots.some(
    (root) => root.length <= path.length && catalogKey(path.slice(0, root.length)) === catalogKey(root),
  );
}

/**
 * The files under `dir` that pull writes, of a kind it pulled, for an entity under what it pulled (`roots`:
 * the REFs' paths, or undefined for every space and source), that this pull does not write (`written`).
 * Queues, the ruleset, users and roles belong to the whole service: theirs are stale whenever their kind was
 * pulled.
 */
export function staleFiles(
  dir: string,
  written: readonly string[],
  kinds: ReadonlySet<Kind>,
  roots: readonly (readonly string[])[] | undefined,
): string[] {
  const wrote = new Set(written.map((f) => resolve(f)));
  // On a file system that ignores case, a renamed entity's file is the one just written.
  const wroteAnyCase = new Set([...wrote].map((f) => f.toLowerCase()));
  return pulledFiles(dir)
    .filter(({ file, def }) => {
      const full = resolve(file);
      if (wrote.has(full) || wroteAnyCase.has(full.toLowerCase())) return false;
      if (isAdminKind(def.kind) && !kinds.has(def.kind)) return false;
      const path = catalogPathOf(def);
      if (path === undefined) return true;
      // Homes are never pulled, so no pull removes a file of one.
      return roots ? under(path, roots) : !path[0]!.startsWith('@');
    })
    .map(({ file }) => file)
    .sort();
}
