// `dlake job wait ID`: wait until a job ends; exit 6 if it FAILED or was CANCELED.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import type { Runtime } from '../../runtime.js';
import { parseDuration } from '../../util/units.js';
import { examples } from '../common.js';
import { waitWithFeedback } from '../job-wait.js';
import { duration } from '../options.js';
import { printStatus } from './status.js';

export function register(job: Command, rt: Runtime): void {
  job
    .command('wait')
    .description('Wait until a job ends; exit 6 if it FAILED or was CANCELED')
    .argument('<id>', 'job id')
    .option('--timeout <duration>', 'stop waiting after this long, e.g. 10m (exit 7; the job keeps running)')
    .option('--wait-timeout <duration>', 'the same as --timeout', duration('--wait-timeout'))
    .option('-y, --yes', 'on Ctrl-C, cancel the job without asking')
    .addHelpText(
      'after',
      examples(
        'dlake job wait ID',
        'dlake job wait ID --timeout 15m -o json',
        'dlake job wait ID -q && echo done',
      ),
    )
    .action(rt.action(wait));
}

async function wait(ctx: Context, id: string, opts: { waitTimeout?: number; yes?: boolean }): Promise<void> {
  // The root command owns --timeout (the per-request timeout), so its value arrives there; on `job wait`
  // it also bounds the whole wait, as cli.md says.
  const timeoutMs = opts.waitTimeout ?? (ctx.opts.timeout ? parseDuration(ctx.opts.timeout) : undefined);
  const client = await ctx.client();
  const status = await waitWithFeedback(ctx, client, id, { timeoutMs, yes: opts.yes });
  const { requireCompleted } = await import('../../api/jobs.js');
  requireCompleted(status, id);
  await printStatus(ctx, id, status);
}
