// `dlake user list [--filter EXPR]`: every user (Enterprise), all pages, one row each.
import type { Command } from '@commander-js/extra-typings';
import type { User } from '../../api/schemas/admin.js';
import type { Context } from '../../context.js';
import { examples } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';

const declaration = (user: Command) =>
  user
    .command('list')
    .alias('ls')
    .description(
      'List users (all of them, or those a filter expression matches); needs the Enterprise edition',
    )
    .option(
      '--filter <expr>',
      "the service's filter: fields id, name, firstName, lastName, email, identityType; " +
        '==, startsWith(), contains(), && and ||, e.g. "startsWith(name,\'etl\')"',
    )
    .addHelpText(
      'after',
      examples(
        'dlake user list',
        "dlake user list --filter \"startsWith(name,'etl') || email=='ops@example.com'\"",
        "dlake user list -o csv --query '[].{name: name, email: email}'",
      ),
    );

export const register = defineCommand(declaration, list);

async function list(ctx: Context, opts: OptionsOf<typeof declaration>): Promise<void> {
  const { listUsers } = await import('../../api/users.js');
  const users = await listUsers(await ctx.client(), opts.filter?.trim() || undefined);
  await ctx.print<User>({
    data: users,
    rows: users,
    view: {
      empty: opts.filter ? 'No user matches the filter.' : 'No users.',
      columns: [
        { header: 'NAME', value: (u) => u.name },
        { header: 'ID', value: (u) => u.id },
        { header: 'FIRST NAME', value: (u) => u.firstName },
        { header: 'LAST NAME', value: (u) => u.lastName },
        { header: 'EMAIL', value: (u) => u.email },
        { header: 'ROLES', value: (u) => (u.roles ?? []).map((r) => r.name).join(', ') },
        { header: 'SOURCE', value: (u) => u.source },
      ],
    },
  });
}
