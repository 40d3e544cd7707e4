// Users (docs/api-facts.md §7): create, get by id or name, update with the
// current tag, delete with the current version; and the pure merge that turns "change only what was given"
// into the full body the service's PUT wants (omitted roles would be removed).

import * as z from 'zod/mini';
import '../util/zod.js';
import { UsageError } from '../errors.js';
import { isUuid } from '../util/catalog-ref.js';
import { explainStaleTag, nameTaken } from './conflicts.js';
import { enterprise } from './editions.js';
import { organisationResource, type Target } from './endpoint.js';
import type { ApiClient } from './http.js';
import { PageTokens } from './paging.js';
import { PUBLIC_ROLE } from './roles.js';
import { type RoleRef, type User, UserSchema } from './schemas/admin.js';
import { count, optional, text } from './schemas.js';
import { segment } from './url-segment.js';

export const USERS = organisationResource('user', undefined);

/** The by-name lookup answers an abbreviated user: no `@type`, `roles` or `source`. */
export const UserByNameSchema = z.looseObject({
  id: text,
  name: z.string(),
  firstName: optional(z.string()),
  lastName: optional(z.string()),
  email: optional(z.string()),
  /** Missing on service users and on users of the hosted edition. */
  tag: optional(text),
  active: optional(z.boolean()),
});
type UserSummary = z.infer<typeof UserByNameSchema>;

interface NewUser {
  name: string;
  firstName?: string;
  lastName?: string;
  email?: string;
}

interface CreateUserBody extends NewUser {
  roles: RoleRef[];
  password?: string;
}

interface UpdateUserBody {
  id: string;
  /** Missing when the service sent none (service users): the PUT then goes without it. */
  tag?: string;
  name: string;
  firstName?: string;
  lastName?: string;
  email?: string;
  roles?: RoleRef[];
  password?: string;
}

/** Body fields that hold a secret: hidden in --dry-run output and never logged. */
const USER_SECRET_FIELDS = ['password'] as const;

export function userTarget(id: string): Target {
  return organisationResource('user', { id }, segment(id, 'user id'));
}

function getUser(client: ApiClient, id: string): Promise<User> {
  return client.request({ method: 'GET', at: userTarget(id), schema: UserSchema });
}

/** GET /user/by-name/{name}: case-insensitive; the abbreviated user. */
export function getUserByName(client: ApiClient, name: string): Promise<UserSummary> {
  return client.request({
    method: 'GET',
    at: organisationResource('user', { name }, segment(name, 'user name')),
    schema: UserByNameSchema,
  });
}

/** The full user for an id (a UUID) or a name (looked up by name, then read by id for the full object). */
export async function resolveUser(client: ApiClient, idOrName: string): Promise<User> {
  if (isUuid(idOrName)) return getUser(client, idOrName);
  const summary = await getUserByName(client, idOrName);
  return getUser(client, summary.id);
}

const UserListSchema = z.looseObject({
  data: z.array(UserSchema),
  totalResults: optional(count),
  nextPageToken: optional(z.string()),
});

/**
 * GET /user?filter=: every user matching the filter expression (Enterprise). Paging is not documented; a
 * `nextPageToken`, should a server send one, is followed to the end.
 */
export async function listUsers(client: ApiClient, filter?: string): Promise<User[]> {
  const users: User[] = [];
  let pageToken: string | undefined;
  const tokens = new PageTokens(`GET ${USERS.software}`);
  for (;;) {
    const page = await enterprise('listing users', () =>
      client.request({
        method: 'GET',
        at: USERS,
        query: { filter, pageToken },
        schema: UserListSchema,
      }),
    );
    users.push(...page.data);
    pageToken = tokens.next(page.nextPageToken, page.data);
    if (!pageToken) return users;
  }
}

/** Id, name and tag for an id or a name, with one request (the abbreviated user is enough). */
export function lookupUser(client: ApiClient, idOrName: string): Promise<UserSummary | User> {
  return isUuid(idOrName) ? getUser(client, idOrName) : getUserByName(client, idOrName);
}

/** POST /user. Never repeated automatically (a duplicate user is worse than an error). */
export async function createUser(client: ApiClient, body: CreateUserBody): Promise<User> {
  return client
    .request({
      method: 'POST',
      at: USERS,
      json: body,
      secretFields: USER_SECRET_FIELDS,
      schema: UserSchema,
    })
    .catch((err: unknown) => {
      throw nameTaken(err, `a user named "${body.name}" already exists`);
    });
}

/** PUT /user/{id} with the tag read before; a stale tag is a conflict whose hint names the current tag. */
export async function updateUser(client: ApiClient, body: UpdateUserBody): Promise<User> {
  try {
    return await client.request({
      method: 'PUT',
      at: userTarget(body.id),
      json: body,
      secretFields: USER_SECRET_FIELDS,
      schema: UserSchema,
      // Without a tag nothing guards against applying it twice over someone else's change.
      idempotent: body.tag !== undefined,
    });
  } catch (err) {
    throw await explainStaleTag(
      err,
      body.tag,
      () => getUser(client, body.id),
      (current) => ({
        message: `user "${body.name}" was changed by someone else since it was read (tag "${body.tag}")`,
        hint: `its current tag is "${current.tag}": run the command again to apply the change to the current version`,
      }),
    );
  }
}

/** The request that deletes a user (also what --dry-run shows). */
export function deleteUserRequest(id: string, version: string | undefined) {
  return { method: 'DELETE', at: userTarget(id), query: { version } } as const;
}

/** DELETE /user/{id}?version=: the community edition has no such method (405). */
export async function deleteUser(client: ApiClient, id: string, version: string | undefined): Promise<void> {
  try {
    // `text`, not `none`: the client drops the body with `none`, error bodies too (the stale-version text).
    await enterprise('deleting users', () =>
      client.request({
        ...deleteUserRequest(id, version),
        responseType: 'text',
        idempotent: version !== undefined,
      }),
    );
  } catch (err) {
    throw await explainStaleTag(
      err,
      version,
      () => getUser(client, id),
      (current) => ({
        message: `user "${current.name}" has changed: version "${version}" is not its current one`,
        hint: { kind: 'stale-user-version', id, currentTag: current.tag },
      }),
    );
  }
}

// ── The pure part: what to send ─────────────────────────────────────────────────────────────────────

export interface UserChanges {
  firstName?: string;
  lastName?: string;
  email?: string;
  addRoles?: readonly string[];
  removeRoles?: readonly string[];
  /** A new password (never printed; `changed` says only "password"). */
  password?: string;
}

const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** Role flags that cannot work, refused before any request. */
export function checkRoleChanges(changes: UserChanges): void {
  const add = changes.addRoles ?? [];
  const remove = changes.removeRoles ?? [];
  if (remove.some((r) => same(r, PUBLIC_ROLE))) {
    throw new UsageError(`the ${PUBLIC_ROLE} role cannot be removed: every user has it`);
  }
  const both = add.find((a) => remove.some((r) => same(a, r)));
  if (both) throw new UsageError(`role "${both}" is both added and removed`);
}

export function hasChanges(changes: UserChanges): boolean {
  return (
    changes.firstName !== undefined ||
    changes.lastName !== undefined ||
    changes.email !== undefined ||
    changes.password !== undefined ||
    Boolean(changes.addRoles?.length) ||
    Boolean(changes.removeRoles?.length)
  );
}

/**
 * Role names to look up before merging: those to add that the user does not hold yet, and PUBLIC when the
 * user's roles are sent but PUBLIC is missing from them (it must always be there).
 */
export function rolesToLookUp(current: User, changes: UserChanges): string[] {
  const held = current.roles ?? [];
  const names = (changes.addRoles ?? []).filter((n) => !held.some((r) => same(r.name, n)));
  const rolesSent = current.roles !== undefined || names.length > 0;
  if (rolesSent && !held.some((r) => same(r.name, PUBLIC_ROLE)) && !names.some((n) => same(n, PUBLIC_ROLE))) {
    names.push(PUBLIC_ROLE);
  }
  return names;
}

interface MergedUser {
  body: UpdateUserBody;
  /** What changes, in words (`firstName`, `+role analysts`, `-role ADMIN`); empty when nothing does. */
  changed: string[];
  /** Requested changes that were already so (a role held, a role not held). */
  unchanged: string[];
}

/**
 * The PUT body: the current user with only the given fields changed. Roles: the current ones, minus the
 * removed, plus the added (`lookedUp`: references for the names of rolesToLookUp), PUBLIC always kept.
 * Roles are sent whenever the user has them, since the service removes the roles a PUT leaves out.
 */
export function mergeUser(
  current: User,
  changes: UserChanges,
  lookedUp: readonly RoleRef[] = [],
): MergedUser {
  const changed: string[] = [];
  const unchanged: string[] = [];
  const body: UpdateUserBody = { id: current.id, name: current.name };
  if (current.tag !== undefined) body.tag = current.tag;
  for (const f of ['firstName', 'lastName', 'email'] as const) {
    const value = changes[f] ?? current[f];
    if (value !== undefined) body[f] = value;
    if (changes[f] !== undefined && changes[f] !== current[f]) changed.push(f);
  }
  if (changes.password !== undefined) {
    body.password = changes.password;
    changed.push('password');
  }

  const held = current.roles;
  const add = changes.addRoles ?? [];
  const remove = changes.removeRoles ?? [];
  if (held === undefined && add.length === 0 && remove.length === 0) return { body, changed, unchanged };

  let roles: RoleRef[] = (held ?? []).map(roleRef);
  for (const name of remove) {
    const before = roles.length;
    roles = roles.filter((r) => !same(r.name, name));
    if (roles.length < before) changed.push(`-role ${name}`);
    else unchanged.push(`does not have role "${name}"`);
  }
  for (const name of add) {
    if ((held ?? []).some((r) => same(r.name, name))) {
      unchanged.push(`already has role "${name}"`);
      continue;
    }
    const ref = lookedUp.find((r) => same(r.name, name));
    if (!ref) throw new Error(`role "${name}" was not looked up`);
    if (!roles.some((r) => (r.id && r.id === ref.id) || same(r.name, ref.name))) {
      roles.push(roleRef(ref));
      changed.push(`+role ${ref.name}`);
    }
  }
  if (!roles.some((r) => same(r.name, PUBLIC_ROLE))) {
    const pub = lookedUp.find((r) => same(r.name, PUBLIC_ROLE));
    if (!pub) throw new Error('the PUBLIC role was not looked up');
    roles.unshift(roleRef(pub));
  }
  body.roles = roles;
  return { body, changed, unchanged };
}

/** A creation body: the given fields, PUBLIC first, then the requested roles (each once). */
export function newUserBody(user: NewUser, roles: readonly RoleRef[], password?: string): CreateUserBody {
  const refs: RoleRef[] = [];
  for (const r of roles) if (!refs.some((x) => same(x.name, r.name))) refs.push(roleRef(r));
  refs.sort((a, b) => Number(same(b.name, PUBLIC_ROLE)) - Number(same(a.name, PUBLIC_ROLE)));
  const body: CreateUserBody = { name: user.name, roles: refs };
  for (const f of ['firstName', 'lastName', 'email'] as const) if (user[f] !== undefined) body[f] = user[f];
  if (password !== undefined) body.password = password;
  return body;
}

/** A role reference as the request schema has it: id, name and type only. */
function roleRef(r: RoleRef): RoleRef {
  return { ...(r.id ? { id: r.id } : {}), name: r.name, ...(r.type ? { type: r.type } : {}) };
}
