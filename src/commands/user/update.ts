// `dlake user update USER`: change names, email or roles; everything not given stays as it is.
import { type Command, Option } from '@commander-js/extra-typings';
import type { RoleRef } from '../../api/schemas/admin.js';
import type { UserChanges } from '../../api/users.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { examples, refuseSecretFlag, send } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { email, repeatable } from '../options.js';
import { names, newPassword, PASSWORD_HELP, printUser } from './shared.js';

const declaration = (user: Command) =>
  user
    .command('update')
    .description("Change a user's names, email or roles; everything not given stays as it is")
    .argument('<user>', 'user id or name')
    .option('--first-name <text>', 'new first name')
    .option('--last-name <text>', 'new last name')
    .option('--email <address>', 'new email address', email('--email'))
    .option('--add-role <name>', 'give the user this role (repeatable)', repeatable('--add-role'))
    .option(
      '--remove-role <name>',
      'take this role away (repeatable; PUBLIC stays)',
      repeatable('--remove-role'),
    )
    .option('--password-stdin', PASSWORD_HELP.stdin)
    .addOption(new Option('--password-prompt', PASSWORD_HELP.prompt).conflicts('passwordStdin'))
    .addOption(refuseSecretFlag('--password <password>', '--password-stdin or --password-prompt'))
    .option('--dry-run', 'print the request instead of sending it (the user is still read)')
    .addHelpText(
      'after',
      examples(
        'dlake user update bob --email bob@new.example.com',
        'dlake user update bob --add-role analysts --remove-role loaders',
        'dlake user update bob --add-role ADMIN --dry-run',
        'dlake user update bob --password-prompt',
        'printf %s "$NEW_PASSWORD" | dlake user update bob --password-stdin',
      ),
    );

export const register = defineCommand(declaration, update);

async function update(ctx: Context, ref: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const { checkRoleChanges, hasChanges, mergeUser, resolveUser, rolesToLookUp, userUpdate } = await import(
    '../../api/users.js'
  );
  const changes: UserChanges = { ...names(opts), addRoles: opts.addRole, removeRoles: opts.removeRole };
  if (!hasChanges(changes) && !opts.passwordStdin && !opts.passwordPrompt) {
    throw new UsageError('nothing to change', {
      hint: 'give --first-name, --last-name, --email, --add-role, --remove-role or --password-stdin',
    });
  }
  changes.password = await newPassword(ctx, opts);
  checkRoleChanges(changes);
  const client = await ctx.client();
  const current = await resolveUser(client, ref);
  const lookUp = rolesToLookUp(current, changes);
  let roles: RoleRef[] = [];
  if (lookUp.length) {
    const { getRolesByName } = await import('../../api/roles.js');
    roles = await getRolesByName(client, lookUp);
  }
  const merged = mergeUser(current, changes, roles);
  for (const note of merged.unchanged) ctx.ui.notice(`note: ${current.name} ${note}`);
  if (merged.changed.length === 0) {
    ctx.ui.notice(`Nothing to change: user ${current.name} is already as asked.`);
    if (!opts.dryRun) await printUser(ctx, current);
    return;
  }
  const updated = await send(ctx, userUpdate(merged.body), { dryRun: opts.dryRun });
  if (!updated) return;
  await printUser(ctx, updated);
  ctx.ui.notice(`Updated user ${updated.name}: ${merged.changed.join(', ')}.`);
}
