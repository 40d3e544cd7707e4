// `dlake pat list [USER]`: a user's tokens (ids, labels, dates; never the tokens); no USER means yourself.
import type { Command } from '@commander-js/extra-typings';
import type { Pat } from '../../api/schemas/admin.js';
import type { Context } from '../../context.js';
import { examples } from '../common.js';
import { defineCommand } from '../define.js';
import { userOf, yourself } from './shared.js';

const declaration = (pat: Command) =>
  pat
    .command('list')
    .alias('ls')
    .description("List a user's personal access tokens (ids, labels and dates; never the tokens)")
    .argument('[user]', 'user id or name (default: the user you logged in as)')
    .addHelpText('after', examples('dlake pat list', 'dlake pat list bob', 'dlake pat list bob -o json'));

export const register = defineCommand(declaration, list);

async function list(ctx: Context, ref: string | undefined): Promise<void> {
  const name = ref ?? yourself(ctx);
  const client = await ctx.client();
  const { listPats } = await import('../../api/pats.js');
  const user = await userOf(client, name);
  const pats = await listPats(client, user.id);
  await ctx.print({
    data: pats,
    view: {
      empty: `No personal access tokens for ${user.name}.`,
      columns: [
        { header: 'TID', value: (p: Pat) => p.tid },
        { header: 'LABEL', value: (p: Pat) => p.label },
        { header: 'CREATED', value: (p: Pat) => p.createdAt },
        { header: 'EXPIRES', value: (p: Pat) => p.expiresAt },
      ],
    },
  });
}
