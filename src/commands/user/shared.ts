// What the user verbs share: the name options and how a user prints.
import type { User } from '../../api/schemas.js';
import type { UserChanges } from '../../api/users.js';
import type { Context } from '../../context.js';

export interface NameOptions {
  firstName?: string;
  lastName?: string;
  email?: string;
  dryRun?: boolean;
}

export function names(opts: NameOptions): Pick<UserChanges, 'firstName' | 'lastName' | 'email'> {
  return { firstName: opts.firstName, lastName: opts.lastName, email: opts.email };
}

const USER_FIELDS = ['id', 'name', 'firstName', 'lastName', 'email', 'roles', 'source', 'active', 'tag'];

/** json: the service's object; table/csv: one row per field, roles as a list of names. */
export function printUser(ctx: Context, user: User): Promise<void> {
  const rest = Object.keys(user).filter((k) => !USER_FIELDS.includes(k));
  const rows = [...USER_FIELDS, ...rest]
    .filter((key) => user[key] !== undefined)
    .map((key) => ({
      key,
      value: key === 'roles' ? (user.roles ?? []).map((r) => r.name).join(', ') : user[key],
    }));
  return ctx.print({
    data: user,
    rows,
    view: {
      columns: [
        { header: 'FIELD', value: (r) => r.key },
        { header: 'VALUE', value: (r) => r.value },
      ],
    },
  });
}
