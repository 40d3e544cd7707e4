// `dlake catalog ls [REF]`: the top-level containers, or the children of REF (all pages).
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { formatPath } from '../../util/catalog-ref.js';
import { examples } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { idOption, pageSizeOption, refOf } from './options.js';
import { entityView, SUMMARY_VIEW } from './views.js';

const declaration = (catalog: Command) =>
  catalog
    .command('ls')
    .alias('list')
    .description('List the top-level containers, or the children of REF (all pages)')
    .argument('[ref]', 'path or id of a container')
    .addOption(idOption())
    .addOption(pageSizeOption())
    .addHelpText(
      'after',
      examples('dlake catalog ls', 'dlake catalog ls Samples/sales', 'dlake catalog ls Sales -o json'),
    );

export const register = defineCommand(declaration, ls);

async function ls(
  ctx: Context,
  refArg: string | undefined,
  opts: OptionsOf<typeof declaration>,
): Promise<void> {
  const ref = refArg === undefined ? undefined : refOf(refArg, opts);
  const api = await import('../../api/catalog.js');
  const client = await ctx.client();
  if (!ref) {
    const items = await api.listTopLevel(client);
    return ctx.print({ data: items, view: { ...SUMMARY_VIEW, empty: 'The catalog is empty.' } });
  }
  const { entity, children } = await api.listChildren(client, ref, { pageSize: opts.pageSize });
  const path = api.entityPath(entity);
  if (!api.isContainerEntity(entity)) {
    // Like `ls FILE`: a dataset or file lists as itself.
    const { children: _, ...item } = entity;
    return ctx.print({ data: [item], view: entityView(api.entityPath) });
  }
  await ctx.print({ data: children, view: { ...SUMMARY_VIEW, empty: `${formatPath(path)} is empty.` } });
}
