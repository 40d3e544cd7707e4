// `dlake reflection get ID`.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../common.js';
import { defineCommand } from '../define.js';
import { printReflection } from './shared.js';

export const register = defineCommand(
  (reflection: Command) =>
    reflection
      .command('get')
      .description('Show a reflection: its fields, status and size')
      .argument('<id>', 'reflection id')
      .addHelpText(
        'after',
        examples('dlake reflection get 3f6c…', "dlake reflection get 3f6c… --query 'status.combinedStatus'"),
      ),
  get,
);

async function get(ctx: Context, id: string): Promise<void> {
  const { getReflection } = await import('../../api/reflections.js');
  await printReflection(ctx, await getReflection(await ctx.client(), id));
}
