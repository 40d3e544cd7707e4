// `dlake role get ROLE`: a role by id or name, with its member count and the roles it is a member of.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../common.js';
import { defineCommand } from '../define.js';
import { printRole } from './shared.js';

const declaration = (role: Command) =>
  role
    .command('get')
    .description('Show a role by id (a UUID) or by name (case-insensitive), with its member count')
    .argument('<role>', 'role id or name')
    .addHelpText(
      'after',
      examples('dlake role get analysts', "dlake role get analysts --query 'memberCount'"),
    );

export const register = defineCommand(declaration, get);

async function get(ctx: Context, ref: string): Promise<void> {
  const { resolveRole } = await import('../../api/roles.js');
  await printRole(ctx, await resolveRole(await ctx.client(), ref));
}
