// What the user verbs share: the name options and how a user prints.
import type { User } from '../../api/schemas/admin.js';
import type { UserChanges } from '../../api/users.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { detail, type FieldSpec, fieldRows } from '../../output/view.js';

/** What the password options say, for the help of create and update. */
export const PASSWORD_HELP = {
  stdin: 'read a new password for the user from standard input (a local user; never on the command line)',
  prompt: 'ask for a new password on the terminal, hidden, twice',
};

/**
 * The new password, when one was asked for: from stdin or a hidden prompt (typed twice). Passwords are
 * never taken from argv (shell history, process lists); `--password VALUE` is refused by the command, and
 * the command declares the two options as conflicting.
 */
export async function newPassword(
  ctx: Context,
  opts: { passwordStdin?: boolean; passwordPrompt?: boolean },
): Promise<string | undefined> {
  let password: string | undefined;
  if (opts.passwordStdin) {
    const { readStdin } = await import('../../output/prompt.js');
    password = await readStdin(ctx.streams.stdin);
    if (!password) throw new UsageError('no password on standard input');
  } else if (opts.passwordPrompt) {
    if (!ctx.ui.interactive) {
      throw new UsageError('cannot ask for the password: there is no terminal', {
        hint: 'pipe it in with --password-stdin',
      });
    }
    const { readHidden } = await import('../../output/prompt.js');
    password = await readHidden(ctx.streams, 'New password: ');
    if (!password) throw new UsageError('the password is empty');
    if ((await readHidden(ctx.streams, 'Repeat the password: ')) !== password) {
      throw new UsageError('the two passwords differ');
    }
  }
  return password;
}

export function names(
  opts: Pick<UserChanges, 'firstName' | 'lastName' | 'email'>,
): Pick<UserChanges, 'firstName' | 'lastName' | 'email'> {
  return { firstName: opts.firstName, lastName: opts.lastName, email: opts.email };
}

/** The fields of a user in the order a table shows them; roles as a list of names. */
const USER_FIELDS: FieldSpec<User>[] = [
  { field: 'id' },
  { field: 'name' },
  { field: 'firstName' },
  { field: 'lastName' },
  { field: 'email' },
  { field: 'roles', value: (u) => (u.roles ?? []).map((r) => r.name).join(', ') },
  { field: 'source' },
  { field: 'active' },
  { field: 'tag' },
];

/** json: the service's object; table/csv: one row per field. */
export function printUser(ctx: Context, user: User): Promise<void> {
  return ctx.print(detail(user, fieldRows(user, USER_FIELDS)));
}
