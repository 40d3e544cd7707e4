// `dlake source update NAME`: change a source's config; secrets left out keep their stored values.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { formatPath } from '../../util/catalog-ref.js';
import { examples, send } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { repeatable } from '../options.js';
import { readConfigFile, SOURCE_VIEW, warnUnhealthy } from './shared.js';

const declaration = (source: Command) =>
  source
    .command('update')
    .description('Change a source config; secrets you leave out keep their stored values')
    .argument('<name>', 'source name')
    .option(
      '--config-file <file>',
      'fields to change as a JSON object (null removes one); - reads standard input',
    )
    .option(
      '--set <key=value>',
      'a config field to change (repeatable; not for secrets)',
      repeatable('--set'),
    )
    .option('--dry-run', 'print the request that would be sent, secrets redacted, and send nothing')
    .addHelpText(
      'after',
      examples(
        'dlake source update pg --set fetchSize=500',
        'echo \'{"password": "..."}\' | dlake source update pg --config-file -',
        'dlake source update s3 --set propertyList.fs.s3a.path.style.access=true --dry-run',
      ),
    );

export const register = defineCommand(declaration, update);

async function update(ctx: Context, name: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  if (opts.configFile === undefined && !opts.set) {
    throw new UsageError('nothing to change: give --config-file or --set', {
      hint: `e.g. dlake source update ${name} --set fetchSize=500`,
    });
  }
  const patch = await readConfigFile(ctx, opts.configFile);
  const [types, sources, catalog, { applySetPairs }] = await Promise.all([
    import('../../api/source-types.js'),
    import('../../api/sources.js'),
    import('../../api/catalog.js'),
    import('../../util/config-pairs.js'),
  ]);
  const client = await ctx.client();
  const current = await sources.getSource(client, name);
  const type = current.type ?? '';
  // --set never names a secret (applySetPairs refuses them), so it may apply after the secrets are kept.
  const kept = sources.mergeSourceConfig(type, current.config ?? {}, patch);
  const merged = applySetPairs(types.getSourceType(type), kept, opts.set ?? []);
  const config = types.validateSourceConfig(type, merged, { forCreate: false });
  const secretFields = types.secretFieldNames(type);
  const body = sources.sourceUpdateBody(current, config);
  const updated = await send(
    ctx,
    {
      request: catalog.updateRequest(current.id, body, secretFields),
      send: (c) => catalog.update(c, current.id, body, secretFields),
    },
    { dryRun: opts.dryRun },
  );
  if (!updated) return;
  ctx.ui.notice(`Updated source ${formatPath([name])} (tag ${current.tag} → ${updated.tag}).`);
  warnUnhealthy(ctx, name, updated, 'updated');
  await ctx.print({ data: updated, rows: [updated], view: SOURCE_VIEW });
}
