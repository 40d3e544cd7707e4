// The limit options that `queue create` and `queue update` share, parsed into the API's units.
import { type Command, Option } from 'commander';
import type { QueueFields } from '../../api/queues.js';
import { CPU_TIERS } from '../../constants.js';
import { UsageError } from '../../errors.js';
import { parseDuration, parseSize } from '../../util/units.js';

export interface QueueOptions {
  name?: string;
  cpuTier?: string;
  maxMemoryPerNode?: string;
  maxQueryMemoryPerNode?: string;
  maxRunningJobs?: string;
  maxStartTimeout?: string;
  maxRunTimeout?: string;
  dryRun?: boolean;
}

export function addQueueOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--cpu-tier <tier>', 'CPU priority of its jobs').choices(CPU_TIERS))
    .option('--max-memory-per-node <size>', 'memory per node for all its jobs, e.g. 8GiB, 512MiB')
    .option('--max-query-memory-per-node <size>', 'memory per node for one job, e.g. 2GiB')
    .option('--max-running-jobs <n>', 'jobs that may run at once')
    .option('--max-start-timeout <duration>', 'longest wait in the queue, e.g. 90s, 5m')
    .option('--max-run-timeout <duration>', 'longest run time of a job, e.g. 15m, 2h')
    .option('--dry-run', 'print the request instead of sending it');
}

/** The options in the API's units; any value that does not parse is a usage error, before any request. */
export function queueFields(opts: QueueOptions): QueueFields {
  return {
    name: opts.name,
    cpuTier: opts.cpuTier,
    maxMemoryPerNodeBytes: parseOption('--max-memory-per-node', opts.maxMemoryPerNode, parseSize),
    maxQueryMemoryPerNodeBytes: parseOption(
      '--max-query-memory-per-node',
      opts.maxQueryMemoryPerNode,
      parseSize,
    ),
    maxAllowedRunningJobs: parseOption('--max-running-jobs', opts.maxRunningJobs, parseCount),
    maxStartTimeoutMs: parseOption('--max-start-timeout', opts.maxStartTimeout, (v) => parseDuration(v)),
    maxRunTimeoutMs: parseOption('--max-run-timeout', opts.maxRunTimeout, (v) => parseDuration(v)),
  };
}

function parseOption(
  flag: string,
  value: string | undefined,
  parse: (v: string) => number,
): number | undefined {
  if (value === undefined) return undefined;
  try {
    return parse(value);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    throw new UsageError(`${flag}: ${e.message}`, { hint: e.hint });
  }
}

function parseCount(value: string): number {
  const n = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n))
    throw new UsageError(`invalid number "${value}": give a whole number, e.g. 4`);
  return n;
}
