// `dlake profile delete NAME` (alias rm): a profile and its stored token. Asks first on a terminal, as every
// destructive command does (docs/cli-contract.md "Writes: confirmation and dry run"); `-y` skips the question.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { confirmDestructive, examples } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { unknownProfile } from './shared.js';

const declaration = (profile: Command) =>
  profile
    .command('delete')
    .alias('rm')
    .description('Delete a profile and its stored token (asks first on a terminal)')
    .argument('<name>', 'profile name')
    .option('-y, --yes', 'do not ask for confirmation (needed without a terminal)')
    .addHelpText('after', examples('dlake profile delete old', 'dlake profile delete old -y'));

export const register = defineCommand(declaration, remove);

async function remove(ctx: Context, name: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  // An unknown name is said before the question.
  if (!Object.hasOwn(ctx.snapshot().config.profiles, name)) throw unknownProfile(ctx, name);
  const token = Object.hasOwn(ctx.snapshot().credentials.tokens, name) ? ' and its stored token' : '';
  await confirmDestructive(ctx, `delete profile "${name}"${token}?`, opts.yes);
  const after = await ctx.store.update((s) => {
    if (!s.config.profiles[name]) throw unknownProfile(ctx, name);
    delete s.config.profiles[name];
    delete s.credentials.tokens[name];
    if (s.config.currentProfile === name) delete s.config.currentProfile;
  });
  ctx.ui.notice(`Deleted profile "${name}"${token}.`);
  if (after.secretsWarning) ctx.ui.warn(after.secretsWarning);
}
