// Reading the service into definitions: every space and source (or the given entities), what lies below them,
// and each one's tags and wiki. Folders inside a source are its data and are skipped; promoted datasets are not.
import * as catalog from '../api/catalog.js';
import type { ApiClient } from '../api/http.js';
import type { CatalogSummary } from '../api/schemas/catalog.js';
import type { CatalogRef } from '../util/catalog-ref.js';
import { type Definition, kindOf, TAGGABLE, toDefinition } from './definitions.js';

interface Candidate {
  id: string;
  path: string[];
  /** Inside a source: only promoted datasets are definitions. */
  inSource: boolean;
  /** A space, source or dataset, as listed: the kinds with tags (a folder has none). */
  taggable?: boolean;
}

/** The entities of a walked tree that may be definitions (prune reads them too). */
export function collect(nodes: catalog.TreeNode[], inSource: boolean, out: Candidate[]): void {
  for (const n of nodes) {
    const isSource = n.type === 'CONTAINER' && n.containerType === 'SOURCE';
    const isHome = n.type === 'CONTAINER' && n.containerType === 'HOME';
    if (isHome) continue;
    if (n.type === 'DATASET' || (n.type === 'CONTAINER' && !inSource))
      out.push({
        id: n.id,
        path: n.path,
        inSource,
        taggable: n.type === 'DATASET' || n.containerType === 'SPACE' || n.containerType === 'SOURCE',
      });
    if (n.children) collect(n.children, inSource || isSource, out);
  }
}

/**
 * The entity with its tags and wiki, as a definition (undefined for what is not one). The three reads go out
 * at once, since the listing already says whether the entity can have tags: one round trip per entity.
 */
async function readDefinition(client: ApiClient, c: Candidate): Promise<Definition | undefined> {
  const [entity, tags, wiki] = await Promise.all([
    catalog.getById(client, c.id, { exclude: ['children'] }),
    c.taggable ? catalog.getTags(client, c.id) : undefined,
    catalog.getWiki(client, c.id),
  ]);
  const kind = kindOf(entity);
  if (!kind || (c.inSource && kind !== 'dataset')) return undefined;
  const read = TAGGABLE.has(kind) ? tags : undefined;
  return toDefinition(entity, catalog.entityPath(entity), { tags: read?.tags, wiki: wiki?.text });
}

/**
 * Definitions of everything under `refs` (every space and source without), sorted by path; `roots`, when
 * given, receives the paths the refs name (what `pull --prune` may remove files below).
 */
export async function pullDefinitions(
  client: ApiClient,
  refs: readonly CatalogRef[],
  concurrency = 8,
  roots?: string[][],
): Promise<Definition[]> {
  const candidates: Candidate[] = [];
  if (refs.length === 0) {
    const top = (await catalog.listTopLevel(client)).filter(
      (s) => s.type === 'CONTAINER' && (s.containerType === 'SPACE' || s.containerType === 'SOURCE'),
    );
    collect(await catalog.walkTree(client, { roots: top }, { concurrency }), false, candidates);
  } else {
    for (const ref of refs) {
      const entity = await catalog.resolveRef(client, ref, { exclude: ['children'] });
      const root: CatalogSummary = {
        id: entity.id,
        path: catalog.entityPath(entity),
        type: entity.entityType === 'dataset' ? 'DATASET' : 'CONTAINER',
        containerType:
          entity.entityType === 'source' || entity.entityType === 'space'
            ? entity.entityType.toUpperCase()
            : undefined,
      };
      roots?.push(root.path);
      const below = catalog.isContainerEntity(entity)
        ? await catalog.walkTree(client, { id: entity.id }, { concurrency })
        : [];
      collect([{ ...root, children: below }], false, candidates);
    }
  }
  const unique = [...new Map(candidates.map((c) => [c.id, c])).values()];
  const defs = await catalog.mapConcurrent(unique, concurrency, (c) => readDefinition(client, c));
  return defs.filter((d): d is Definition => d !== undefined).sort((a, b) => comparePaths(a.path, b.path));
}

/** Component by component, a container before what it holds. */
export function comparePaths(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  }
  return a.length - b.length;
}
