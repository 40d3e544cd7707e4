// `dlake queue list|get|create|update|delete`: workload-management queues (Enterprise, admin only).
// Sizes and durations go in and come out in human units (8GiB, 15m); -o json prints the API's numbers.
import { type Command, Option } from 'commander';
import type { QueueFields } from '../api/queues.js';
import type { Queue } from '../api/schemas.js';
import { CPU_TIERS } from '../constants.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { Runtime } from '../runtime.js';
import { formatDuration, formatSize, parseDuration, parseSize } from '../util/units.js';
import { confirmDestructive, examples, printDryRun } from './common.js';

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

interface DeleteOptions {
  yes?: boolean;
  dryRun?: boolean;
}

export function register(program: Command, rt: Runtime): void {
  const queue = program.command('queue').description('Manage workload-management queues');

  queue
    .command('list')
    .alias('ls')
    .description('List the workload queues and their limits')
    .addHelpText('after', examples('dlake queue list', 'dlake queue list -o json --query "[].name"'))
    .action(rt.action(list));

  queue
    .command('get')
    .description('Show a queue by id (a UUID) or by name')
    .argument('<queue>', 'queue id or name')
    .addHelpText('after', examples('dlake queue get etl', 'dlake queue get etl -o json'))
    .action(rt.action(get));

  addQueueOptions(
    queue
      .command('create')
      .description('Create a queue; limits not given are left unset (CPU tier: the service default, MEDIUM)')
      .requiredOption('--name <name>', 'queue name (unique)'),
  )
    .addHelpText(
      'after',
      examples(
        'dlake queue create --name etl --cpu-tier HIGH --max-memory-per-node 8GiB --max-run-timeout 15m',
        'dlake queue create --name adhoc --max-running-jobs 4 --max-start-timeout 90s',
        'dlake queue create --name nightly --cpu-tier BACKGROUND --dry-run',
      ),
    )
    .action(rt.action(create));

  addQueueOptions(
    queue
      .command('update')
      .description("Change a queue's limits or name; everything not given stays as it is")
      .argument('<queue>', 'queue id or name')
      .option('--name <name>', 'new name'),
  )
    .addHelpText(
      'after',
      examples(
        'dlake queue update etl --max-run-timeout 30m',
        'dlake queue update etl --name etl-nightly --cpu-tier LOW',
        'dlake queue update etl --max-memory-per-node 16GiB --dry-run',
      ),
    )
    .action(rt.action(update));

  queue
    .command('delete')
    .alias('rm')
    .description('Delete a queue (asks first on a terminal); rules must not place jobs in it')
    .argument('<queue>', 'queue id or name')
    .option('-y, --yes', 'do not ask for confirmation (needed without a terminal)')
    .option('--dry-run', 'print the request instead of sending it')
    .addHelpText('after', examples('dlake queue delete adhoc', 'dlake queue delete adhoc --yes'))
    .action(rt.action(remove));
}

function addQueueOptions(cmd: Command): Command {
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

async function list(ctx: Context): Promise<void> {
  const client = await ctx.client();
  const { listQueues } = await import('../api/queues.js');
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

async function get(ctx: Context, ref: string): Promise<void> {
  const client = await ctx.client();
  const { resolveQueue } = await import('../api/queues.js');
  await printQueue(ctx, await resolveQueue(client, ref));
}

async function create(ctx: Context, opts: QueueOptions): Promise<void> {
  const { createQueue, createQueueRequest, newQueueBody } = await import('../api/queues.js');
  const body = newQueueBody(queueFields(opts));
  if (opts.dryRun) return printDryRun(ctx, createQueueRequest(body));
  const client = await ctx.client();
  const created = await createQueue(client, body);
  await printQueue(ctx, created);
  ctx.ui.notice(`Created queue ${created.name} (id ${created.id}).`);
}

async function update(ctx: Context, ref: string, opts: QueueOptions): Promise<void> {
  const fields = queueFields(opts);
  if (Object.values(fields).every((v) => v === undefined)) {
    throw new UsageError('nothing to change', {
      hint: 'give --name, --cpu-tier, --max-memory-per-node, --max-query-memory-per-node, --max-running-jobs, --max-start-timeout or --max-run-timeout',
    });
  }
  if (fields.name !== undefined && !fields.name.trim()) throw new UsageError('the new name is empty');
  const { mergeQueue, resolveQueue, updateQueue, updateQueueRequest } = await import('../api/queues.js');
  const client = await ctx.client();
  const current = await resolveQueue(client, ref);
  const merged = mergeQueue(current, fields);
  if (merged.changed.length === 0) {
    ctx.ui.notice(`Nothing to change: queue ${current.name} is already as asked.`);
    if (!opts.dryRun) await printQueue(ctx, current);
    return;
  }
  if (opts.dryRun) return printDryRun(ctx, updateQueueRequest(merged.body));
  const updated = await updateQueue(client, merged.body);
  await printQueue(ctx, updated);
  ctx.ui.notice(
    `Updated queue ${updated.name}: ${merged.changed.join(', ')}; its tag is now ${updated.tag}.`,
  );
}

async function remove(ctx: Context, ref: string, opts: DeleteOptions): Promise<void> {
  const { deleteQueue, deleteQueueRequest, resolveQueue } = await import('../api/queues.js');
  const client = await ctx.client();
  const queue = await resolveQueue(client, ref);
  if (opts.dryRun) return printDryRun(ctx, deleteQueueRequest(queue.id));
  await confirmDestructive(ctx, `delete queue "${queue.name}" (id ${queue.id})?`, opts.yes);
  await deleteQueue(client, queue);
  ctx.ui.notice(`Deleted queue ${queue.name}.`);
}

const size = (bytes: number | undefined): string => (bytes === undefined ? '' : formatSize(bytes));
const duration = (ms: number | undefined): string => (ms === undefined ? '' : formatDuration(ms));

/** Field labels of `queue get` in table and csv form: the API's names without their unit suffix. */
const QUEUE_ROWS: Array<[keyof Queue, string, (q: Queue) => unknown]> = [
  ['id', 'id', (q) => q.id],
  ['name', 'name', (q) => q.name],
  ['tag', 'tag', (q) => q.tag],
  ['cpuTier', 'cpuTier', (q) => q.cpuTier],
  ['maxMemoryPerNodeBytes', 'maxMemoryPerNode', (q) => size(q.maxMemoryPerNodeBytes)],
  ['maxQueryMemoryPerNodeBytes', 'maxQueryMemoryPerNode', (q) => size(q.maxQueryMemoryPerNodeBytes)],
  ['maxAllowedRunningJobs', 'maxAllowedRunningJobs', (q) => q.maxAllowedRunningJobs],
  ['maxStartTimeoutMs', 'maxStartTimeout', (q) => duration(q.maxStartTimeoutMs)],
  ['maxRunTimeoutMs', 'maxRunTimeout', (q) => duration(q.maxRunTimeoutMs)],
];

function printQueue(ctx: Context, queue: Queue): Promise<void> {
  const known = new Set<string>(QUEUE_ROWS.map(([field]) => field));
  const rows = [
    ...QUEUE_ROWS.filter(([field]) => queue[field] !== undefined).map(([, key, value]) => ({
      key,
      value: value(queue),
    })),
    ...Object.keys(queue)
      .filter((k) => !known.has(k) && queue[k] !== undefined)
      .map((key) => ({ key, value: queue[key] })),
  ];
  return ctx.print({
    data: queue,
    rows,
    view: {
      columns: [
        { header: 'FIELD', value: (r) => r.key },
        { header: 'VALUE', value: (r) => r.value },
      ],
    },
  });
}
