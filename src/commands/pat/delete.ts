// `dlake pat delete USER TOKEN_ID | --all` (alias revoke): revoke one token, or every token of the user.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { isUuid } from '../../util/catalog-ref.js';
import { confirmDestructive, examples, printDryRun } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { userOf } from './shared.js';

const declaration = (pat: Command) =>
  pat
    .command('delete')
    .alias('revoke')
    .description("Revoke one of a user's personal access tokens, or all of them with --all (asks first)")
    .argument('<user>', 'user id or name')
    .argument('[token-id]', 'the token id (TID in `dlake pat list`)')
    .option('--all', 'revoke every token of the user')
    .option('-y, --yes', 'do not ask for confirmation (needed without a terminal)')
    .option('--dry-run', 'print the request instead of sending it (the user is still looked up)')
    .addHelpText(
      'after',
      examples(
        'dlake pat delete bob 5b0f8c1e-2d3a-4b5c-9d6e-7f8091a2b3c4',
        'dlake pat delete bob --all --yes',
        'dlake pat revoke ci-bot --all --dry-run',
      ),
    );

export const register = defineCommand(declaration, remove);

async function remove(
  ctx: Context,
  ref: string,
  tid: string | undefined,
  opts: OptionsOf<typeof declaration>,
): Promise<void> {
  if (opts.all && tid) throw new UsageError('give either a token id or --all, not both');
  if (!opts.all && !tid) {
    throw new UsageError('which token?', { hint: 'give its id (see `dlake pat list USER`) or --all' });
  }
  const { deletePat, deletePatRequest } = await import('../../api/pats.js');
  if (tid) checkTokenId(tid);
  const client = await ctx.client();
  const user = await userOf(client, ref);
  const req = deletePatRequest(user.id, tid);
  if (opts.dryRun) return printDryRun(ctx, req);
  const what = tid
    ? `personal access token ${tid} of ${user.name}`
    : `every personal access token of ${user.name}`;
  await confirmDestructive(ctx, `revoke ${what}?`, opts.yes);
  await deletePat(client, user.id, tid);
  ctx.ui.notice(`Revoked ${what}.`);
}

/** Token ids are UUIDs; anything else would become a URL segment unchecked. */
function checkTokenId(tid: string): void {
  if (!isUuid(tid)) {
    throw new UsageError(`"${tid}" is not a token id`, {
      hint: 'token ids are UUIDs: see `dlake pat list USER`',
    });
  }
}
