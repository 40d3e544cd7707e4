// `dlake user delete USER` (alias rm): needs the Enterprise edition.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { confirmDestructive, examples, printDryRun } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';

const declaration = (user: Command) =>
  user
    .command('delete')
    .alias('rm')
    .description('Delete a user (asks first on a terminal); needs the Enterprise edition')
    .argument('<user>', 'user id or name')
    .option('--version <tag>', "the user's tag, to delete only that version (default: read it first)")
    .option('-y, --yes', 'do not ask for confirmation (needed without a terminal)')
    .option('--dry-run', 'print the request instead of sending it')
    .addHelpText(
      'after',
      examples(
        'dlake user delete bob',
        'dlake user delete bob --yes',
        'dlake user delete bob --version Ab3xYz9QdE4= -y',
      ),
    );

export const register = defineCommand(declaration, remove);

async function remove(ctx: Context, ref: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const { deleteUser, deleteUserRequest, lookupUser } = await import('../../api/users.js');
  const { isUuid } = await import('../../util/catalog-ref.js');
  const client = await ctx.client();
  // The tag is read unless given; a name needs one read anyway, for the id.
  const known = opts.version && isUuid(ref) ? undefined : await lookupUser(client, ref);
  const id = known?.id ?? ref;
  const version = opts.version ?? known!.tag;
  if (opts.dryRun) return printDryRun(ctx, deleteUserRequest(id, version));
  const who = known ? `user "${known.name}" (id ${id})` : `user ${id}`;
  await confirmDestructive(ctx, `delete ${who}?`, opts.yes);
  await deleteUser(client, id, version);
  ctx.ui.notice(`Deleted ${who}.`);
}
