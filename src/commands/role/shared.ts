// What the role verbs share: how a role prints, and the membership change behind add-member/remove-member.
import type { Role } from '../../api/roles.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { send } from '../common.js';

const ROLE_FIELDS = ['id', 'name', 'type', 'description', 'memberCount', 'roles'];

/** json: the service's object; table/csv: one row per field, `roles` (those it is a member of) as names. */
export function printRole(ctx: Context, role: Role): Promise<void> {
  const rest = Object.keys(role).filter((k) => !ROLE_FIELDS.includes(k));
  const rows = [...ROLE_FIELDS, ...rest]
    .filter((key) => role[key] !== undefined)
    .map((key) => ({
      key: key === 'roles' ? 'member of' : key,
      value: key === 'roles' ? (role.roles ?? []).map((r) => r.name).join(', ') : role[key],
    }));
  return ctx.print({
    data: role,
    rows,
    view: {
      columns: [
        { header: 'FIELD', value: (r) => r.key },
        { header: 'VALUE', value: (r) => r.value },
      ],
    },
  });
}

/** `add-member` / `remove-member`: users and roles by name or id, looked up first, then one PATCH. */
export async function changeMembership(
  ctx: Context,
  op: 'add' | 'remove',
  ref: string,
  opts: { user?: string[]; role?: string[]; dryRun?: boolean },
): Promise<void> {
  const users = opts.user ?? [];
  const roles = opts.role ?? [];
  if (users.length === 0 && roles.length === 0) {
    throw new UsageError('no member given', { hint: 'give --user NAME or --role NAME (repeatable)' });
  }
  const api = await import('../../api/roles.js');
  const { lookupUser } = await import('../../api/users.js');
  const client = await ctx.client();
  const role = await api.resolveRole(client, ref);
  if (role.name.toUpperCase() === api.PUBLIC_ROLE) {
    throw new UsageError(`cannot ${op} members of "${role.name}": it is a system role every user belongs to`);
  }
  const [userRefs, roleRefs] = await Promise.all([
    Promise.all(users.map((u) => lookupUser(client, u))),
    Promise.all(roles.map((r) => api.resolveRole(client, r))),
  ]);
  const self = roleRefs.find((r) => r.id === role.id);
  if (self) throw new UsageError(`role "${role.name}" cannot be a member of itself`);
  const changes: import('../../api/roles.js').MemberChange[] = [
    ...userRefs.map((u) => ({ op, id: u.id, type: 'user' as const })),
    ...roleRefs.map((r) => ({ op, id: r.id, type: 'role' as const })),
  ];
  await send(
    ctx,
    { request: api.membersRequest(role.id, changes), send: (c) => api.changeMembers(c, role.id, changes) },
    { dryRun: opts.dryRun },
  );
  if (opts.dryRun) return;
  const names = [...userRefs.map((u) => `user ${u.name}`), ...roleRefs.map((r) => `role ${r.name}`)];
  ctx.ui.notice(
    op === 'add'
      ? `Added to role ${role.name}: ${names.join(', ')}.`
      : `Removed from role ${role.name}: ${names.join(', ')}.`,
  );
}
