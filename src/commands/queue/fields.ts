// The limit options that `queue create` and `queue update` share, parsed into the API's units.
import type { Command } from '@commander-js/extra-typings';
import type { QueueFields } from '../../api/queues.js';
import { CPU_TIERS } from '../../constants.js';
import * as options from '../options.js';

export function addQueueOptions<A extends unknown[], O extends Record<string, unknown>>(cmd: Command<A, O>) {
  return cmd
    .addOption(options.choiceOption('--cpu-tier <tier>', 'CPU priority of its jobs', CPU_TIERS))
    .option('--max-memory-per-node <size>', 'memory per node for all its jobs, e.g. 8GiB, 512MiB')
    .option('--max-query-memory-per-node <size>', 'memory per node for one job, e.g. 2GiB')
    .option('--max-running-jobs <n>', 'jobs that may run at once')
    .option('--max-start-timeout <duration>', 'longest wait in the queue, e.g. 90s, 5m')
    .option('--max-run-timeout <duration>', 'longest run time of a job, e.g. 15m, 2h')
    .option('--dry-run', 'print the request instead of sending it');
}

/** The options `addQueueOptions` declares, typed as commander hands them over. */
type QueueLimitOptions =
  ReturnType<typeof addQueueOptions<[], Record<never, never>>> extends Command<infer _A, infer O> ? O : never;

/** The options in the API's units; any value that does not parse is a usage error, before any request. */
export function queueFields(opts: QueueLimitOptions & { name?: string }): QueueFields {
  const parse = (value: string | undefined, parser: (v: string) => number) =>
    value === undefined ? undefined : parser(value);
  return {
    name: opts.name,
    cpuTier: opts.cpuTier === undefined ? undefined : options.choose('--cpu-tier', opts.cpuTier, CPU_TIERS),
    maxMemoryPerNodeBytes: parse(opts.maxMemoryPerNode, options.size('--max-memory-per-node')),
    maxQueryMemoryPerNodeBytes: parse(
      opts.maxQueryMemoryPerNode,
      options.size('--max-query-memory-per-node'),
    ),
    maxAllowedRunningJobs: parse(opts.maxRunningJobs, options.wholeNumber('--max-running-jobs')),
    maxStartTimeoutMs: parse(
      opts.maxStartTimeout,
      options.duration('--max-start-timeout', { positive: false }),
    ),
    maxRunTimeoutMs: parse(opts.maxRunTimeout, options.duration('--max-run-timeout', { positive: false })),
  };
}
