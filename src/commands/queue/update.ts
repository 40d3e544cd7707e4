// `dlake queue update QUEUE [limits]`: change a queue's limits or name; the rest stays as it is.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { examples, send } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { addQueueOptions, queueFields } from './fields.js';
import { printQueue } from './view.js';

const declaration = (queue: Command) =>
  addQueueOptions(
    queue
      .command('update')
      .description("Change a queue's limits or name; everything not given stays as it is")
      .argument('<queue>', 'queue id or name')
      .option('--name <name>', 'new name'),
  ).addHelpText(
    'after',
    examples(
      'dlake queue update etl --max-run-timeout 30m',
      'dlake queue update etl --name etl-nightly --cpu-tier LOW',
      'dlake queue update etl --max-memory-per-node 16GiB --dry-run',
    ),
  );

export const register = defineCommand(declaration, update);

async function update(ctx: Context, ref: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const fields = queueFields(opts);
  if (Object.values(fields).every((v) => v === undefined)) {
    throw new UsageError('nothing to change', {
      hint: 'give --name, --cpu-tier, --max-memory-per-node, --max-query-memory-per-node, --max-running-jobs, --max-start-timeout or --max-run-timeout',
    });
  }
  if (fields.name !== undefined && !fields.name.trim()) throw new UsageError('the new name is empty');
  const { mergeQueue, resolveQueue, updateQueue, updateQueueRequest } = await import('../../api/queues.js');
  const client = await ctx.client();
  const current = await resolveQueue(client, ref);
  const merged = mergeQueue(current, fields);
  if (merged.changed.length === 0) {
    ctx.ui.notice(`Nothing to change: queue ${current.name} is already as asked.`);
    if (!opts.dryRun) await printQueue(ctx, current);
    return;
  }
  const updated = await send(
    ctx,
    { request: updateQueueRequest(merged.body), send: (c) => updateQueue(c, merged.body) },
    { dryRun: opts.dryRun },
  );
  if (!updated) return;
  await printQueue(ctx, updated);
  ctx.ui.notice(
    `Updated queue ${updated.name}: ${merged.changed.join(', ')}; its tag is now ${updated.tag}.`,
  );
}
