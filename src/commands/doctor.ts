// `dlake doctor [--bundle FILE.tar.gz]`: each step between dlake and the service checked and said in one line,
// with the fix of each that fails (docs/cli-contract.md "Doctor"); the exit code says whether one failed. With
// --bundle, also the support bundle (src/doctor/bundle.ts).
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../context.js';
import { ExitCode, QuietExit, UsageError } from '../errors.js';
import { terminalWidth } from '../output/width.js';
import { formatSize } from '../util/units.js';
import { examples } from './common.js';
import { defineCommand, type OptionsOf } from './define.js';
import { duration, wholeNumber } from './options.js';

const declaration = (doctor: Command) =>
  doctor
    .description(
      'Check each step between dlake and the service (config, DNS, TCP, TLS, the API, the clock, the login, Flight) and say how to fix the one that fails',
    )
    .option(
      '--bundle <file>',
      'also write a support bundle, FILE.tar.gz, over the API alone (MANIFEST.json lists what it holds)',
    )
    .option(
      '--jobs <n>',
      "the bundle's most recent failed jobs, with their profiles (default 5)",
      wholeNumber('--jobs', { min: 0, max: 100 }),
    )
    .option('--since <duration>', "the bundle's slice of the job history (default 24h)", duration('--since'))
    .addHelpText(
      'after',
      examples(
        'dlake doctor',
        'dlake doctor -p prod -o json',
        'dlake doctor --bundle support.tar.gz --jobs 10 --since 7d',
      ),
    );

export const register = defineCommand(declaration, doctor);

async function doctor(ctx: Context, opts: OptionsOf<typeof declaration>): Promise<void> {
  if (!opts.bundle && (opts.jobs !== undefined || opts.since !== undefined))
    throw new UsageError('--jobs and --since describe the bundle: give --bundle FILE.tar.gz too');
  const trace: string[] = [];
  if (opts.bundle) {
    if (!opts.bundle.endsWith('.tar.gz'))
      throw new UsageError(`--bundle ${opts.bundle}: the bundle is a .tar.gz file`, {
        hint: 'e.g. --bundle support.tar.gz',
      });
    await (await import('../export/target.js')).checkWritable(opts.bundle);
    // The bundle holds the run's own request trace, doctor's checks included (redacted as --debug's is).
    ctx.traceSink = (line) => trace.push(line);
  }
  const [{ runDoctor }, { reportLines }] = await Promise.all([
    import('../doctor/checks.js'),
    import('../doctor/report.js'),
  ]);
  const report = await runDoctor(ctx);
  if (ctx.format === 'table') {
    const width = terminalWidth(ctx.streams.stdout, ctx.env);
    ctx.streams.stdout.write(`${reportLines(report, width).join('\n')}\n`);
  } else
    await ctx.print({
      data: report,
      rows: report.checks,
      view: {
        columns: [
          { header: 'CHECK', value: (c) => c.check },
          { header: 'STATUS', value: (c) => c.status },
          { header: 'FINDING', value: (c) => c.finding },
          { header: 'FIX', value: (c) => c.fix },
        ],
      },
    });
  if (opts.bundle) {
    ctx.interruptible = true;
    const { writeBundle } = await import('../doctor/bundle.js');
    const done = await writeBundle(ctx, opts.bundle, report, {
      jobs: opts.jobs ?? 5,
      sinceMs: opts.since ?? 24 * 3600_000,
      trace,
    });
    const left = done.skipped.length ? `; left out: ${done.skipped.map((s) => s.what).join(', ')}` : '';
    ctx.ui.notice(
      `wrote the support bundle ${opts.bundle} (${formatSize(done.bytes)}, ${done.files.length + 1} files listed in MANIFEST.json${left})`,
    );
  }
  if (!report.ok) throw new QuietExit(ExitCode.no);
}
