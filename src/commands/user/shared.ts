// What the user verbs share: the name options and how a user prints.
import type { User } from '../../api/schemas.js';
import type { UserChanges } from '../../api/users.js';
import type { Context } from '../../context.js';
import { detail, type FieldSpec, fieldRows } from '../../output/view.js';

export interface NameOptions {
  firstName?: string;
  lastName?: string;
  email?: string;
  dryRun?: boolean;
}

export function names(opts: NameOptions): Pick<UserChanges, 'firstName' | 'lastName' | 'email'> {
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
