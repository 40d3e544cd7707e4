// `dlake source create NAME --type T`: a source whose config is checked against its type before it is sent.
import { type Command, Option } from '@commander-js/extra-typings';
import { SOURCE_TYPE_CODES } from '../../api/source-type-codes.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { formatPath } from '../../util/catalog-ref.js';
import { examples, send } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { offerValues, repeatable } from '../options.js';
import { readConfigFile, SOURCE_VIEW, warnUnhealthy } from './shared.js';

const declaration = (source: Command) =>
  source
    .command('create')
    .description('Create a source; its config is checked against the type before it is sent')
    .argument('<name>', 'source name')
    .addOption(
      offerValues(
        new Option('--type <type>', 'source type code (see: dlake source types)'),
        SOURCE_TYPE_CODES,
      ).makeOptionMandatory(),
    )
    .option(
      '--config-file <file>',
      'config fields as a JSON object, secrets included; - reads standard input',
    )
    .option(
      '--set <key=value>',
      'a config field, coerced to its type (repeatable; not for secrets)',
      repeatable('--set'),
      [],
    )
    .option('--dry-run', 'print the request that would be sent, secrets redacted, and send nothing')
    .addHelpText(
      'after',
      examples(
        'dlake source create landing --type NAS --set path=/data/landing',
        'dlake source create pg --type POSTGRES --config-file pg.json   # password in the file',
        'dlake source create es --type ELASTIC --set hostList=es1:9200,es2:9200 --set authenticationType=ANONYMOUS --dry-run',
      ),
    );

export const register = defineCommand(declaration, create);

async function create(ctx: Context, name: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const [types, { applySetPairs }, sources, catalog] = await Promise.all([
    import('../../api/source-types.js'),
    import('../../util/config-pairs.js'),
    import('../../api/sources.js'),
    import('../../api/catalog.js'),
  ]);
  const info = types.getSourceType(opts.type);
  if (info.deprecated) {
    throw new UsageError(`source type ${info.code} is deprecated: ${info.deprecated}`, {
      hint: 'see the current types with: dlake source types',
    });
  }
  const given = applySetPairs(info, await readConfigFile(ctx, opts.configFile), opts.set ?? []);
  const config = types.validateSourceConfig(info.code, given, { forCreate: true });
  const secretFields = types.secretFieldNames(info.code);
  const entity = sources.newSourceEntity(name, info.code, config);
  const created = await send(
    ctx,
    {
      request: catalog.createRequest(entity, secretFields),
      send: (c) => catalog.create(c, entity, secretFields),
    },
    { dryRun: opts.dryRun },
  );
  if (!created) return;
  ctx.ui.notice(`Created source ${formatPath([name])} (${info.code}).`);
  warnUnhealthy(ctx, name, created, 'created');
  await ctx.print({ data: created, rows: [created], view: SOURCE_VIEW });
}
