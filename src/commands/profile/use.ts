// `dlake profile use NAME`: make a profile the current one.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../common.js';
import { defineCommand } from '../define.js';
import { unknownProfile } from './shared.js';

const declaration = (profile: Command) =>
  profile
    .command('use')
    .description('Make a profile the current one')
    .argument('<name>', 'profile name')
    .addHelpText('after', examples('dlake profile use prod'));

export const register = defineCommand(declaration, use);

async function use(ctx: Context, name: string): Promise<void> {
  await ctx.store.update((s) => {
    if (!s.config.profiles[name]) throw unknownProfile(ctx, name);
    s.config.currentProfile = name;
  });
  ctx.ui.notice(`Now using profile "${name}".`);
}
