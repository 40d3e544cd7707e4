// Users: list, read, create, update, delete. Both editions; roles are Enterprise-only fields.

import { randomUUID } from 'node:crypto';
import type { AreaContext } from '../area.js';
import { requireAdmin, requireAuth } from '../guards.js';
import {
  ApiError,
  badRequest,
  conflict,
  type EmuRequest,
  type EmuResponse,
  forbidden,
  noContent,
  notFound,
  ok,
  omitUndefined,
} from '../http.js';
import { type EmuState, type EmuUser, newTag } from '../state.js';
import { compileFilter, invalidAt, type Json, listPage, objectBody, optionalString } from './common.js';
import type { GrantStore } from './grant-store.js';
import type { RoleStore } from './roles.js';

const PASSWORD_RE = /^(?=.*\d)(?=.*[A-Za-z]).{8,}$/;
const USER_FIELDS = ['id', 'name', 'firstName', 'lastName', 'email', 'identityType'] as const;

export const userNotFound = (id: string): ApiError => notFound(`User with given id '${id}' not found`);

export function registerUsers(
  area: AreaContext,
  roles: RoleStore,
  enterprise: boolean,
  grants: GrantStore,
): void {
  const { router, state } = area;
  const json = (u: EmuUser): Json => userJson(u, roles, enterprise);
  const find = (id: string): EmuUser => {
    const u = state.users.get(id);
    if (!u) throw userNotFound(id);
    return u;
  };

  router.get('/api/v3/user/:id', (req) => {
    requireAuth(req);
    return ok(json(find(req.params.id!)));
  });
  // By name: case-insensitive, abbreviated; its 404 carries `stackTrace: []` (one-argument error message).
  router.get('/api/v3/user/by-name/:name', (req) => {
    requireAuth(req);
    const u = state.userByName(req.params.name!);
    if (!u) throw new ApiError(404, `User '${req.params.name}' not found`, { moreInfo: '', stackTrace: [] });
    const { id, name, firstName, lastName, email, tag, active } = u;
    return ok(omitUndefined({ id, name, firstName, lastName, email, tag, active }));
  });
  router.post('/api/v3/user', (req) => {
    requireAdmin(req);
    return ok(json(createUser(objectBody(req), state, roles, enterprise)));
  });
  router.put('/api/v3/user/:id', (req) => {
    requireAdmin(req);
    const user = find(req.params.id!);
    updateUser(user, objectBody(req), roles, enterprise);
    return ok(json(user));
  });
  // The community edition has GET and PUT on /user/{id} but no DELETE: the router answers 405 there, as the
  // real OSS server does; it has no user listing either (GET /user is a 405 beside POST).
  if (!enterprise) return;

  router.get('/api/v3/user', (req) => {
    requireAuth(req);
    const match = compileFilter(req.query.get('filter'), USER_FIELDS);
    const data = [...state.users.values()].filter((u) => match(u as unknown as Json)).map(json);
    return ok(listPage(req, data));
  });
  router.delete('/api/v3/user/:id', (req) => deleteUser(req, state, grants));
}

/**
 * Enterprise users carry roles, source and identity type; community users (the OSS `User`) only the basic
 * fields. The spec's `@type` enum has `User` for the community edition, so it is sent there too.
 */
function userJson(u: EmuUser, roles: RoleStore, enterprise: boolean): Json {
  const base = {
    id: u.id,
    name: u.name,
    firstName: u.firstName,
    lastName: u.lastName,
    email: u.email,
    tag: u.tag,
  };
  if (!enterprise) return omitUndefined({ '@type': 'User', ...base, active: u.active });
  return omitUndefined({
    '@type': 'EnterpriseUser',
    ...base,
    roles: roles.refsOf(u),
    source: u.source,
    active: u.active,
    identityType: u.identityType,
    oauthClientId: u.clientId,
  });
}

function checkPassword(password: string | undefined, required: boolean): void {
  if (password === undefined && !required) return;
  if (!password || !PASSWORD_RE.test(password)) {
    throw badRequest(
      'Invalid password: must be at least 8 letters long, must contain at least one number and one letter',
    );
  }
}

/**
 * Creation. A duplicate name is 409 in Enterprise (the brief's choice; unconfirmed) and 400 in community
 * (OSS throws an IllegalArgumentException). OSS requires a password; Enterprise users may be created
 * without one (they then cannot use the legacy login), service users must not have one.
 */
function createUser(body: Json, state: EmuState, roles: RoleStore, enterprise: boolean): EmuUser {
  const name = optionalString(body, 'name')?.trim();
  if (!name) throw badRequest('User name is required.');
  if (/["':]/.test(name)) throw badRequest('Invalid username: can not contain quotes or colons.');
  if (state.userByName(name)) {
    const msg = `User '${name}' already exists`;
    throw enterprise ? conflict(msg) : badRequest(msg);
  }
  const identityType = enterprise ? (optionalString(body, 'identityType') ?? 'REGULAR_USER') : 'REGULAR_USER';
  if (identityType !== 'REGULAR_USER' && identityType !== 'SERVICE_USER') throw invalidAt('identityType');
  const service = identityType === 'SERVICE_USER';
  const password = optionalString(body, 'password');
  if (service && password !== undefined) throw badRequest('A service user cannot have a password.');
  checkPassword(password, !enterprise);
  const roleNames = enterprise ? roles.resolve(body.roles) : [];
  const user = state.addUser({
    name,
    password,
    firstName: optionalString(body, 'firstName'),
    lastName: optionalString(body, 'lastName'),
    email: optionalString(body, 'email'),
    admin: roleNames.includes('ADMIN'),
    // A new service user gets an OAuth client id (no secret: credentials are made elsewhere) so that the
    // JWT-for-a-service-user exchange can name it in its audience.
    clientId: service ? randomUUID() : undefined,
  });
  user.roles = roleNames;
  return user;
}

/**
 * Update. `id`, `tag` and `name` are required; the name cannot change (415, OSS quirk); a stale tag is a 409
 * with the KV store's text. Omitted name fields keep their values (OSS), omitted roles are removed
 * (Enterprise docs) but PUBLIC always stays; ADMIN membership is what makes a user an admin.
 */
function updateUser(user: EmuUser, body: Json, roles: RoleStore, enterprise: boolean): void {
  for (const f of ['id', 'tag', 'name']) {
    if (typeof body[f] !== 'string' || !body[f]) throw badRequest(`Missing required field: ${f}`);
  }
  if (body.id !== user.id) throw badRequest('Ids must match.');
  if (body.name !== user.name) throw new ApiError(415, 'Changing of user name is not supported');
  if (body.tag !== user.tag) throw conflict(`Tried to update version ${body.tag}, found tag ${user.tag}`);
  const password = optionalString(body, 'password');
  if (password !== undefined && user.identityType === 'SERVICE_USER') {
    throw badRequest('A service user cannot have a password.');
  }
  checkPassword(password, false);
  const names = enterprise ? roles.resolve(body.roles) : undefined;
  for (const f of ['firstName', 'lastName', 'email'] as const) {
    if (f in body) user[f] = optionalString(body, f);
  }
  if (password !== undefined) user.password = password;
  if (names) {
    user.roles = names;
    user.admin = names.includes('ADMIN');
  }
  user.tag = newTag();
}

/**
 * Enterprise delete (docs/api-facts.md §7.2, texts of the v2 endpoint §7.3): the version is required except
 * for service users; deleting yourself or anyone with a live session is a 403; a stale version a 409; then
 * 204, the user's tokens and grants gone with it.
 */
function deleteUser(req: EmuRequest, state: EmuState, grants: GrantStore): EmuResponse {
  const caller = requireAdmin(req);
  const id = req.params.id!;
  const user = state.users.get(id);
  const version = req.query.get('version');
  if (!version && user?.identityType !== 'SERVICE_USER') throw badRequest('Missing Version Parameter');
  if (!user) throw userNotFound(id);
  const loggedIn = [...state.tokens.values()].some(
    (t) => t.userId === id && t.kind === 'session' && t.expiresAt > state.now(),
  );
  if (caller.userId === id || loggedIn) {
    throw forbidden('Deletion of the user account of currently logged in user is not allowed.');
  }
  if (version && version !== user.tag) {
    throw conflict(
      `Cannot delete user "${user.name}", version provided "${version}" is different from version found "${user.tag}"`,
    );
  }
  state.users.delete(id);
  for (const [token, t] of state.tokens) if (t.userId === id) state.tokens.delete(token);
  grants.forget(id);
  return noContent();
}
