// `dlake queue list` (alias ls): the workload queues and their limits.
import type { Command } from '@commander-js/extra-typings';
import type { Queue } from '../../api/schemas/admin.js';
import type { Context } from '../../context.js';
import { examples } from '../common.js';
import { defineCommand } from '../define.js';
import { duration, size } from './view.js';

export const register = defineCommand(
  (queue: Command) =>
    queue
      .command('list')
      .alias('ls')
      .description('List the workload queues and their limits')
      .addHelpText('after', examples('dlake queue list', 'dlake queue list -o json --query "[].name"')),
  list,
);

async function list(ctx: Context): Promise<void> {
  const client = await ctx.client();
  const { listQueues } = await import('../../api/queues.js');
  const queues = await listQueues(client);
  await ctx.print({
    data: queues,
    view: {
      empty: 'No queues.',
      columns: [
        { header: 'NAME', value: (q: Queue) => q.name },
        { header: 'CPU TIER', value: (q: Queue) => q.cpuTier },
        { header: 'MEMORY/NODE', value: (q: Queue) => size(q.maxMemoryPerNodeBytes) },
        { header: 'QUERY MEMORY/NODE', value: (q: Queue) => size(q.maxQueryMemoryPerNodeBytes) },
        { header: 'RUNNING JOBS', value: (q: Queue) => q.maxAllowedRunningJobs },
        { header: 'START TIMEOUT', value: (q: Queue) => duration(q.maxStartTimeoutMs) },
        { header: 'RUN TIMEOUT', value: (q: Queue) => duration(q.maxRunTimeoutMs) },
        { header: 'ID', value: (q: Queue) => q.id },
      ],
    },
  });
}
