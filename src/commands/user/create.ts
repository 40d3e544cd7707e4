// `dlake user create NAME`: a user with the PUBLIC role and any --role given.

import { type Command, Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { examples, refuseSecretFlag, send } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { email, repeatable } from '../options.js';
import { names, newPassword, PASSWORD_HELP, printUser } from './shared.js';

const declaration = (user: Command) =>
  user
    .command('create')
    .description('Create a user; the PUBLIC role is always given, --role adds others')
    .argument('<name>', 'user name (unique; cannot be changed later)')
    .option('--first-name <text>', 'first name')
    .option('--last-name <text>', 'last name')
    .option('--email <address>', 'email address', email('--email'))
    .option('--role <name>', 'a role besides PUBLIC (repeatable)', repeatable('--role'))
    .option('--password-stdin', PASSWORD_HELP.stdin)
    .addOption(new Option('--password-prompt', PASSWORD_HELP.prompt).conflicts('passwordStdin'))
    .addOption(refuseSecretFlag('--password <password>', '--password-stdin or --password-prompt'))
    .option('--dry-run', 'print the request instead of sending it (role names are still looked up)')
    .addHelpText(
      'after',
      examples(
        'dlake user create bob --first-name Bob --last-name Baker --email bob@example.com',
        'dlake user create etl-bot --role analysts --role loaders',
        'dlake user create carol --role ADMIN --dry-run',
        'printf %s "$PASSWORD" | dlake user create dave --password-stdin',
      ),
    );

export const register = defineCommand(declaration, create);

async function create(ctx: Context, name: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  if (!name.trim()) throw new UsageError('the user name is empty');
  const password = await newPassword(ctx, opts);
  const client = await ctx.client();
  const [{ getRolesByName, PUBLIC_ROLE }, { newUserBody, userCreation }] = await Promise.all([
    import('../../api/roles.js'),
    import('../../api/users.js'),
  ]);
  // Looking PUBLIC up too gives its id, and tells a community-edition server (no roles) before writing.
  const roles = await getRolesByName(client, [PUBLIC_ROLE, ...(opts.role ?? [])], 'creating users');
  const body = newUserBody({ name, ...names(opts) }, roles, password);
  const created = await send(ctx, userCreation(body), { dryRun: opts.dryRun });
  if (!created) return;
  await printUser(ctx, created);
  ctx.ui.notice(`Created user ${created.name} (id ${created.id}).`);
}
