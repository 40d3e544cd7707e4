// `dlake profile show [NAME]`: a profile (default: the one in force) and its stored token, without secrets.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { profileRows } from '../../ops/profiles.js';
import { examples } from '../common.js';
import { defineCommand } from '../define.js';
import { unknownProfile } from './shared.js';

const declaration = (profile: Command) =>
  profile
    .command('show')
    .description('Show a profile (default: the one in force) and its stored token, without secrets')
    .argument('[name]', 'profile name')
    .addHelpText('after', examples('dlake profile show', 'dlake profile show prod -o json'));

export const register = defineCommand(declaration, show);

async function show(ctx: Context, name: string | undefined): Promise<void> {
  const wanted = name ?? ctx.settings().profileName.value;
  const row = profileRows(ctx).find((r) => r.name === wanted);
  if (!row) throw unknownProfile(ctx, wanted);
  await ctx.print({ data: row });
}
