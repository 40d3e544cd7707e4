// `dlake job get ID`: a job's state, times, row count, error and reflections.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
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

async function get(ctx: Context, id: string): Promise<void> {
  const { getJob } = await import('../../api/jobs.js');
  const status = await getJob(await ctx.client(), id);
  await printStatus(ctx, id, status);
}
