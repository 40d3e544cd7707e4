// Local users and roles as definitions (`--kinds user,role`; docs/cli-contract.md "Definitions as code"). A user
// file holds its names and email, never a password, an id or a tag; a role file its description and its members,
// users and roles by name. Membership lives on the role's side only: a user file says nothing of its roles. The
// service keeps a role's members on the members themselves (a user's `roles`, a role's `roles`), so they are
// read from the listings of users and roles, once per run (docs/api-facts.md §7.2, §8).
import type { ApiClient } from '../api/http.js';
import * as roles from '../api/roles.js';
import type { User } from '../api/schemas/admin.js';
import * as users from '../api/users.js';
import { ConflictError } from '../errors.js';
import { USER_FIELDS } from './admin-fields.js';
import type { Definition } from './definitions.js';
import { diffFields, type PlanEntry } from './diff.js';
import type { KindHandler } from './kind.js';

interface Member {
  id: string;
  name: string;
}
interface Members {
  users: Member[];
  roles: Member[];
}

/** What several plans share: the users and the roles, each listed once. */
interface PrincipalReader {
  users(): Promise<User[]>;
  roles(): Promise<roles.Role[]>;
}

export function principalReader(client: ApiClient): PrincipalReader {
  let u: Promise<User[]> | undefined;
  let r: Promise<roles.Role[]> | undefined;
  return {
    users: () => {
      u ??= users.listUsers(client);
      return u;
    },
    roles: () => {
      r ??= roles.listRoles(client);
      return r;
    },
  };
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * A user that files describe: local (created on this service, not imported from an identity provider) and
 * a person (service users sign in with client credentials made elsewhere).
 */
function isLocalUser(u: User): boolean {
  const identity = (u as { identityType?: unknown }).identityType;
  return (u.source === undefined || u.source === 'local') && identity !== 'SERVICE_USER';
}

/** A role that files describe: one made on this service (not a system role, not imported). */
function isLocalRole(r: roles.Role): boolean {
  const system = ['PUBLIC', 'ADMIN'].includes(r.name.toUpperCase());
  return !system && (r.type === undefined || r.type === 'INTERNAL');
}

function userFields(u: User): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of USER_FIELDS) if (u[f]) out[f] = u[f];
  return out;
}

/** A role's members as the service keeps them: users holding it, roles that are members of it. */
function membersOf(role: roles.Role, userList: readonly User[], roleList: readonly roles.Role[]): Members {
  const holds = (refs: readonly { id?: string; name: string }[] | undefined) =>
    (refs ?? []).some((x) => (x.id && x.id === role.id) || same(x.name, role.name));
  const byName = (a: Member, b: Member) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return {
    users: userList
      .filter((u) => holds(u.roles))
      .map((u) => ({ id: u.id, name: u.name }))
      .sort(byName),
    roles: roleList
      .filter((r) => r.id !== role.id && holds(r.roles))
      .map((r) => ({ id: r.id, name: r.name }))
      .sort(byName),
  };
}

/** Description and members as the file holds them: empty lists and an empty description left out. */
function roleFields(description: unknown, members: { users: string[]; roles: string[] }) {
  const out: Record<string, unknown> = {};
  if (typeof description === 'string' && description !== '') out.description = description;
  const lists: Record<string, string[]> = {};
  for (const k of ['roles', 'users'] as const) {
    const names = [...new Set(members[k])].sort();
    if (names.length) lists[k] = names;
  }
  if (Object.keys(lists).length) out.members = lists;
  return out;
}

const names = (m: Members) => ({ users: m.users.map((x) => x.name), roles: m.roles.map((x) => x.name) });

/** What a role file says its members are (a list it leaves out is none). */
function wantedMembers(def: Definition): { users: string[]; roles: string[] } {
  const m = (def.fields.members ?? {}) as { users?: string[]; roles?: string[] };
  return { users: m.users ?? [], roles: m.roles ?? [] };
}

async function pullUsers(reader: PrincipalReader): Promise<Definition[]> {
  return (await reader.users())
    .filter(isLocalUser)
    .map((u) => ({ kind: 'user', path: [u.name], fields: userFields(u), id: u.id }));
}

async function pullRoles(reader: PrincipalReader): Promise<Definition[]> {
  const [userList, roleList] = await Promise.all([reader.users(), reader.roles()]);
  return roleList.filter(isLocalRole).map((r) => ({
    kind: 'role',
    path: [r.name],
    fields: roleFields(r.description, names(membersOf(r, userList, roleList))),
    id: r.id,
  }));
}

/** A user file is the whole user: a name or email it leaves out is cleared. */
async function planUser(reader: PrincipalReader, def: Definition): Promise<PlanEntry | undefined> {
  const want = Object.fromEntries(Object.entries(def.fields).filter(([, v]) => v !== ''));
  const current = (await reader.users()).find((u) => same(u.name, def.path[0]!));
  if (!current) return { action: 'create', def, changes: diffFields({}, want) };
  const changes = diffFields(userFields(current), want);
  return changes.length ? { action: 'update', def, changes, state: current } : undefined;
}

interface RoleState {
  role: roles.Role;
  members: Members;
}

async function planRole(reader: PrincipalReader, def: Definition): Promise<PlanEntry | undefined> {
  const want = roleFields(def.fields.description, wantedMembers(def));
  const [userList, roleList] = await Promise.all([reader.users(), reader.roles()]);
  const role = roleList.find((r) => same(r.name, def.path[0]!));
  if (!role) return { action: 'create', def, changes: diffFields({}, want) };
  const members = membersOf(role, userList, roleList);
  const changes = diffFields(roleFields(role.description, names(members)), want);
  const state: RoleState = { role, members };
  return changes.length ? { action: 'update', def, changes, state } : undefined;
}

/**
 * With `--prune`, the local users (the local roles) that no file names, when the files name at least one user
 * (role): a folder without user files does not manage users, and pruning it deletes none.
 */
export async function planPrincipalDeletes(
  reader: PrincipalReader,
  defs: readonly Definition[],
): Promise<PlanEntry[]> {
  const named = (kind: 'user' | 'role') =>
    new Set(defs.filter((d) => d.kind === kind).map((d) => d.path[0]!.toLowerCase()));
  const out: PlanEntry[] = [];
  const byName = <T extends { name: string }>(list: T[]) =>
    [...list].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  const userNames = named('user');
  if (userNames.size) {
    for (const u of byName((await reader.users()).filter(isLocalUser))) {
      if (userNames.has(u.name.toLowerCase())) continue;
      out.push({
        action: 'delete',
        def: { kind: 'user', path: [u.name], fields: {} },
        changes: [],
        state: u,
      });
    }
  }
  const roleNames = named('role');
  if (roleNames.size) {
    for (const r of byName((await reader.roles()).filter(isLocalRole))) {
      if (roleNames.has(r.name.toLowerCase())) continue;
      out.push({
        action: 'delete',
        def: { kind: 'role', path: [r.name], fields: {} },
        changes: [],
        state: r,
      });
    }
  }
  return out;
}

async function applyUser(client: ApiClient, entry: PlanEntry): Promise<void> {
  const { def } = entry;
  const name = def.path[0]!;
  const fields = def.fields as Partial<Record<(typeof USER_FIELDS)[number], string>>;
  if (entry.action === 'create') {
    // No password: the command reports each user created, who needs one set or signs in through an identity
    // provider (a password is a secret, and a file never holds one).
    await users.createUser(client, users.newUserBody({ name, ...fields }, []));
    return;
  }
  const current = entry.state as User;
  if (entry.action === 'delete') {
    await users.deleteUser(client, current.id, current.tag);
    return;
  }
  // The whole user as read, with its roles (a PUT removes those it leaves out) and the tag read when
  // planning, so a change since is a conflict; a field the file leaves out is cleared.
  const body: Parameters<typeof users.updateUser>[1] = { id: current.id, name: current.name };
  if (current.tag !== undefined) body.tag = current.tag;
  for (const f of USER_FIELDS) if (fields[f] !== undefined || current[f]) body[f] = fields[f] ?? '';
  if (current.roles) {
    body.roles = current.roles.map((r) => ({
      ...(r.id ? { id: r.id } : {}),
      name: r.name,
      ...(r.type ? { type: r.type } : {}),
    }));
  }
  await users.updateUser(client, body);
}

/** The ids of members named in a file: users and roles looked up by name. */
async function memberIds(client: ApiClient, kind: 'user' | 'role', list: readonly string[]) {
  return Promise.all(
    list.map(async (name) => ({
      name,
      id: (kind === 'user' ? await users.lookupUser(client, name) : await roles.resolveRole(client, name)).id,
    })),
  );
}

/**
 * A role has no tag (docs/api-facts.md §8): before writing, it is read again and refused (exit 5) when its
 * description or its number of members differ from what the plan read. Members are then added and removed
 * one by one in a single PATCH; the description, when it changes, by a PUT of the role as read.
 */
async function applyRole(client: ApiClient, entry: PlanEntry): Promise<void> {
  const { def } = entry;
  const name = def.path[0]!;
  if (entry.action === 'delete') {
    const role = entry.state as roles.Role;
    await roles.deleteRole(client, role.id);
    return;
  }
  const want = wantedMembers(def);
  const description = typeof def.fields.description === 'string' ? def.fields.description : '';
  let role: roles.Role;
  let before: Members = { users: [], roles: [] };
  if (entry.action === 'create') {
    role = await roles.createRole(client, { name, ...(description ? { description } : {}) });
  } else {
    const read = entry.state as RoleState;
    const now = await roles.resolveRole(client, read.role.id);
    if (
      (now.description ?? '') !== (read.role.description ?? '') ||
      (now.memberCount ?? 0) !== (read.role.memberCount ?? 0)
    ) {
      throw new ConflictError(`role ${name} was changed since the plan was made`, {
        hint: 'run plan again to see it',
      });
    }
    role = now;
    before = read.members;
    if ((now.description ?? '') !== description) {
      await roles.updateRole(client, roles.roleUpdateBody(now, { description }));
    }
  }
  const changes: roles.MemberChange[] = [];
  for (const kind of ['user', 'role'] as const) {
    const key = kind === 'user' ? 'users' : 'roles';
    const has = before[key];
    const wanted = want[key];
    const added = wanted.filter((n) => !has.some((m) => same(m.name, n)));
    for (const m of await memberIds(client, kind, added)) changes.push({ op: 'add', id: m.id, type: kind });
    for (const m of has.filter((m) => !wanted.some((n) => same(m.name, n)))) {
      changes.push({ op: 'remove', id: m.id, type: kind });
    }
  }
  if (changes.length) await roles.changeMembers(client, role.id, changes);
}

/** The users and roles a role file names as members, and the grantees of a grant file: apply writes them first. */
export function principalsNamed(def: Definition): string[] {
  const keys = (kind: 'user' | 'role', list: unknown) =>
    (Array.isArray(list) ? list : Object.keys((list ?? {}) as object)).map((n) =>
      principalKey(kind, String(n)),
    );
  if (def.kind === 'role') {
    const m = wantedMembers(def);
    return [...keys('user', m.users), ...keys('role', m.roles)];
  }
  if (def.kind === 'grant') return [...keys('user', def.fields.users), ...keys('role', def.fields.roles)];
  return [];
}

/** A user's or role's key in the order of apply (names compare without regard to case, as the service's). */
const principalKey = (kind: 'user' | 'role', name: string) =>
  `${kind}:${JSON.stringify([name.toLowerCase()])}`;

export const userKind: KindHandler = {
  pull: (run) => pullUsers(run.shared(principalReader)),
  plan: (run, def) => planUser(run.shared(principalReader), def),
  apply: applyUser,
  order: (def) => ({ key: principalKey('user', def.path[0]!), after: [] }),
};

/** A role comes after its members. */
export const roleKind: KindHandler = {
  pull: (run) => pullRoles(run.shared(principalReader)),
  plan: (run, def) => planRole(run.shared(principalReader), def),
  apply: applyRole,
  order: (def) => ({ key: principalKey('role', def.path[0]!), after: principalsNamed(def) }),
};
