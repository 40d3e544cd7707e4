// `dlake job profile ID`: the query profile (docs/cli-contract.md "Operations insight"): saved as downloaded
// with --out (atomically: FILE.partial, then renamed), or summarised: total time, phases, the top operators by
// processing time with records and peak memory, spills and reflections. The hosted edition has no public
// profile download.
import type { Command } from '@commander-js/extra-typings';
import type { ProfileSummary } from '../../api/profile.js';
import type { Context } from '../../context.js';
import { checkProfileRequest, downloadJobProfile, summariseProfileZip } from '../../ops/job-profile.js';
import type { Detail } from '../../output/view.js';
import { formatDuration, formatSize } from '../../util/units.js';
import { examples } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { wholeNumber } from '../options.js';

const declaration = (job: Command) =>
  job
    .command('profile')
    .description(
      "Summarise a job's query profile (phases, top operators, spills, reflections) or save it with --out",
    )
    .argument('<id>', 'job id')
    .option('--out <file>', 'save the profile zip as downloaded, instead of summarising it')
    .option(
      '--top <n>',
      'operators to show, by processing time (default 10)',
      wholeNumber('--top', { min: 1 }),
    )
    .addHelpText(
      'after',
      examples(
        'dlake job profile ID',
        'dlake job profile ID --top 3 -o json',
        'dlake job profile ID --out profile.zip',
      ),
    );

export const register = defineCommand(declaration, profile);

async function profile(ctx: Context, given: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const id = await checkProfileRequest(ctx, given);
  const target = opts.out ? await import('../../export/target.js') : undefined;
  if (opts.out === '-') target?.checkStdout(ctx.streams.stdout, 'binary');
  else if (opts.out) await target?.checkWritable(opts.out);
  if (opts.out) return save(ctx, id, opts.out);
  const zip = await downloadJobProfile(ctx, id);
  const summary = await summariseProfileZip(zip, opts.top ?? 10);
  await ctx.print({ data: { id, ...summary }, rows: detailOf(summary), view: DETAIL });
}

/**
 * The zip streamed to FILE as it is downloaded, whatever its size, through FILE.partial and a rename: a FILE
 * that exists is whole. What is written must begin as a zip and end with a zip's end record, else nothing is
 * kept (exit 7): a server's page of HTML is no profile.
 */
async function save(ctx: Context, id: string, out: string): Promise<void> {
  const { openSink, isStdout } = await import('../../export/target.js');
  const { ZipShape } = await import('../../api/profile-zip.js');
  const signal = ctx.interrupt.signal;
  ctx.interruptible = true;
  const sink = await openSink(out, ctx.streams.stdout, { content: 'binary', signal });
  const shape = new ZipShape();
  try {
    await downloadJobProfile(ctx, id, signal, async (piece) => {
      shape.add(piece);
      await sink.write(piece, signal);
    });
    shape.check();
    await sink.commit();
  } catch (e) {
    await sink.discard();
    throw e;
  }
  if (isStdout(out)) return;
  ctx.ui.notice(`saved the profile (${formatSize(shape.bytes)}) to ${out}`);
}

const DETAIL = {
  columns: [
    { header: 'FIELD', value: (r: Detail) => r.key },
    { header: 'VALUE', value: (r: Detail) => r.value },
  ],
};

const ms = (v: number | null) => (v === null ? undefined : formatDuration(Math.round(v), { largest: 2 }));

function detailOf(s: ProfileSummary): Detail[] {
  const rows: Detail[] = [
    { key: 'user', value: s.user ?? undefined },
    { key: 'total', value: ms(s.totalMs) },
    { key: 'planning', value: ms(s.planningMs) },
    { key: 'queued', value: ms(s.queuedMs) },
    { key: 'queue', value: s.queue ?? undefined },
  ];
  const add = (label: string, values: string[]) => {
    values.forEach((value, i) => {
      rows.push({ key: i === 0 ? label : '', value });
    });
  };
  add(
    'phases',
    s.phases.map(
      (p) =>
        `${p.phase}: ${p.threads} thread${p.threads === 1 ? '' : 's'}, ${p.processMs} ms processing, peak ${formatSize(p.peakMemoryBytes)}`,
    ),
  );
  add(
    'top operators',
    s.operators.map(
      (o) =>
        `${o.operator} ${o.type}: ${o.processMs} ms, ${o.records.toLocaleString('en-US')} records, peak ${formatSize(o.peakMemoryBytes)}`,
    ),
  );
  add(
    'spills',
    s.spills.length ? s.spills.map((x) => `${x.operator} ${x.type}: ${x.metric} ${x.value}`) : ['none'],
  );
  add(
    'reflections',
    s.reflections.length
      ? s.reflections.map((x) => `${x.name ?? x.id} (${x.id})${x.used ? ', used' : ', considered'}`)
      : [s.accelerated ? 'accelerated' : 'none used'],
  );
  return rows.filter((r) => r.value !== undefined);
}
