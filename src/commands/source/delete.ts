// `dlake source delete NAME` (alias rm).
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { formatPath } from '../../util/catalog-ref.js';
import { confirmDestructive, examples, printDryRun } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';

const declaration = (source: Command) =>
  source
    .command('delete')
    .alias('rm')
    .description('Delete a source')
    .argument('<name>', 'source name')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--dry-run', 'print the request that would be sent, and send nothing')
    .addHelpText(
      'after',
      examples(
        'dlake source delete old_pg',
        'dlake source delete old_pg --yes',
        'dlake source rm old_pg --dry-run',
      ),
    );

export const register = defineCommand(declaration, remove);

async function remove(ctx: Context, name: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const [sources, catalog] = await Promise.all([
    import('../../api/sources.js'),
    import('../../api/catalog.js'),
  ]);
  const client = await ctx.client();
  const current = await sources.getSource(client, name);
  if (opts.dryRun) return printDryRun(ctx, catalog.removeRequest(current.id, current.tag));
  await confirmDestructive(ctx, `delete source ${formatPath([name])} and its datasets?`, opts.yes);
  await catalog.remove(client, current.id, current.tag);
  ctx.ui.notice(`Deleted source ${formatPath([name])}.`);
}
