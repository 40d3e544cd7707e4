// `dlake queue delete QUEUE` (alias rm).
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { confirmDestructive, examples, printDryRun } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';

const declaration = (queue: Command) =>
  queue
    .command('delete')
    .alias('rm')
    .description('Delete a queue (asks first on a terminal); rules must not place jobs in it')
    .argument('<queue>', 'queue id or name')
    .option('-y, --yes', 'do not ask for confirmation (needed without a terminal)')
    .option('--dry-run', 'print the request instead of sending it')
    .addHelpText('after', examples('dlake queue delete adhoc', 'dlake queue delete adhoc --yes'));

export const register = defineCommand(declaration, remove);

async function remove(ctx: Context, ref: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const { deleteQueue, deleteQueueRequest, resolveQueue } = await import('../../api/queues.js');
  const client = await ctx.client();
  const queue = await resolveQueue(client, ref);
  if (opts.dryRun) return printDryRun(ctx, deleteQueueRequest(queue.id));
  await confirmDestructive(ctx, `delete queue "${queue.name}" (id ${queue.id})?`, opts.yes);
  await deleteQueue(client, queue);
  ctx.ui.notice(`Deleted queue ${queue.name}.`);
}
