// Where `pull` puts a definition in the definitions folder (docs/definitions-as-code.md, "Layout"): a path
// computed from the definition's kind and path alone, that never leaves the folder (every component is one file
// name). It imports nothing of the definitions, which use it (keepReferences).
import { join } from 'node:path';

/** A path component as a file name: what a file system or a shell would mistake is percent-encoded. */
function fileComponent(component: string): string {
  return component.replace(/[%/\\:*?"<>|\0-\x1f]|^\.|^$/g, (c) =>
    c === '' ? '%' : `%${c.charCodeAt(0).toString(16).padStart(2, '0').toUpperCase()}`,
  );
}

/** The folders of the admin kinds: names starting with a dot, which no catalog path gives (it is encoded). */
const ADMIN_FOLDER: Partial<Record<string, string>> = {
  queue: '.queues',
  reflection: '.reflections',
  grant: '.grants',
  user: '.users',
  role: '.roles',
};

/**
 * Where pull writes a definition: the catalog path as folders, the entity as `<last>.yaml`. The admin kinds
 * go under folders whose names start with a dot, which no catalog path gives (a leading `.` is encoded), so
 * they never collide with a catalog file: `.queues/<name>.yaml`, `.rules.yaml`,
 * `.reflections/<dataset path>/<name>.yaml`, `.grants/<entity path>.yaml`, `.users/<name>.yaml`,
 * `.roles/<name>.yaml`.
 */
export function fileFor(dir: string, def: { kind: string; path: readonly string[] }): string {
  if (def.kind === 'rule') return join(dir, '.rules.yaml');
  const parts = def.path.map(fileComponent);
  const under = ADMIN_FOLDER[def.kind];
  return join(dir, ...(under ? [under] : []), ...parts.slice(0, -1), `${parts.at(-1)}.yaml`);
}
