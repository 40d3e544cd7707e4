// `dlake catalog create --file F`: a space, folder, view or source from JSON; a PHYSICAL_DATASET promotes the
// file or folder at its path.
import type { Command } from '@commander-js/extra-typings';
import type { CatalogEntity } from '../../api/schemas/catalog.js';
import type { Context } from '../../context.js';
import { formatPath } from '../../util/catalog-ref.js';
import { examples, send } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { dryRunOption } from './options.js';
import { entityView, kindOf } from './views.js';
import { readJsonFile, sourceSecrets } from './write.js';

const declaration = (catalog: Command) =>
  catalog
    .command('create')
    .description(
      'Create a space, folder, view or source from JSON; a PHYSICAL_DATASET promotes a file or folder',
    )
    .requiredOption('--file <file>', 'the entity as JSON; - reads standard input')
    .addOption(dryRunOption())
    .addHelpText(
      'after',
      examples(
        'echo \'{"entityType": "space", "name": "Sales"}\' | dlake catalog create --file -',
        'dlake catalog create --file view.json   # {"entityType": "dataset", "type": "VIRTUAL_DATASET", "path": [...], "sql": "..."}',
        'dlake catalog create --file promote.json --dry-run',
      ),
    );

export const register = defineCommand(declaration, create);

async function create(ctx: Context, opts: OptionsOf<typeof declaration>): Promise<void> {
  const { value, label } = await readJsonFile(ctx, opts.file, '--file');
  const api = await import('../../api/catalog.js');
  const entity = api.checkNewEntity(value, label);
  const secretFields = await sourceSecrets(entity, true);
  const client = await ctx.client();
  const path = api.entityPath(entity as CatalogEntity);
  let created: CatalogEntity | undefined;
  if (entity.entityType === 'dataset' && entity.type === 'PHYSICAL_DATASET') {
    // A table is made by promoting the file or folder at its path (the service has no other way).
    const target = await api.getByPath(client, path, { exclude: ['children'] });
    created = await send(
      ctx,
      { request: api.promoteRequest(target.id, entity), send: () => api.promote(client, target.id, entity) },
      { dryRun: opts.dryRun },
    );
  } else {
    created = await send(
      ctx,
      {
        request: api.createRequest(entity, secretFields),
        send: () => api.create(client, entity, secretFields),
      },
      { dryRun: opts.dryRun },
    );
  }
  if (!created) return;
  ctx.ui.notice(`Created ${kindOf(created)} ${formatPath(api.entityPath(created))}.`);
  await ctx.print({ data: created, rows: [created], view: entityView(api.entityPath) });
}
