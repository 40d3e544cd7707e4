// How queues print: sizes and durations in human units in tables; the service's object in json.
import type { Queue } from '../../api/schemas.js';
import type { Context } from '../../context.js';
import { formatDuration, formatSize } from '../../util/units.js';

export const size = (bytes: number | undefined): string => (bytes === undefined ? '' : formatSize(bytes));
export const duration = (ms: number | undefined): string => (ms === undefined ? '' : formatDuration(ms));

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

export function printQueue(ctx: Context, queue: Queue): Promise<void> {
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
