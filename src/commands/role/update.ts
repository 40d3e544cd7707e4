// `dlake role update ROLE --description D`: read, change, write back whole (the service's PUT removes what it
// leaves out, and has no tag to guard it).
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { examples, send } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { printRole } from './shared.js';

const declaration = (role: Command) =>
  role
    .command('update')
    .description("Change a role's description; the roles it is a member of are kept")
    .argument('<role>', 'role id or name')
    .option('--description <text>', 'new description ("" removes it)')
    .option('--dry-run', 'print the request instead of sending it (the role is still read)')
    .addHelpText(
      'after',
      examples(
        'dlake role update loaders --description "ETL, nightly and hourly"',
        'dlake role update loaders --description ""',
      ),
    );

export const register = defineCommand(declaration, update);

async function update(ctx: Context, ref: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  if (opts.description === undefined)
    throw new UsageError('nothing to change', { hint: 'give --description' });
  const api = await import('../../api/roles.js');
  const client = await ctx.client();
  const current = await api.resolveRole(client, ref);
  api.refuseSystemRole(current, 'change');
  const body = api.roleUpdateBody(current, { description: opts.description });
  const updated = await send(ctx, api.roleUpdate(body), { dryRun: opts.dryRun });
  if (!updated) return;
  await printRole(ctx, updated);
  ctx.ui.notice(`Updated role ${updated.name}.`);
}
