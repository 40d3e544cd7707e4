// `dlake queue create --name N [limits]`: a new queue; limits not given are left unset.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples, printDryRun } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { addQueueOptions, queueFields } from './fields.js';
import { printQueue } from './view.js';

const declaration = (queue: Command) =>
  addQueueOptions(
    queue
      .command('create')
      .description('Create a queue; limits not given are left unset (CPU tier: the service default, MEDIUM)')
      .requiredOption('--name <name>', 'queue name (unique)'),
  ).addHelpText(
    'after',
    examples(
      'dlake queue create --name etl --cpu-tier HIGH --max-memory-per-node 8GiB --max-run-timeout 15m',
      'dlake queue create --name adhoc --max-running-jobs 4 --max-start-timeout 90s',
      'dlake queue create --name nightly --cpu-tier BACKGROUND --dry-run',
    ),
  );

export const register = defineCommand(declaration, create);

async function create(ctx: Context, opts: OptionsOf<typeof declaration>): Promise<void> {
  const { createQueue, createQueueRequest, newQueueBody } = await import('../../api/queues.js');
  const body = newQueueBody(queueFields(opts));
  if (opts.dryRun) return printDryRun(ctx, createQueueRequest(body));
  const client = await ctx.client();
  const created = await createQueue(client, body);
  await printQueue(ctx, created);
  ctx.ui.notice(`Created queue ${created.name} (id ${created.id}).`);
}
