// `dlake job why ID`: why a job took the time it did and how it ran: its state, where its time went
// (planning, queued, executing), the queue and the rule that placed it or the engine, the reflections it
// considered, matched and chose (with their names and datasets), rows and bytes, and its error. From the job's
// status and its row of the history table (docs/cli-contract.md "Operations insight").
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { explainJob, type JobExplained } from '../../ops/jobs.js';
import type { Detail } from '../../output/view.js';
import { formatDuration, formatSize } from '../../util/units.js';
import { examples } from '../common.js';
import { defineCommand } from '../define.js';

const declaration = (job: Command) =>
  job
    .command('why')
    .description(
      'Explain a job: where its time went, the queue, rule or engine, the reflections it considered, matched and chose, rows, bytes and its error',
    )
    .argument('<id>', 'job id')
    .addHelpText(
      'after',
      examples('dlake job why 2f067496-7cf0-a70e-0222-34d53a5dc800', 'dlake job why ID -o json'),
    );

export const register = defineCommand(declaration, why);

async function why(ctx: Context, id: string): Promise<void> {
  const { job, warnings } = await explainJob(ctx, id);
  for (const w of warnings) ctx.ui.warn(w);
  await ctx.print({ data: job, rows: detailOf(job), view: DETAIL });
}

const DETAIL = {
  columns: [
    { header: 'FIELD', value: (r: Detail) => r.key },
    { header: 'VALUE', value: (r: Detail) => r.value },
  ],
};

const ms = (v: number | null) => (v === null ? undefined : formatDuration(v, { largest: 2 }));

function detailOf(j: JobExplained): Detail[] {
  const rows: Detail[] = [
    { key: 'id', value: j.id },
    { key: 'state', value: j.state },
    { key: 'planning', value: ms(j.timings.planningMs) },
    { key: 'queued', value: ms(j.timings.queuedMs) },
    { key: 'executing', value: ms(j.timings.executionMs) },
    { key: 'queue', value: j.queue ?? undefined },
    { key: 'rule', value: j.rule ?? undefined },
    { key: 'engine', value: j.engine ?? undefined },
    { key: 'datasets', value: j.datasets.length ? j.datasets.join(', ') : undefined },
    { key: 'rows returned', value: j.rowsReturned ?? undefined },
    { key: 'rows scanned', value: j.rowsScanned ?? undefined },
    {
      key: 'bytes scanned',
      value:
        j.bytesScanned === null
          ? undefined
          : typeof j.bytesScanned === 'number'
            ? formatSize(j.bytesScanned)
            : j.bytesScanned,
    },
  ];
  for (const kind of ['CHOSEN', 'MATCHED', 'CONSIDERED']) {
    j.reflections
      .filter((r) => r.relationship === kind)
      .forEach((r, i) => {
        const name = r.name ? `${r.name} (${r.id})` : r.id;
        rows.push({
          key: i === 0 ? `reflections ${kind.toLowerCase()}` : '',
          value: `${name} on ${r.dataset}`,
        });
      });
  }
  if (j.missing) {
    rows.push({ key: 'accelerated', value: j.accelerated ? 'yes (by which reflection is not known)' : 'no' });
    rows.push({ key: 'not known', value: j.missing });
  } else if (!j.reflections.length) rows.push({ key: 'reflections', value: 'none considered' });
  rows.push({ key: 'error', value: j.error ?? undefined });
  return rows.filter((r) => r.value !== undefined);
}
