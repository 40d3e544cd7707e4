// `dlake catalog refresh REF`: refresh the reflections that depend on a physical dataset.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { formatPath } from '../../util/catalog-ref.js';
import { examples, send } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { dryRunOption, idOption, refOf } from './options.js';
import { kindOf } from './views.js';

const declaration = (catalog: Command) =>
  catalog
    .command('refresh')
    .description('Refresh the reflections that depend on a physical dataset')
    .argument('<ref>', 'path or id of a physical dataset (table)')
    .addOption(idOption())
    .addOption(dryRunOption())
    .addHelpText(
      'after',
      examples(
        'dlake catalog refresh Samples/sales',
        'dlake catalog refresh Samples/events.parquet --dry-run',
      ),
    );

export const register = defineCommand(declaration, refresh);

async function refresh(ctx: Context, refArg: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const ref = refOf(refArg, opts);
  const api = await import('../../api/catalog.js');
  const client = await ctx.client();
  const current = await api.resolveRef(client, ref, { exclude: ['children'] });
  const path = formatPath(api.entityPath(current));
  if (current.entityType !== 'dataset' || current.type !== 'PHYSICAL_DATASET') {
    throw new UsageError(`${path} is a ${kindOf(current)}: only physical datasets (tables) are refreshed`, {
      hint: 'name a table (a promoted file or folder, or a table of a database source)',
    });
  }
  await send(
    ctx,
    { request: api.refreshRequest(current.id), send: (c) => api.refresh(c, current.id) },
    { dryRun: opts.dryRun },
  );
  if (opts.dryRun) return;
  ctx.ui.notice(`Requested a refresh of the reflections on ${path}.`);
}
