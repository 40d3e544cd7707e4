// `dlake profile list` (alias ls): the profiles, the current one marked with *.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { type ProfileRow, profileRows } from '../../ops/profiles.js';
import { examples } from '../common.js';
import { defineCommand } from '../define.js';

const declaration = (profile: Command) =>
  profile
    .command('list')
    .alias('ls')
    .description('List profiles (the current one is marked with *)')
    .addHelpText('after', examples('dlake profile list', 'dlake profile list -o json'));

export const register = defineCommand(declaration, list);

async function list(ctx: Context): Promise<void> {
  const rows = profileRows(ctx);
  await ctx.print({
    data: rows,
    view: {
      empty: 'No profiles. Create one with `dlake profile set NAME --url URL` or `dlake login --url URL`.',
      columns: [
        { header: '', value: (r: ProfileRow) => (r.current ? '*' : '') },
        { header: 'NAME', value: (r: ProfileRow) => r.name },
        { header: 'URL', value: (r: ProfileRow) => r.url },
        { header: 'AUTH', value: (r: ProfileRow) => r.authMethod },
        { header: 'USER', value: (r: ProfileRow) => r.user },
        { header: 'TOKEN', value: (r: ProfileRow) => r.token },
      ],
    },
  });
}
