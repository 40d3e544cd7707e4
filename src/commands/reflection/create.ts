// `dlake reflection create REF --type raw|aggregation …`: field names are checked against the dataset's
// schema before anything is sent.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { formatPath } from '../../util/catalog-ref.js';
import { idOption, refOf } from '../catalog/options.js';
import { examples, send } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { choiceOption } from '../options.js';
import { datasetFieldNames, fieldLists, refuseDuplicateFields } from './fields.js';
import { addDefinitionOptions, printReflection } from './shared.js';

const declaration = (reflection: Command) =>
  addDefinitionOptions(
    reflection
      .command('create')
      .description(
        "Create a reflection on a dataset; field names are checked against the dataset's schema first",
      )
      .argument('<ref>', 'dataset path or id')
      .addOption(
        choiceOption('--type <type>', 'raw or aggregation', ['raw', 'aggregation']).makeOptionMandatory(),
      )
      .addOption(idOption())
      .option('--disabled', 'create it disabled (no refresh until enabled)'),
  ).addHelpText(
    'after',
    examples(
      'dlake reflection create Sales/orders --type raw --display id,customer,amount --partition region',
      'dlake reflection create Sales/orders --type aggregation --dimension region,day:DATE --measure amount:SUM,id:COUNT',
      'dlake reflection create Sales/orders --type raw --display id --dry-run',
    ),
  );

export const register = defineCommand(declaration, create);

async function create(ctx: Context, ref: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const type = opts.type === 'raw' ? 'RAW' : 'AGGREGATION';
  if (type === 'RAW' && !opts.display?.length) {
    throw new UsageError('a raw reflection needs display fields', { hint: 'give --display F,…' });
  }
  if (type === 'AGGREGATION' && !opts.dimension?.length && !opts.measure?.length) {
    throw new UsageError('an aggregation reflection needs dimensions or measures', {
      hint: 'give --dimension F,… and/or --measure F:SUM,…',
    });
  }
  refuseDuplicateFields(opts);
  const client = await ctx.client();
  const [{ resolveRef }, api] = await Promise.all([
    import('../../api/catalog.js'),
    import('../../api/reflections.js'),
  ]);
  const dataset = await resolveRef(client, refOf(ref, opts), { exclude: ['children'] });
  if (dataset.entityType !== 'dataset') {
    throw new UsageError(`${ref} is a ${dataset.entityType}, not a dataset: only datasets have reflections`);
  }
  const shown = dataset.path ? formatPath(dataset.path) : ref;
  const fields = datasetFieldNames(dataset);
  if (!fields) ctx.ui.warn(`the schema of ${shown} is not known yet: field names are sent unchecked`);
  const body = {
    type,
    ...(opts.name ? { name: opts.name } : {}),
    datasetId: dataset.id,
    enabled: !opts.disabled,
    ...fieldLists(opts, fields, shown),
  };
  const created = await send(
    ctx,
    { request: api.createReflectionRequest(body), send: (c) => api.createReflection(c, body) },
    { dryRun: opts.dryRun },
  );
  if (!created) return;
  await printReflection(ctx, created);
  ctx.ui.notice(`Created reflection ${created.name ?? ''} (id ${created.id}) on ${shown}.`);
}
