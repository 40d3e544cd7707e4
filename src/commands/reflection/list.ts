// `dlake reflection list [REF]`: every reflection (Enterprise), or those of one dataset (both editions).
import type { Command } from '@commander-js/extra-typings';
import type { Reflection } from '../../api/reflections.js';
import type { Context } from '../../context.js';
import { formatSize } from '../../util/units.js';
import { idOption, refOf } from '../catalog/options.js';
import { examples } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';

const declaration = (reflection: Command) =>
  reflection
    .command('list')
    .alias('ls')
    .description("List reflections: all of them, or a dataset's (REF: its path or id)")
    .argument('[ref]', 'dataset path or id')
    .addOption(idOption())
    .addHelpText(
      'after',
      examples(
        'dlake reflection list',
        'dlake reflection list Sales/orders',
        'dlake reflection list Sales/orders -o json',
      ),
    );

export const register = defineCommand(declaration, list);

async function list(
  ctx: Context,
  ref: string | undefined,
  opts: OptionsOf<typeof declaration>,
): Promise<void> {
  const client = await ctx.client();
  const { listReflections } = await import('../../api/reflections.js');
  let datasetId: string | undefined;
  if (ref !== undefined) {
    const { resolveRef } = await import('../../api/catalog.js');
    datasetId = (await resolveRef(client, refOf(ref, opts), { exclude: ['children'] })).id;
  }
  const items = await listReflections(client, datasetId);
  await ctx.print<Reflection>({
    data: items,
    rows: items,
    view: {
      empty: ref ? `No reflections on ${ref}.` : 'No reflections.',
      columns: [
        { header: 'NAME', value: (r) => r.name },
        { header: 'ID', value: (r) => r.id },
        { header: 'TYPE', value: (r) => r.type },
        { header: 'DATASET', value: (r) => r.datasetId },
        { header: 'STATUS', value: (r) => r.status?.combinedStatus },
        { header: 'ENABLED', value: (r) => r.enabled },
        {
          header: 'SIZE',
          value: (r) => (typeof r.currentSizeBytes === 'number' ? formatSize(r.currentSizeBytes) : ''),
        },
      ],
    },
  });
}
