// An estate's definitions as data, read as `pull` reads them: the spaces, folders, views, datasets and sources
// (under the refs given, else every space and source), and the admin kinds asked for (queues, the ruleset,
// reflections, grants, users, roles). `pull` writes them to files; `diff` compares two estates' (src/ascode).
import type { AdminKind, Definition, Kind } from '../ascode/definitions.js';
import type { PlanEntry } from '../ascode/diff.js';
import type { Context } from '../context.js';
import type { CatalogRef } from '../util/catalog-ref.js';
import { READ_CONCURRENCY } from './plan.js';

export async function pullEstate(
  ctx: Context,
  q: {
    refs: readonly CatalogRef[];
    kinds: readonly AdminKind[];
    /** Receives the paths of the refs, the roots of what was read. */
    roots?: string[][];
  },
  signal = ctx.interrupt.signal,
): Promise<Definition[]> {
  const { pullDefinitions } = await import('../ascode/pull.js');
  const client = (await ctx.client()).withSignal(signal);
  const catalogDefs = await pullDefinitions(client, q.refs, READ_CONCURRENCY, q.roots);
  if (q.kinds.length === 0) return catalogDefs;
  const { pullAdminKinds } = await import('../ascode/admin-kinds.js');
  return [...catalogDefs, ...(await pullAdminKinds(client, q.kinds, catalogDefs, READ_CONCURRENCY))];
}

/**
 * What differs between the estates of `from` and `to` (two profiles' contexts), as the plan that would turn
 * the first into the second (src/ascode/plan.ts diffEstates): both read as `pull` reads them, at once; `kinds`
 * (default: every kind `to`'s edition has) chooses what is read and compared; `map` (a --map file) renames
 * the first estate's users and roles as the second names them; what the second's edition cannot take is set
 * aside, each said through `from`'s UI, as `plan` says it.
 */
export async function diffProfiles(
  from: Context,
  to: Context,
  q: { kinds?: readonly Kind[]; map?: string },
  signal = from.interrupt.signal,
): Promise<PlanEntry[]> {
  const [{ ADMIN_KINDS }, { diffEstates }, { labelOf, portableTo }] = await Promise.all([
    import('../ascode/definitions.js'),
    import('../ascode/plan.js'),
    import('../ascode/editions.js'),
  ]);
  const wanted = (kind: Kind) => q.kinds === undefined || q.kinds.includes(kind);
  const hostedLacks: readonly Kind[] = ['queue', 'rule'];
  const adminKinds = (ctx: Context) =>
    ADMIN_KINDS.filter((k) => wanted(k) && !(ctx.root().edition === 'cloud' && hostedLacks.includes(k)));
  const map = q.map === undefined ? undefined : await import('../ascode/mapping.js');
  const names = map?.readNameMap(q.map!);
  const [a, b] = await Promise.all(
    [from, to].map(async (ctx) =>
      (await pullEstate(ctx, { refs: [], kinds: adminKinds(ctx) }, signal)).filter((d) => wanted(d.kind)),
    ),
  );
  let renamed = names ? map!.applyNameMap(a!, names) : a!;
  if (names) {
    const unused = map!.unusedNames(names);
    if (unused.length) from.ui.warn(`no definition names the ${unused.join(', ')} of ${q.map}`);
  }
  const portable = portableTo(to.root(), renamed);
  renamed = portable.defs;
  for (const s of portable.setAside) from.ui.warn(`not carried over: ${labelOf(s.def)} (${s.reason})`);
  return diffEstates(renamed, b!);
}
