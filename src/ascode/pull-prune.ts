// `pull --prune`: after a pull, the files of entities that no longer exist under what was pulled are removed.
// Only files pull itself writes are candidates (a definition where pull puts it: see fileFor); a file of
// another layout, or no definition at all, is never touched. Without --prune, pull keeps them.
import { readdirSync, rmdirSync, unlinkSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { describeFsError } from '../util/files.js';
import { type Definition, isAdminKind, type Kind, pulledFiles } from './definitions.js';
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
 * the REFs' paths, or undefined for every space and source), that this pull did not write (`written`).
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

/** Removes the files, then each folder under `dir` they leave empty; returns their paths relative to `dir`. */
export function removeFiles(dir: string, files: readonly string[]): string[] {
  const top = resolve(dir);
  const folders = new Set<string>();
  for (const file of files) {
    try {
      unlinkSync(file);
    } catch (e) {
      throw new UsageError(`cannot remove ${file}: ${describeFsError(e)}`);
    }
    for (let d = dirname(resolve(file)); d.startsWith(`${top}/`) || d.startsWith(`${top}\\`); d = dirname(d))
      folders.add(d);
  }
  // Deepest first, so that a folder holding only emptied folders goes too.
  for (const folder of [...folders].sort((a, b) => b.length - a.length)) {
    try {
      if (readdirSync(folder).length === 0) rmdirSync(folder);
    } catch {
      // A folder that cannot be listed or removed stays; the files themselves are gone.
    }
  }
  return files.map((f) => relative(dir, f));
}
