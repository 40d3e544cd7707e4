// Catalog reads as data: one entity by path or id, and a dataset's lineage. `catalog get`, `catalog lineage`
// and the agents' `get_entity` and `get_lineage` read them.
import type { GetOptions } from '../api/catalog.js';
import type { Lineage } from '../api/grants.js';
import type { CatalogEntity } from '../api/schemas/catalog.js';
import type { Context } from '../context.js';
import type { CatalogRef } from '../util/catalog-ref.js';

/** The entity `ref` names, with the attributes `opts` asks for. */
export async function getEntity(
  ctx: Context,
  ref: CatalogRef,
  opts: Pick<GetOptions, 'include' | 'exclude'> = {},
  signal = ctx.interrupt.signal,
): Promise<CatalogEntity> {
  const { resolveRef } = await import('../api/catalog.js');
  return resolveRef((await ctx.client()).withSignal(signal), ref, opts);
}

/** The dataset `ref` names (without its children) and its parents, children and sources. */
export async function getLineage(
  ctx: Context,
  ref: CatalogRef,
  signal = ctx.interrupt.signal,
): Promise<{ entity: CatalogEntity; lineage: Lineage }> {
  const [{ resolveRef }, { getLineage }] = await Promise.all([
    import('../api/catalog.js'),
    import('../api/grants.js'),
  ]);
  const client = (await ctx.client()).withSignal(signal);
  const entity = await resolveRef(client, ref, { exclude: ['children'] });
  return { entity, lineage: await getLineage(client, entity.id) };
}
