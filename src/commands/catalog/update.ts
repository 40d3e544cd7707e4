// `dlake catalog update REF --file F`: the file's fields merged into the current entity, sent with its tag.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { formatPath } from '../../util/catalog-ref.js';
import { examples, send } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { dryRunOption, idOption, refOf } from './options.js';
import { entityView } from './views.js';
import { readJsonFile, sourceSecrets } from './write.js';

const declaration = (catalog: Command) =>
  catalog
    .command('update')
    .description(
      "Change an entity: the file's fields are merged into the current entity and sent with its tag",
    )
    .argument('<ref>', 'path or id')
    .addOption(idOption())
    .requiredOption(
      '--file <file>',
      'changed fields as JSON (a "tag" in it is sent as given); - reads standard input',
    )
    .addOption(dryRunOption())
    .addHelpText(
      'after',
      examples(
        'echo \'{"sql": "SELECT * FROM Samples.sales"}\' | dlake catalog update Sales/v_sales --file -',
        'dlake catalog get Sales/v_sales -o json > v.json && $EDITOR v.json && dlake catalog update Sales/v_sales --file v.json',
        'dlake catalog update Sales/v_sales --file v.json --dry-run',
      ),
    );

export const register = defineCommand(declaration, update);

async function update(ctx: Context, refArg: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const ref = refOf(refArg, opts);
  const { value, label } = await readJsonFile(ctx, opts.file, '--file');
  const [api, { entityUpdateBody }] = await Promise.all([
    import('../../api/catalog.js'),
    import('../../api/sources.js'),
  ]);
  const patch = api.checkEntityPatch(value, label);
  const client = await ctx.client();
  const current = await api.resolveRef(client, ref, { exclude: ['children'] });
  const path = formatPath(api.entityPath(current));
  if (patch.entityType !== undefined && patch.entityType !== current.entityType) {
    throw new UsageError(`${label} is a ${patch.entityType}, but ${path} is a ${current.entityType}`);
  }
  if (patch.id !== undefined && patch.id !== current.id) {
    throw new UsageError(`${label} is entity ${patch.id}, but ${path} is ${current.id}`, {
      hint: 'remove "id" from the file or name the entity it belongs to',
    });
  }
  const body = entityUpdateBody(current, patch);
  const secretFields = await sourceSecrets(body, false);
  const updated = await send(
    ctx,
    {
      request: api.updateRequest(current.id, body, secretFields),
      send: () => api.update(client, current.id, body, secretFields),
    },
    { dryRun: opts.dryRun },
  );
  if (!updated) return;
  ctx.ui.notice(`Updated ${path} (tag ${current.tag} → ${updated.tag}).`);
  await ctx.print({ data: updated, rows: [updated], view: entityView(api.entityPath) });
}
