// `dlake queue get QUEUE`: a queue by id (a UUID) or by name.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../common.js';
import { defineCommand } from '../define.js';
import { printQueue } from './view.js';

export const register = defineCommand(
  (queue: Command) =>
    queue
      .command('get')
      .description('Show a queue by id (a UUID) or by name')
      .argument('<queue>', 'queue id or name')
      .addHelpText('after', examples('dlake queue get etl', 'dlake queue get etl -o json')),
  get,
);

async function get(ctx: Context, ref: string): Promise<void> {
  const client = await ctx.client();
  const { resolveQueue } = await import('../../api/queues.js');
  await printQueue(ctx, await resolveQueue(client, ref));
}
