// `dlake job get ID`: a job's state, times, row count, error and reflections.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { NotFoundError } from '../../errors.js';
import { detail, detailRows } from '../../output/view.js';
import { examples } from '../common.js';
import { defineCommand } from '../define.js';
import { printStatus } from './status.js';

const declaration = (job: Command) =>
  job
    .command('get')
    .description(
      "Show a job's state, times, row count, error and the reflections it chose, matched or considered",
    )
    .argument('<id>', 'job id')
    .addHelpText(
      'after',
      examples('dlake job get 2f067496-7cf0-a70e-0222-34d53a5dc800', 'dlake job get ID -o json'),
    );

export const register = defineCommand(declaration, get);

async function get(ctx: Context, given: string): Promise<void> {
  const [{ getJob }, { resolveJobId, historyRowOf, isShortJobId, jobNotFound, HISTORY_ONLY }, { isJobId }] =
    await Promise.all([
      import('../../api/jobs.js'),
      import('../../ops/jobs.js'),
      import('../../api/job-history.js'),
    ]);
  // A short id (as job list shows it) is looked up; any other text goes to the service as it is, one path segment.
  const id = isShortJobId(given) ? await resolveJobId(ctx, given) : given;
  try {
    return await printStatus(ctx, id, await getJob(await ctx.client(), id));
  } catch (e) {
    // Only a UUID is ever looked up in the history (it becomes SQL text).
    if (!(e instanceof NotFoundError) || !isJobId(id)) throw e;
    // A job the service keeps only the history row of: that row, as `job list` shows a job, and what it lacks.
    const row = await historyRowOf(ctx, id);
    if (!row) throw jobNotFound(id, e.message);
    const { jobSummary } = await import('../../api/job-history.js');
    const job = jobSummary(row);
    ctx.ui.notice(`note: ${HISTORY_ONLY}`);
    await ctx.print(detail({ ...job, missing: HISTORY_ONLY }, detailRows({ ...job })));
  }
}
