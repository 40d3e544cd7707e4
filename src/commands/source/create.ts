// `dlake source create NAME --type T`: a source whose config is checked against its type before it is sent.
import { type Command, Option } from '@commander-js/extra-typings';
import { SOURCE_TYPE_CODES } from '../../api/source-type-codes.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Runtime } from '../../runtime.js';
import { formatPath } from '../../util/catalog-ref.js';
import { examples, printDryRun } from '../common.js';
import { offerValues, repeatable } from '../options.js';
import { readConfigFile, SOURCE_VIEW, warnUnhealthy } from './shared.js';

interface CreateOptions {
  type: string;
  configFile?: string;
  set?: string[];
  dryRun?: boolean;
}

export function register(source: Command, rt: Runtime): void {
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
        'dlake source create lake --type NAS --set path=/data/lake',
        'dlake source create pg --type POSTGRES --config-file pg.json   # password in the file',
        'dlake source create es --type ELASTIC --set hostList=es1:9200,es2:9200 --set authenticationType=ANONYMOUS --dry-run',
      ),
    )
    .action(rt.action(create));
}

async function create(ctx: Context, name: string, opts: CreateOptions): Promise<void> {
  const [types, { applySetPairs }, sources, catalog] = await Promise.all([
    import('../../api/source-types.js'),
    import('./set-pairs.js'),
    import('../../api/sources.js'),
    import('../../api/catalog.js'),
  ]);
  const info = types.getSourceType(opts.type);
  if (info.deprecated) {
    throw new UsageError(`source type ${info.code} is deprecated: ${info.deprecated}`, {
      hint: 'see the current types with: dlake source types',
    });
  }
  const given = applySetPairs(info.code, await readConfigFile(ctx, opts.configFile), opts.set ?? []);
  const config = types.validateSourceConfig(info.code, given, { forCreate: true });
  const secretFields = types.secretFieldNames(info.code);
  const entity = sources.newSourceEntity(name, info.code, config);
  if (opts.dryRun) return printDryRun(ctx, catalog.createRequest(entity, secretFields));
  const created = await catalog.create(await ctx.client(), entity, secretFields);
  ctx.ui.notice(`Created source ${formatPath([name])} (${info.code}).`);
  warnUnhealthy(ctx, name, created, 'created');
  await ctx.print({ data: created, rows: [created], view: SOURCE_VIEW });
}
