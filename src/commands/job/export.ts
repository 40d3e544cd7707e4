// `dlake job export ID --out F`: stream every row of a job's result to a file, waiting for the job first.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import type { ExportFormat } from '../../export/writers.js';
import type { Runtime } from '../../runtime.js';
import { examples } from '../common.js';
import { exportToFile, formatOption, pageConcurrencyOption, waitTimeoutOption } from '../job-output.js';
import { waitWithFeedback } from '../job-wait.js';

interface ExportOptions {
  out: string;
  format?: ExportFormat;
  concurrency?: number;
  waitTimeout?: number;
  yes?: boolean;
}

export function register(job: Command, rt: Runtime): void {
  job
    .command('export')
    .description("Stream every row of a job's result to a file (waits for the job first)")
    .argument('<id>', 'job id')
    .requiredOption(
      '--out <file>',
      'file to write (- for standard output); written as FILE.partial, then renamed',
    )
    .addOption(formatOption())
    .addOption(pageConcurrencyOption())
    .addOption(waitTimeoutOption())
    .option('-y, --yes', 'on Ctrl-C while waiting, cancel the job without asking')
    .addHelpText(
      'after',
      examples(
        'dlake job export ID --out rows.csv',
        'dlake job export ID --out rows.ndjson --concurrency 8',
        'dlake job export ID --out - --format json | jq length',
      ),
    )
    .action(rt.action(exportJob));
}

async function exportJob(ctx: Context, id: string, opts: ExportOptions): Promise<void> {
  const { formatFromFileName } = await import('../../export/writers.js');
  const format = opts.format ?? formatFromFileName(opts.out) ?? 'csv';
  if (opts.out !== '-') {
    const { checkWritable } = await import('../../export/target.js');
    await checkWritable(opts.out);
  }
  const client = await ctx.client();
  // A job still running is waited for first, as `job wait` does.
  const status = await waitWithFeedback(ctx, client, id, { timeoutMs: opts.waitTimeout, yes: opts.yes });
  const { requireCompleted } = await import('../../api/jobs.js');
  requireCompleted(status, id);
  if (!status.rowCount && ctx.ui.verbose) ctx.ui.notice(`job ${id} reports no rows`);
  await exportToFile(ctx, { client, id, out: opts.out, format, concurrency: opts.concurrency });
}
