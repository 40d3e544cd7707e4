// `dlake role list [--filter EXPR]`: every role with its type, member count and description.
import type { Command } from '@commander-js/extra-typings';
import type { Role } from '../../api/roles.js';
import type { Context } from '../../context.js';
import { examples } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';

const declaration = (role: Command) =>
  role
    .command('list')
    .alias('ls')
    .description('List roles with their type, member count and description')
    .option('--filter <expr>', "the service's filter: fields id, name, type, e.g. \"type=='INTERNAL'\"")
    .addHelpText(
      'after',
      examples(
        'dlake role list',
        'dlake role list --filter "startsWith(name,\'etl\')"',
        'dlake role list -o json',
      ),
    );

export const register = defineCommand(declaration, list);

async function list(ctx: Context, opts: OptionsOf<typeof declaration>): Promise<void> {
  const { listRoles } = await import('../../api/roles.js');
  const roles = await listRoles(await ctx.client(), opts.filter?.trim() || undefined);
  await ctx.print<Role>({
    data: roles,
    rows: roles,
    view: {
      empty: opts.filter ? 'No role matches the filter.' : 'No roles.',
      columns: [
        { header: 'NAME', value: (r) => r.name },
        { header: 'ID', value: (r) => r.id },
        { header: 'TYPE', value: (r) => r.type },
        { header: 'MEMBERS', value: (r) => r.memberCount },
        { header: 'DESCRIPTION', value: (r) => r.description },
      ],
    },
  });
}
