// Carrying a plan out: each entity as soon as what it depends on is written, several at once, each failure kept
// for the end rather than stopping the rest. Updates and deletes send the tag (and tag and wiki versions) read when
// planning, so an entity changed since is a conflict for it alone. Deletes (`--prune`) come after every create
// and update, in the reverse order: contents before their container, a view before the views it reads.
import * as catalog from '../api/catalog.js';
import type { ApiClient } from '../api/http.js';
import { entityUpdateBody } from '../api/sources.js';
import { ConflictError, DlakeError, ExitCode, UsageError } from '../errors.js';
import { formatPath } from '../util/catalog-ref.js';
import { adminOrder, applyAdmin } from './admin-kinds.js';
import { type Definition, definitionLabel, isAdminKind } from './definitions.js';
import type { PlanEntry } from './diff.js';
import { dependencies, runGraph } from './order.js';
import { secretFields } from './secret-fields.js';
import { resolveSecrets } from './substitution.js';

export interface ApplyResult {
  entry: PlanEntry;
  /** A failure, or a SkippedError: not tried, since what it depends on failed. */
  error?: unknown;
  /** Not started: the apply was stopped (a signal) before its turn. */
  notStarted?: boolean;
}

/**
 * An entry not tried because one it depends on (its container, what its SQL reads, a reflection's dataset, a
 * grant's entity; for a delete, what reads it) failed: it would only fail in its turn, for a reason that says
 * less ("Table not found"). Its exit code is that of the failure.
 */
export class SkippedError extends DlakeError {
  override readonly exitCode: number;

  constructor(
    readonly failed: PlanEntry,
    readonly failure: unknown,
  ) {
    const why = failure instanceof Error ? failure.message : String(failure);
    super(`skipped: ${definitionLabel(failed.def)}, which it depends on, failed (${why})`);
    this.exitCode = failure instanceof DlakeError ? failure.exitCode : ExitCode.bug;
  }
}

interface ApplyOptions {
  concurrency: number;
  env: Record<string, string | undefined>;
  /** Called when an entity's write starts. */
  onStart?: (entry: PlanEntry) => void;
  /** Called after each entity, e.g. to move a progress line. */
  onDone?: (result: ApplyResult) => void;
  /** Extra rounds for views that failed, in case they read something that was written after them. */
  retryRounds?: number;
  /** Aborted (a signal): no entity starts after, the writes under way finish. */
  stop?: AbortSignal;
}

function newEntity(def: Definition, fields: Record<string, unknown>): Record<string, unknown> {
  switch (def.kind) {
    case 'space':
      return { entityType: 'space', name: def.path[0] };
    case 'folder':
      return { entityType: 'folder', path: def.path };
    case 'view':
      return { entityType: 'dataset', type: 'VIRTUAL_DATASET', path: def.path, ...fields };
    case 'dataset':
      return { entityType: 'dataset', type: 'PHYSICAL_DATASET', path: def.path, ...fields };
    case 'source':
      return { entityType: 'source', name: def.path[0], ...fields };
    default:
      throw new Error(`not a catalog kind: ${def.kind}`);
  }
}

const ENTITY_FIELDS = (e: PlanEntry) =>
  Boolean(e.secrets?.length) || e.changes.some((c) => c.field !== 'tags' && c.field !== 'wiki');

/**
 * Deletes the entity read when planning. A container's tag does not change when its contents do, so a container
 * is first checked to be empty (its listed contents were deleted before it): one holding anything else, added
 * meanwhile or no definition, is a conflict, since deleting it would take that along.
 */
async function deleteOne(client: ApiClient, entry: PlanEntry): Promise<void> {
  const current = entry.current!;
  if (catalog.isContainerEntity(current)) {
    const listing = await catalog.getById(client, current.id, { maxChildren: 1 });
    const left = listing.children?.[0];
    if (left) {
      throw new ConflictError(
        `not deleted: it holds ${formatPath(left.path)}, which the plan does not delete`,
        { hint: 'plan again with --prune to see what is there now' },
      );
    }
  }
  await catalog.remove(client, current.id, current.tag);
}

async function applyOne(client: ApiClient, entry: PlanEntry, env: ApplyOptions['env']): Promise<void> {
  if (entry.error) throw entry.error;
  const { def } = entry;
  if (isAdminKind(def.kind)) return applyAdmin(client, entry);
  if (entry.action === 'delete') return deleteOne(client, entry);
  const fields = resolveSecrets(def, env);
  const secrets = def.kind === 'source' ? secretFields(fields.type) : undefined;
  let id: string;
  if (entry.action === 'create') {
    const body = newEntity(def, fields);
    if (def.kind === 'dataset') {
      const target = await catalog.getByPath(client, def.path, { exclude: ['children'] });
      id = (await catalog.promote(client, target.id, body)).id;
    } else {
      id = (await catalog.create(client, body, secrets)).id;
    }
    await Promise.all([
      def.tags?.length ? catalog.setTags(client, id, def.tags) : undefined,
      def.wiki ? catalog.setWiki(client, id, def.wiki) : undefined,
    ]);
    return;
  }
  const current = entry.current!;
  id = current.id;
  if (entry.changes.some((c) => c.field === 'kind')) {
    throw new UsageError(
      `${formatPath(def.path)} is a ${entry.changes[0]!.from} on the service, not a ${def.kind}`,
    );
  }
  if (ENTITY_FIELDS(entry)) {
    const patch: Record<string, unknown> = { ...fields, tag: current.tag };
    if (def.kind === 'source' && typeof fields.config === 'object') {
      // Config fields the file leaves out keep their values; secrets it leaves out keep theirs.
      patch.config = { ...(current.config ?? {}), ...(fields.config as Record<string, unknown>) };
    }
    await catalog.update(client, id, entityUpdateBody(current, patch), secrets);
  }
  await Promise.all([
    entry.changes.some((c) => c.field === 'tags')
      ? catalog.setTags(client, id, def.tags ?? [], entry.tagsVersion)
      : undefined,
    entry.changes.some((c) => c.field === 'wiki')
      ? catalog.setWiki(client, id, def.wiki ?? '', entry.wikiVersion)
      : undefined,
  ]);
}

/**
 * Applies every entry; the results come back in the order they were started, failures included, then those
 * skipped for a failure and (after `stop`) those not started.
 */
export async function applyPlan(
  client: ApiClient,
  plan: readonly PlanEntry[],
  opts: ApplyOptions,
): Promise<ApplyResult[]> {
  const attempt = async (entry: PlanEntry, blocker: ApplyResult | undefined): Promise<ApplyResult> => {
    if (opts.stop?.aborted) return { entry, notStarted: true };
    let result: ApplyResult;
    if (blocker) {
      // Named by the failure itself, not by an entry skipped for it.
      const { error } = blocker;
      result = {
        entry,
        error:
          error instanceof SkippedError
            ? new SkippedError(error.failed, error.failure)
            : new SkippedError(blocker.entry, error),
      };
    } else {
      try {
        opts.onStart?.(entry);
        await applyOne(client, entry, opts.env);
        result = { entry };
      } catch (error) {
        result = { entry, error };
      }
    }
    opts.onDone?.(result);
    return result;
  };
  const run = (entries: PlanEntry[], reverse = false) => {
    const deps = dependencyGraph(entries, reverse);
    const done: ApplyResult[] = [];
    return runGraph(deps, opts.concurrency, async (n) => {
      // What it depends on that is missing for it: a create that failed or was skipped, a delete (of what reads
      // it) that did not happen, an entity that could not be planned. An update that failed leaves its entity
      // there, so what depends on it is still tried. None when a cycle made it start first.
      const blocker = [...deps[n]!]
        .map((m) => done[m])
        .find((r) => r?.error !== undefined && (r.entry.action !== 'update' || r.entry.error !== undefined));
      done[n] = await attempt(entries[n]!, blocker);
      return done[n];
    });
  };
  const results = await run(plan.filter((e) => e.action !== 'delete'));
  // A view whose reference could not be read from its SQL may have failed for a dependency written after it;
  // what was skipped for a failure is tried again with it.
  for (let round = 0; round < (opts.retryRounds ?? 3); round++) {
    const failedViews = results.filter(
      (r) =>
        r.error &&
        !r.entry.error &&
        !(r.error instanceof SkippedError) &&
        r.entry.def.kind === 'view' &&
        !(r.error instanceof ConflictError),
    );
    const retried = new Set(failedViews.map((r) => r.entry));
    // What was skipped goes again only with the failure it was skipped for; the rest stays skipped.
    const again = [
      ...failedViews,
      ...results.filter((r) => r.error instanceof SkippedError && retried.has(r.error.failed)),
    ];
    if (again.length === 0 || opts.stop?.aborted) break;
    const outcome = await run(again.map((r) => r.entry));
    for (const r of outcome) results[results.findIndex((old) => old.entry === r.entry)] = r;
    if (outcome.every((r) => r.error)) break;
  }
  results.push(
    ...(await run(
      plan.filter((e) => e.action === 'delete'),
      true,
    )),
  );
  return results;
}

/**
 * What each entry waits for: its containers and what its SQL reads (an admin kind: what it names); `reverse`
 * for deletes, where each waits for what is inside it and for the views that read it.
 */
function dependencyGraph(entries: readonly PlanEntry[], reverse: boolean): Set<number>[] {
  const deps = dependencies(
    entries.map(({ def }) => ({
      path: def.path,
      sql: typeof def.fields.sql === 'string' ? def.fields.sql : undefined,
      sqlContext: Array.isArray(def.fields.sqlContext) ? (def.fields.sqlContext as string[]) : undefined,
      ...(isAdminKind(def.kind) ? adminOrder(def) : {}),
    })),
  );
  if (!reverse) return deps;
  const inverted = deps.map(() => new Set<number>());
  deps.forEach((d, n) => {
    for (const m of d) inverted[m]!.add(n);
  });
  return inverted;
}
