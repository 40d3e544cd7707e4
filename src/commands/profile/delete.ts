// `dlake profile delete NAME` (alias rm): a profile and its stored token.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../common.js';
import { defineCommand } from '../define.js';
import { unknownProfile } from './shared.js';

const declaration = (profile: Command) =>
  profile
    .command('delete')
    .alias('rm')
    .description('Delete a profile and its stored token')
    .argument('<name>', 'profile name')
    .addHelpText('after', examples('dlake profile delete old'));

export const register = defineCommand(declaration, remove);

async function remove(ctx: Context, name: string): Promise<void> {
  await ctx.store.update((s) => {
    if (!s.config.profiles[name]) throw unknownProfile(ctx, name);
    delete s.config.profiles[name];
    delete s.credentials.tokens[name];
    if (s.config.currentProfile === name) delete s.config.currentProfile;
  });
  ctx.ui.notice(`Deleted profile "${name}" and its stored token.`);
}
