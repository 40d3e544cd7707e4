// `dlake reflection get ID`.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import type { Runtime } from '../../runtime.js';
import { examples } from '../common.js';
import { printReflection } from './shared.js';

export function register(reflection: Command, rt: Runtime): void {
  reflection
    .command('get')
    .description('Show a reflection: its fields, status and size')
    .argument('<id>', 'reflection id')
    .addHelpText(
      'after',
      examples('dlake reflection get 3f6c…', "dlake reflection get 3f6c… --query 'status.combinedStatus'"),
    )
    .action(rt.action(get));
}

async function get(ctx: Context, id: string): Promise<void> {
  const { getReflection } = await import('../../api/reflections.js');
  await printReflection(ctx, await getReflection(await ctx.client(), id));
}
