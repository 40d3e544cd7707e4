// `dlake reflection update ID …`: read, change only what is given, PUT back whole with the tag just read
// (the service removes field lists a PUT leaves out).
import { type Command, Option } from '@commander-js/extra-typings';
import type { Reflection } from '../../api/reflections.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { examples, send } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { datasetFieldNames, type FieldFlag, fieldLists } from './fields.js';
import { addDefinitionOptions, printReflection } from './shared.js';

const declaration = (reflection: Command) =>
  addDefinitionOptions(
    reflection
      .command('update')
      .description('Change a reflection: the field lists given replace those lists, everything else is kept')
      .argument('<id>', 'reflection id')
      .option('--enable', 'enable it (starts a refresh)')
      .addOption(new Option('--disable', 'disable it').conflicts('enable')),
  ).addHelpText(
    'after',
    examples('dlake reflection update 3f6c… --display id,amount', 'dlake reflection update 3f6c… --disable'),
  );

export const register = defineCommand(declaration, update);

async function update(ctx: Context, id: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const [{ getById }, api] = await Promise.all([
    import('../../api/catalog.js'),
    import('../../api/reflections.js'),
  ]);
  const client = await ctx.client();
  const current = await api.getReflection(client, id);
  let lists = {};
  if (api.FIELD_LISTS.some((k) => opts[fieldOption(k)] !== undefined)) {
    const dataset = current.datasetId
      ? await getById(client, current.datasetId, { exclude: ['children'] })
      : undefined;
    lists = fieldLists(opts, dataset && datasetFieldNames(dataset), current.datasetId ?? 'the dataset');
  }
  const enabled = opts.enable ? true : opts.disable ? false : current.enabled;
  const body: Reflection = { ...current, ...(opts.name ? { name: opts.name } : {}), enabled, ...lists };
  delete body.status;
  if (Object.keys(lists).length === 0 && body.name === current.name && enabled === current.enabled) {
    throw new UsageError('nothing to change', {
      hint: 'give --name, --enable, --disable or a field list (--display, --dimension, --measure, …)',
    });
  }
  const updated = await send(ctx, api.reflectionUpdate(body), { dryRun: opts.dryRun });
  if (!updated) return;
  await printReflection(ctx, updated);
  ctx.ui.notice(`Updated reflection ${updated.name ?? updated.id}.`);
}

function fieldOption(list: string): FieldFlag {
  const map: Record<string, FieldFlag> = {
    displayFields: 'display',
    dimensionFields: 'dimension',
    measureFields: 'measure',
    partitionFields: 'partition',
    sortFields: 'sort',
    distributionFields: 'distribution',
  };
  return map[list]!;
}
