// `dlake reflection update ID …`: read, change only what is given, PUT back whole with the tag just read
// (the service removes field lists a PUT leaves out).
import type { Command } from '@commander-js/extra-typings';
import type { Reflection } from '../../api/reflections.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Runtime } from '../../runtime.js';
import { examples, printDryRun } from '../common.js';
import { datasetFieldNames, fieldLists } from './fields.js';
import { addDefinitionOptions, type DefinitionOptions, printReflection } from './shared.js';

interface UpdateOptions extends DefinitionOptions {
  enable?: boolean;
  disable?: boolean;
}

export function register(reflection: Command, rt: Runtime): void {
  const cmd = reflection
    .command('update')
    .description('Change a reflection: the field lists given replace those lists, everything else is kept')
    .argument('<id>', 'reflection id')
    .option('--enable', 'enable it (starts a refresh)')
    .option('--disable', 'disable it');
  addDefinitionOptions(cmd)
    .addHelpText(
      'after',
      examples(
        'dlake reflection update 3f6c… --display id,amount',
        'dlake reflection update 3f6c… --disable',
      ),
    )
    .action(rt.action(update));
}

async function update(ctx: Context, id: string, opts: UpdateOptions): Promise<void> {
  if (opts.enable && opts.disable) throw new UsageError('--enable and --disable cannot be used together');
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
  if (opts.dryRun) return printDryRun(ctx, { method: 'PUT', path: api.reflectionPath(id), json: body });
  const updated = await api.updateReflection(client, body);
  await printReflection(ctx, updated);
  ctx.ui.notice(`Updated reflection ${updated.name ?? updated.id}.`);
}

function fieldOption(list: string): keyof DefinitionOptions {
  const map: Record<string, keyof DefinitionOptions> = {
    displayFields: 'display',
    dimensionFields: 'dimension',
    measureFields: 'measure',
    partitionFields: 'partition',
    sortFields: 'sort',
    distributionFields: 'distribution',
  };
  return map[list]!;
}
