// `dlake pat create USER`: writes the token, and only the token, to stdout: `TOKEN=$(dlake pat create …)` works.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { writeUnredacted } from '../../output/secrets.js';
import { formatDuration } from '../../util/units.js';
import { examples, printDryRun } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { duration } from '../options.js';
import { userOf } from './shared.js';

const declaration = (pat: Command) =>
  pat
    .command('create')
    .description('Create a personal access token for a user and print it, once, alone on stdout')
    .argument('<user>', 'user id or name')
    .requiredOption('--label <label>', 'what the token is for')
    .option('--expires <duration>', 'lifetime, e.g. 30d, 12h (at most 180d)', '30d')
    .option('--dry-run', 'print the request instead of sending it (the user is still looked up)')
    .addHelpText(
      'after',
      examples(
        'dlake pat create bob --label laptop --expires 30d',
        'TOKEN=$(dlake pat create ci-bot --label ci --expires 90d)',
        'dlake pat create ci-bot --label ci | dlake login -p ci --token-stdin',
      ),
    );

export const register = defineCommand(declaration, create);

async function create(ctx: Context, ref: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const { checkNewPat, createPat, patsTarget } = await import('../../api/pats.js');
  const ms = duration('--expires', { positive: false })(opts.expires);
  const body = { label: opts.label, millisecondsToExpire: ms };
  checkNewPat(body);
  const client = await ctx.client();
  const user = await userOf(client, ref);
  if (opts.dryRun) return printDryRun(ctx, { method: 'POST', at: patsTarget(user.id), json: body });
  const token = await createPat(client, user.id, body);
  writeUnredacted(ctx.streams.stdout, `${token}\n`);
  const expiresAt = new Date(Date.now() + ms).toISOString();
  ctx.ui.notice(
    `Created personal access token "${opts.label}" for ${user.name}, valid ${formatDuration(ms, { largest: 2 })} (until about ${expiresAt}). It is shown only once.`,
  );
}
