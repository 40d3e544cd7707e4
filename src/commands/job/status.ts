// A job's status as `job get` and `job wait` print it: the service's object in json, FIELD/VALUE rows in a table.
import type { JobStatus } from '../../api/jobs.js';
import type { Context } from '../../context.js';
import { reflectionInfo } from '../../ops/reflections.js';
import { type Detail, detail } from '../../output/view.js';
import { formatPath } from '../../util/catalog-ref.js';
import { formatDuration } from '../../util/units.js';

/** `name (TYPE) on Space/dataset` for each reflection id the summary names. */
async function reflectionNames(
  ctx: Context,
  rels: ReadonlyArray<{ reflectionId: string }>,
): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const [id, s] of await reflectionInfo(
    ctx,
    rels.map((r) => r.reflectionId),
  )) {
    const on = s.datasetPath?.length ? ` on ${formatPath(s.datasetPath)}` : '';
    if (s.name) names.set(id, `${s.name}${s.type ? ` (${s.type})` : ''}${on}`);
  }
  return names;
}

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
  const names = ctx.format === 'table' && rels.length ? await reflectionNames(ctx, rels) : new Map();
  // One line per reflection: its name and dataset path where the service tells them, its id to paste.
  const describe = (r: (typeof rels)[number]) => {
    const known = names.get(r.reflectionId);
    return known ? `${known} (${r.reflectionId})` : `${r.reflectionId} (dataset ${r.datasetId})`;
  };
  for (const kind of ['CHOSEN', 'MATCHED', 'CONSIDERED']) {
    const these = rels.filter((r) => r.relationship === kind);
    these.forEach((r, i) => {
      rows.push({ key: i === 0 ? `reflections ${kind.toLowerCase()}` : '', value: describe(r) });
    });
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
