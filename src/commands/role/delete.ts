// `dlake role delete ROLE` (alias rm): asks first; its members lose the role.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { confirmDestructive, examples, printDryRun } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';

const declaration = (role: Command) =>
  role
    .command('delete')
    .alias('rm')
    .description(
      'Delete a role (asks first on a terminal); its members lose it. System roles cannot be deleted',
    )
    .argument('<role>', 'role id or name')
    .option('-y, --yes', 'do not ask for confirmation (needed without a terminal)')
    .option('--dry-run', 'print the request instead of sending it')
    .addHelpText('after', examples('dlake role delete loaders', 'dlake role delete loaders -y'));

export const register = defineCommand(declaration, remove);

async function remove(ctx: Context, ref: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const api = await import('../../api/roles.js');
  const client = await ctx.client();
  const role = await api.resolveRole(client, ref);
  api.refuseSystemRole(role, 'delete');
  if (opts.dryRun) return printDryRun(ctx, api.deleteRoleRequest(role.id));
  const members = role.memberCount ? ` and its ${role.memberCount} member(s) lose it` : '';
  await confirmDestructive(ctx, `delete role "${role.name}"${members}?`, opts.yes);
  await api.deleteRole(client, role.id);
  ctx.ui.notice(`Deleted role ${role.name}.`);
}
