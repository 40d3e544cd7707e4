// `plan REF…` and `apply REF…`: only the entities under the REFs are planned (and, with --prune, pruned). Every
// file is still read: a planned entity that reads, or lies in, an entity a file defines outside the REFs that
// does not exist yet is named in a warning, since apply cannot write it first.
import * as catalog from '../api/catalog.js';
import type { ApiClient } from '../api/http.js';
import { type CatalogRef, formatPath } from '../util/catalog-ref.js';
import { type Definition, isAdminKind } from './definitions.js';
import { dependencies } from './order.js';
import { computePlan } from './plan.js';
import { catalogPathOf, under } from './pull-prune.js';

/** The REFs as catalog paths: a path as written, an id as the service names its entity. */
export async function targetPaths(client: ApiClient, refs: readonly CatalogRef[]): Promise<string[][]> {
  return Promise.all(
    refs.map(async (ref) =>
      ref.kind === 'path'
        ? ref.path
        : catalog.entityPath(await catalog.getById(client, ref.id, { exclude: ['children'] })),
    ),
  );
}

/**
 * The definitions under the targets: catalog entities, and the reflections and grants of those. Queues, the
 * ruleset, users and roles have no catalog path, so they are left out whenever REFs are given.
 */
export function inTargets(defs: readonly Definition[], targets: readonly string[][]): Definition[] {
  return defs.filter((d) => {
    const path = catalogPathOf(d);
    return path !== undefined && under(path, targets);
  });
}

/** One sentence per planned entity that needs an entity outside the targets that does not exist yet. */
export async function outsideDependencies(
  client: ApiClient,
  all: readonly Definition[],
  planned: readonly Definition[],
): Promise<string[]> {
  const own = all.filter((d) => !isAdminKind(d.kind));
  const deps = dependencies(
    own.map((d) => ({
      path: d.path,
      sql: typeof d.fields.sql === 'string' ? d.fields.sql : undefined,
      sqlContext: Array.isArray(d.fields.sqlContext) ? (d.fields.sqlContext as string[]) : undefined,
    })),
  );
  const inScope = new Set(planned);
  const needs = new Map<number, number[]>();
  own.forEach((d, i) => {
    if (!inScope.has(d)) return;
    for (const j of deps[i]!) {
      if (inScope.has(own[j]!)) continue;
      needs.set(j, [...(needs.get(j) ?? []), i]);
    }
  });
  if (needs.size === 0) return [];
  const outside = [...needs.keys()].map((j) => own[j]!);
  const absent = new Set(
    (await computePlan(client, outside)).filter((e) => e.action === 'create').map((e) => e.def),
  );
  const lines: string[] = [];
  for (const [j, dependents] of needs) {
    const dep = own[j]!;
    if (!absent.has(dep)) continue;
    for (const i of dependents) {
      const d = own[i]!;
      const inside = under(d.path, [dep.path]);
      lines.push(
        `${formatPath(d.path)} ${inside ? 'lies in' : 'reads'} ${formatPath(dep.path)}, which a file defines outside the REFs and the service does not have yet: add ${formatPath(dep.path)} to the REFs, or apply will fail for it`,
      );
    }
  }
  return lines;
}
