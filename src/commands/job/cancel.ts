// `dlake job cancel ID`: ask the service to cancel a running job.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { confirmDestructive, examples, printDryRun } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';

const declaration = (job: Command) =>
  job
    .command('cancel')
    .description('Ask the service to cancel a running job')
    .argument('<id>', 'job id')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--dry-run', 'print the request instead of sending it')
    .addHelpText(
      'after',
      examples('dlake job cancel ID', 'dlake job cancel ID --yes', 'dlake job cancel ID --dry-run'),
    );

export const register = defineCommand(declaration, cancel);

async function cancel(ctx: Context, id: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const { cancelJob, cancelJobRequest } = await import('../../api/jobs.js');
  // Built first: an id that cannot be a URL segment is refused before the question or any request.
  const request = cancelJobRequest(id);
  if (opts.dryRun) return printDryRun(ctx, request);
  await confirmDestructive(ctx, `cancel job ${id}?`, opts.yes);
  const outcome = await cancelJob(await ctx.client(), id);
  ctx.ui.notice(
    outcome.requested
      ? `cancellation of job ${id} requested`
      : `job ${id} had already ended (${outcome.status.jobState}): nothing to cancel`,
  );
}
