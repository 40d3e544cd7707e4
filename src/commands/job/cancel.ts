// `dlake job cancel ID`: ask the service to cancel a running job.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import type { Runtime } from '../../runtime.js';
import { confirmDestructive, examples, printDryRun } from '../common.js';

export function register(job: Command, rt: Runtime): void {
  job
    .command('cancel')
    .description('Ask the service to cancel a running job')
    .argument('<id>', 'job id')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--dry-run', 'print the request instead of sending it')
    .addHelpText(
      'after',
      examples('dlake job cancel ID', 'dlake job cancel ID --yes', 'dlake job cancel ID --dry-run'),
    )
    .action(rt.action(cancel));
}

async function cancel(ctx: Context, id: string, opts: { yes?: boolean; dryRun?: boolean }): Promise<void> {
  if (opts.dryRun)
    return printDryRun(ctx, { method: 'POST', path: `/api/v3/job/${encodeURIComponent(id)}/cancel` });
  await confirmDestructive(ctx, `cancel job ${id}?`, opts.yes);
  const { cancelJob } = await import('../../api/jobs.js');
  const outcome = await cancelJob(await ctx.client(), id);
  ctx.ui.notice(
    outcome.requested
      ? `cancellation of job ${id} requested`
      : `job ${id} had already ended (${outcome.status.jobState}): nothing to cancel`,
  );
}
