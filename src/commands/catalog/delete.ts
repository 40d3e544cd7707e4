// `dlake catalog delete REF` (alias rm): an entity, with everything in it for a space or folder.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { formatPath } from '../../util/catalog-ref.js';
import { confirmDestructive, examples, printDryRun } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { dryRunOption, idOption, refOf } from './options.js';
import { kindOf } from './views.js';

const declaration = (catalog: Command) =>
  catalog
    .command('delete')
    .alias('rm')
    .description(
      'Delete an entity (a space or folder with all its contents; a promoted table reverts to its file)',
    )
    .argument('<ref>', 'path or id')
    .addOption(idOption())
    .option('-y, --yes', 'do not ask for confirmation')
    .addOption(dryRunOption())
    .addHelpText(
      'after',
      examples(
        'dlake catalog delete Sales/old_view',
        'dlake catalog delete Scratch --yes',
        'dlake catalog rm Sales/x --dry-run',
      ),
    );

export const register = defineCommand(declaration, remove);

async function remove(ctx: Context, refArg: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const ref = refOf(refArg, opts);
  const api = await import('../../api/catalog.js');
  const client = await ctx.client();
  const current = await api.resolveRef(client, ref, { exclude: ['children'] });
  const what = `${kindOf(current)} ${formatPath(api.entityPath(current))}`;
  const req = api.removeRequest(current.id, current.tag);
  if (opts.dryRun) return printDryRun(ctx, req);
  const contents = api.isContainerEntity(current) ? ' and everything in it' : '';
  await confirmDestructive(ctx, `delete ${what}${contents}?`, opts.yes);
  await api.remove(client, current.id, current.tag);
  ctx.ui.notice(`Deleted ${what}.`);
}
