// `dlake reflection delete ID` (alias rm): asks first.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { confirmDestructive, examples, printDryRun } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';

const declaration = (reflection: Command) =>
  reflection
    .command('delete')
    .alias('rm')
    .description('Delete a reflection (asks first on a terminal)')
    .argument('<id>', 'reflection id')
    .option('-y, --yes', 'do not ask for confirmation (needed without a terminal)')
    .option('--dry-run', 'print the request instead of sending it')
    .addHelpText('after', examples('dlake reflection delete 3f6c…', 'dlake reflection delete 3f6c… -y'));

export const register = defineCommand(declaration, remove);

async function remove(ctx: Context, id: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const api = await import('../../api/reflections.js');
  const client = await ctx.client();
  const current = await api.getReflection(client, id);
  if (opts.dryRun) return printDryRun(ctx, api.deleteReflectionRequest(id));
  const what = `reflection ${current.name ? `"${current.name}" ` : ''}(id ${id})`;
  await confirmDestructive(ctx, `delete ${what}?`, opts.yes);
  await api.deleteReflection(client, id);
  ctx.ui.notice(`Deleted ${what}.`);
}
