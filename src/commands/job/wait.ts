// `dlake job wait ID`: wait until a job ends; exit 6 if it FAILED or was CANCELED.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { waitWithFeedback } from '../../export/job-wait.js';
import { examples } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { duration } from '../options.js';
import { printStatus } from './status.js';

const declaration = (job: Command) =>
  job
    .command('wait')
    .description('Wait until a job ends; exit 6 if it FAILED or was CANCELED')
    .argument('<id>', 'job id')
    .option(
      '--timeout <duration>',
      'stop waiting after this long, e.g. 10m (exit 7; the job keeps running)',
      duration('--timeout'),
    )
    .option('--wait-timeout <duration>', 'the same as --timeout', duration('--wait-timeout'))
    .option('-y, --yes', 'on Ctrl-C, cancel the job without asking')
    .addHelpText(
      'after',
      examples(
        'dlake job wait ID',
        'dlake job wait ID --timeout 15m -o json',
        'dlake job wait ID -q && echo done',
      ),
    );

export const register = defineCommand(declaration, wait);

async function wait(ctx: Context, id: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  // `--timeout` after `job wait` is this command's (see DlakeCommand.parseOptions): it bounds the wait, and the
  // per-request timeout stays the global one.
  const timeoutMs = opts.timeout ?? opts.waitTimeout;
  const client = await ctx.client();
  const status = await waitWithFeedback(ctx, client, id, { timeoutMs, yes: opts.yes });
  const { requireCompleted } = await import('../../api/jobs.js');
  requireCompleted(status, id);
  await printStatus(ctx, id, status);
}
