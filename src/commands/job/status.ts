// A job's status as `job get` and `job wait` print it: the service's object in json, FIELD/VALUE rows in a table.
import type { JobStatus } from '../../api/jobs.js';
import type { Context } from '../../context.js';
import { formatDuration } from '../../util/units.js';

interface StatusRow {
  field: string;
  value: unknown;
}

export async function printStatus(ctx: Context, id: string, status: JobStatus): Promise<void> {
  const rows: StatusRow[] = [
    { field: 'id', value: id },
    { field: 'state', value: status.jobState },
    { field: 'query type', value: status.queryType },
    { field: 'rows', value: status.jobState === 'COMPLETED' ? status.rowCount : undefined },
    { field: 'started', value: status.startedAt },
    { field: 'ended', value: status.endedAt },
    { field: 'duration', value: elapsed(status.startedAt, status.endedAt) },
    { field: 'queue', value: status.queueName },
    { field: 'error', value: status.errorMessage },
    { field: 'cancellation reason', value: status.cancellationReason },
  ];
  const rels = status.acceleration?.reflectionRelationships ?? [];
  for (const kind of ['CHOSEN', 'MATCHED', 'CONSIDERED']) {
    const these = rels.filter((r) => r.relationship === kind);
    if (these.length) {
      rows.push({
        field: `reflections ${kind.toLowerCase()}`,
        value: these.map((r) => `${r.reflectionId} (dataset ${r.datasetId})`).join(', '),
      });
    }
  }
  const other = rels.filter((r) => !['CHOSEN', 'MATCHED', 'CONSIDERED'].includes(r.relationship));
  for (const r of other)
    rows.push({ field: `reflection ${r.relationship.toLowerCase()}`, value: r.reflectionId });
  await ctx.print({
    data: status,
    rows: rows.filter((r) => r.value !== undefined && r.value !== ''),
    view: {
      columns: [
        { header: 'FIELD', value: (r: StatusRow) => r.field },
        { header: 'VALUE', value: (r: StatusRow) => r.value },
      ],
    },
  });
}

function elapsed(start?: string, end?: string): string | undefined {
  const a = start ? Date.parse(start) : Number.NaN;
  const b = end ? Date.parse(end) : Number.NaN;
  return Number.isFinite(a) && Number.isFinite(b) && b >= a
    ? formatDuration(b - a, { largest: 2 })
    : undefined;
}
