// `dlake user get USER`: a user by id (a UUID) or by name (case-insensitive).
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../common.js';
import { defineCommand } from '../define.js';
import { printUser } from './shared.js';

const declaration = (user: Command) =>
  user
    .command('get')
    .description('Show a user by id (a UUID) or by name (case-insensitive)')
    .argument('<user>', 'user id or name')
    .addHelpText(
      'after',
      examples(
        'dlake user get bob',
        'dlake user get 6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b -o json',
        "dlake user get bob --query 'roles[].name'",
      ),
    );

export const register = defineCommand(declaration, get);

async function get(ctx: Context, ref: string): Promise<void> {
  const client = await ctx.client();
  const { resolveUser } = await import('../../api/users.js');
  await printUser(ctx, await resolveUser(client, ref));
}
