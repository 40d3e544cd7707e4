// The plan for a folder of definition files, as `plan` shows it and `apply` carries it out: the files read, users
// and roles renamed (--map), what the edition cannot take set aside, scoped to the REFs given, `${env:…}`
// substituted, compared with the service, secrets sent again (--refresh-secrets) and deletes planned (--prune).
import type { ApiClient } from '../api/http.js';
import type { Root } from '../api/roots.js';
import { UsageError } from '../errors.js';
import { parseRef } from '../util/catalog-ref.js';
import { checkPathComponents, definitionLabel } from './definitions.js';
import type { PlanEntry } from './diff.js';
import { labelOf, portableTo } from './editions.js';
import { type FolderRead, readDefinitions } from './folder.js';
import { compareDefinitions, computePlan, failedEntry } from './plan.js';
import { checkReferences, substituteEnv } from './substitution.js';

/** The service a plan is made against, and where its warnings go. */
interface PlanWhere {
  /** Asked for once the files are read: a bad file is said before a missing login. */
  client(): Promise<ApiClient>;
  /** The edition and project in force (asked for after the files too). */
  root(): Root;
  env: NodeJS.ProcessEnv;
  warn(line: string): void;
}

/** What a plan is made from: the files, and the options of `plan` (and `apply`) that shape it. */
interface PlanInput {
  dir: string;
  prune?: true;
  map?: string;
  refreshSecrets?: true;
  /** Reads at once. */
  concurrency: number;
  /** Receives what was read of the folder (said with a plan that deletes). */
  read?: FolderRead;
}

/**
 * The plan for the files in `dir` (those under `refs`, when given); with `prune`, its deletes come first (see
 * planText). `${env:NAME}` values are substituted first (src/ascode/substitution.ts), so that the plan compares
 * what apply would send; a file whose variable is unset is an entry that failed (failedEntry), for that entity
 * alone, and one naming a variable it may not read is refused with the whole plan.
 */
export async function readPlan(
  where: PlanWhere,
  refs: readonly string[],
  opts: PlanInput,
): Promise<PlanEntry[]> {
  let defs = readDefinitions(opts.dir, opts.read);
  // A path that names no entity, or a reference the rule refuses, stops the whole plan, as a bad file does,
  // before the service is asked.
  for (const def of defs) checkPathComponents(def, def.file ?? definitionLabel(def));
  checkReferences(defs, where.env);
  if (opts.map !== undefined) {
    const { applyNameMap, readNameMap, unusedNames } = await import('./mapping.js');
    const map = readNameMap(opts.map);
    defs = applyNameMap(defs, map);
    const unused = unusedNames(map);
    if (unused.length) where.warn(`no file names the ${unused.join(', ')} of ${opts.map}`);
  }
  // Files pulled from the other edition: what this one cannot take is set aside, each with why.
  const portable = portableTo(where.root(), defs);
  defs = portable.defs;
  for (const s of portable.setAside) where.warn(`not carried over: ${labelOf(s.def)} (${s.reason})`);
  const client = await where.client();
  let scoped = defs;
  if (refs.length) {
    const { inTargets, outsideDependencies, targetPaths } = await import('./targets.js');
    const targets = await targetPaths(client, refs.map(parseRef));
    scoped = inTargets(defs, targets);
    if (scoped.length === 0) where.warn(`no file defines anything under ${refs.join(', ')}`);
    for (const line of await outsideDependencies(client, defs, scoped)) where.warn(line);
  }
  const failed: PlanEntry[] = [];
  const resolved = scoped.flatMap((def) => {
    try {
      return [substituteEnv(def, where.env)];
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      failed.push(failedEntry(def, err));
      return [];
    }
  });
  let writes = await computePlan(client, resolved, opts.concurrency);
  if (opts.refreshSecrets) {
    const { withSecretsRefreshed } = await import('./secrets.js');
    writes = await withSecretsRefreshed(client, resolved, writes);
  }
  writes = [...writes, ...failed].sort((x, y) => compareDefinitions(x.def, y.def));
  if (!opts.prune) return writes;
  const { markBreaks, planDeletes } = await import('./prune.js');
  const { planPrincipalDeletes, principalReader } = await import('./principals.js');
  const deletes = await planDeletes(client, scoped, opts.concurrency);
  // The views that remain are every file's, in scope or not.
  markBreaks(deletes, defs);
  return [...deletes, ...(await planPrincipalDeletes(principalReader(client), scoped)), ...writes];
}
