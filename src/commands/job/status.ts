// A job's status as `job get` and `job wait` print it: the service's object in json, FIELD/VALUE rows in a table.
import type { JobStatus } from '../../api/jobs.js';
import type { Context } from '../../context.js';
import { type Detail, detail } from '../../output/view.js';
import { formatDuration } from '../../util/units.js';

export async function printStatus(ctx: Context, id: string, status: JobStatus): Promise<void> {
  const rows: Detail[] = [
    { key: 'id', value: id },
    { key: 'state', value: status.jobState },
    { key: 'query type', value: status.queryType },
    { key: 'rows', value: status.jobState === 'COMPLETED' ? status.rowCount : undefined },
    { key: 'started', value: status.startedAt },
    { key: 'ended', value: status.endedAt },
    { key: 'duration', value: elapsed(status.startedAt, status.endedAt) },
    { key: 'queue', value: status.queueName },
    { key: 'error', value: status.errorMessage },
    { key: 'cancellation reason', value: status.cancellationReason },
  ];
  const rels = status.acceleration?.reflectionRelationships ?? [];
  for (const kind of ['CHOSEN', 'MATCHED', 'CONSIDERED']) {
    const these = rels.filter((r) => r.relationship === kind);
    if (these.length) {
      rows.push({
        key: `reflections ${kind.toLowerCase()}`,
        value: these.map((r) => `${r.reflectionId} (dataset ${r.datasetId})`).join(', '),
      });
    }
  }
  const other = rels.filter((r) => !['CHOSEN', 'MATCHED', 'CONSIDERED'].includes(r.relationship));
  for (const r of other)
    rows.push({ key: `reflection ${r.relationship.toLowerCase()}`, value: r.reflectionId });
  await ctx.print(
    detail(
      status,
      rows.filter((r) => r.value !== ''),
    ),
  );
}

function elapsed(start?: string, end?: string): string | undefined {
  const a = start ? Date.parse(start) : Number.NaN;
  const b = end ? Date.parse(end) : Number.NaN;
  return Number.isFinite(a) && Number.isFinite(b) && b >= a
    ? formatDuration(b - a, { largest: 2 })
    : undefined;
}
