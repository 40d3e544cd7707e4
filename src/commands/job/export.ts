// `dlake job export ID --out F`: stream every row of a job's result to a file, waiting for the job first;
// `--resume` continues an interrupted export from FILE.partial.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { waitWithFeedback } from '../../export/job-wait.js';
import type { ResumeRecord } from '../../export/target.js';
import { examples } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import {
  formatOption,
  noClobberOption,
  pageConcurrencyOption,
  transportOption,
  waitTimeoutOption,
} from '../job-options.js';

const declaration = (job: Command) =>
  job
    .command('export')
    .description("Stream every row of a job's result to a file (waits for the job first)")
    .argument('<id>', 'job id')
    .requiredOption(
      '--out <file>',
      'file to write (- for standard output); written as FILE.partial, then renamed',
    )
    .addOption(formatOption())
    .addOption(noClobberOption())
    .addOption(pageConcurrencyOption())
    .addOption(waitTimeoutOption())
    .addOption(transportOption())
    .option('--resume', 'continue an interrupted export from the complete rows of FILE.partial')
    .option('-y, --yes', 'on Ctrl-C while waiting, cancel the job without asking')
    .addHelpText(
      'after',
      examples(
        'dlake job export ID --out rows.csv',
        'dlake job export ID --out rows.parquet',
        'dlake job export ID --out rows.ndjson.gz --concurrency 8',
        'dlake job export ID --out rows.csv --resume',
        'dlake job export ID --out - --format json | jq length',
        'dlake job export ID --out rows.parquet --transport flight --flight-url grpc+tls://lake:32010',
      ),
    );

export const register = defineCommand(declaration, exportJob);

async function exportJob(ctx: Context, id: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const { exportSpec } = await import('../../export/formats.js');
  const spec = exportSpec(opts.out, opts.format, !opts.clobber);
  if (opts.resume && opts.out === '-') throw new UsageError('--resume needs --out FILE, not standard output');
  const transport = opts.transport ?? 'auto';
  const flight = transport === 'rest' ? undefined : await import('../../export/flight/transport.js');
  flight?.checkTransport(transport, opts.resume ? '--resume' : undefined);
  const sql = flight?.jobResultsSql(id);
  let resume: ResumeRecord | undefined;
  if (opts.out === '-') (await import('../../export/target.js')).checkStdout(ctx.streams.stdout, spec.format);
  else {
    const { checkWritable } = await import('../../export/target.js');
    await checkWritable(opts.out, { noClobber: !opts.clobber });
    // Said before waiting for the job, not after.
    if (opts.resume) {
      const { checkResume } = await import('../../export/resume.js');
      resume = await checkResume(opts.out, id, spec);
      if (!resume) ctx.ui.notice(`nothing to resume for ${opts.out}: exporting from the first row`);
    }
  }
  const client = await ctx.client();
  // A job still running is waited for first, as `job wait` does.
  const status = await waitWithFeedback(ctx, client, id, { timeoutMs: opts.waitTimeout, yes: opts.yes });
  const { requireCompleted } = await import('../../api/jobs.js');
  requireCompleted(status, id);
  if (!status.rowCount && ctx.ui.verbose) ctx.ui.notice(`job ${id} reports no rows`);
  const { exportResult } = await import('../../export/export.js');
  await exportResult(ctx, {
    out: opts.out,
    spec,
    // `--resume` keeps to REST (`auto` says so once it has an endpoint to say it about).
    flight: sql
      ? { sql, transport, restOnly: opts.resume ? '--resume' : undefined, waitTimeoutMs: opts.waitTimeout }
      : undefined,
    rest: async () => ({ client, id }),
    resume,
    concurrency: opts.concurrency,
  });
}
