// How queues print: sizes and durations in human units in tables; the service's object in json.
import type { Queue } from '../../api/schemas/admin.js';
import type { Context } from '../../context.js';
import { detail, type FieldSpec, fieldRows } from '../../output/view.js';
import { formatDuration, formatSize } from '../../util/units.js';

export const size = (bytes: number | undefined): string => (bytes === undefined ? '' : formatSize(bytes));
export const duration = (ms: number | undefined): string => (ms === undefined ? '' : formatDuration(ms));

/** Fields of `queue get` in table and csv form: limits in human units, named without their unit suffix. */
const QUEUE_FIELDS: FieldSpec<Queue>[] = [
  { field: 'id' },
  { field: 'name' },
  { field: 'tag' },
  { field: 'cpuTier' },
  { field: 'maxMemoryPerNodeBytes', label: 'maxMemoryPerNode', value: (q) => size(q.maxMemoryPerNodeBytes) },
  {
    field: 'maxQueryMemoryPerNodeBytes',
    label: 'maxQueryMemoryPerNode',
    value: (q) => size(q.maxQueryMemoryPerNodeBytes),
  },
  { field: 'maxAllowedRunningJobs' },
  { field: 'maxStartTimeoutMs', label: 'maxStartTimeout', value: (q) => duration(q.maxStartTimeoutMs) },
  { field: 'maxRunTimeoutMs', label: 'maxRunTimeout', value: (q) => duration(q.maxRunTimeoutMs) },
];

export function printQueue(ctx: Context, queue: Queue): Promise<void> {
  return ctx.print(detail(queue, fieldRows(queue, QUEUE_FIELDS)));
}
