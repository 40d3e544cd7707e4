// `dlake source list` (alias ls): the sources with their type and health.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../common.js';
import { defineCommand } from '../define.js';
import { SOURCE_VIEW } from './shared.js';

const declaration = (source: Command) =>
  source
    .command('list')
    .alias('ls')
    .description('List the sources with their type and health')
    .addHelpText('after', examples('dlake source list', 'dlake source list -o json --query "[].config"'));

export const register = defineCommand(declaration, list);

async function list(ctx: Context): Promise<void> {
  const { listSources } = await import('../../api/sources.js');
  const sources = await listSources(await ctx.client());
  await ctx.print({ data: sources, view: SOURCE_VIEW });
}
