// Roles: the predefined PUBLIC and ADMIN, plus INTERNAL roles admins create; their members (users and other
// roles) and the roles a role is itself a member of. Enterprise only.

import { randomUUID } from 'node:crypto';
import type { AreaContext } from '../area.js';
import { requireAdmin, requireAuth } from '../guards.js';
import {
  type ApiError,
  badRequest,
  type EmuRequest,
  jsonBody,
  noContent,
  notFound,
  ok,
  omitUndefined,
} from '../http.js';
import type { EmuState, EmuUser } from '../state.js';
import {
  compileFilter,
  invalidAt,
  type Json,
  listPage,
  objectBody,
  optionalString,
  stableUuid,
} from './common.js';
import type { GrantStore } from './grant-store.js';

/** Fixed ids of the predefined roles, so tests and scripts can rely on them. */
export const PUBLIC_ROLE_ID = '00000000-0000-4000-8000-000000000001';
export const ADMIN_ROLE_ID = '00000000-0000-4000-8000-000000000002';

interface EmuRole {
  id: string;
  name: string;
  type: 'SYSTEM' | 'INTERNAL' | 'EXTERNAL';
  description?: string;
  /** Names of the roles that are members of this one (users keep their roles on `EmuUser.roles`). */
  memberRoles: Set<string>;
}

/** Roles by id. Users keep role names (`EmuUser.roles`, without PUBLIC), role names being immutable. */
export class RoleStore {
  readonly roles = new Map<string, EmuRole>();

  constructor(private readonly state: EmuState) {
    this.add({ id: PUBLIC_ROLE_ID, name: 'PUBLIC', type: 'SYSTEM' });
    this.add({ id: ADMIN_ROLE_ID, name: 'ADMIN', type: 'SYSTEM' });
    this.add({
      id: stableUuid('role-analysts'),
      name: 'analysts',
      type: 'INTERNAL',
      description: 'Analysts',
    });
  }

  add(role: Omit<EmuRole, 'memberRoles'>): EmuRole {
    const stored = { ...role, memberRoles: new Set<string>() };
    this.roles.set(role.id, stored);
    return stored;
  }

  /** The roles `role` is a member of (its `roles` in the API). */
  parentsOf(role: EmuRole): EmuRole[] {
    return [...this.roles.values()].filter((r) => r.memberRoles.has(role.name));
  }

  byName(name: string): EmuRole | undefined {
    const lower = name.toLowerCase();
    for (const r of this.roles.values()) if (r.name.toLowerCase() === lower) return r;
    return undefined;
  }

  /** A user's role references: PUBLIC first, then the others in the order they were given. */
  refsOf(user: EmuUser): Json[] {
    const names = ['PUBLIC', ...user.roles.filter((n) => n !== 'PUBLIC')];
    return names.flatMap((n) => {
      const r = this.byName(n);
      return r ? [{ id: r.id, name: r.name, type: r.type }] : [];
    });
  }

  /** Role names from request references (by id, else by name); PUBLIC is implied and left out. */
  resolve(refs: unknown): string[] {
    if (refs === undefined || refs === null) return [];
    if (!Array.isArray(refs)) throw invalidAt('roles');
    const names = refs.map((ref, i) => {
      if (!ref || typeof ref !== 'object') throw invalidAt(`roles[${i}]`);
      const { id, name } = ref as Json;
      const role =
        typeof id === 'string' && id
          ? this.roles.get(id)
          : typeof name === 'string'
            ? this.byName(name)
            : undefined;
      if (!role) {
        // Unknown roles are a client error (400) in the emulator; the real text is unconfirmed.
        throw badRequest(
          typeof id === 'string' && id
            ? `Role with id '${id}' not found`
            : `Role '${String(name)}' not found`,
        );
      }
      return role.name;
    });
    return [...new Set(names)].filter((n) => n !== 'PUBLIC');
  }

  json(role: EmuRole): Json {
    const users =
      role.name === 'PUBLIC'
        ? this.state.users.size
        : [...this.state.users.values()].filter((u) => u.roles.includes(role.name)).length;
    const memberCount = users + role.memberRoles.size;
    return omitUndefined({
      id: role.id,
      name: role.name,
      type: role.type,
      roles: this.parentsOf(role).map((r) => ({ id: r.id, name: r.name, type: r.type })),
      memberCount,
      description: role.description,
    });
  }
}

export function registerRoles(area: AreaContext, store: RoleStore, grants: GrantStore): void {
  const { router, state } = area;
  const roleNotFound = (what: string): ApiError => notFound(`Role ${what} not found`);

  // Reading roles needs only a login (the CLI resolves role names when it edits users).
  router.get('/api/v3/role', (req) => {
    requireAuth(req);
    const match = compileFilter(req.query.get('filter'), ['id', 'name', 'type']);
    const data = [...store.roles.values()].map((r) => store.json(r)).filter(match);
    return ok(listPage(req, data));
  });
  router.get('/api/v3/role/by-name/:name', (req) => {
    requireAuth(req);
    const role = store.byName(req.params.name!);
    if (!role) throw roleNotFound(`'${req.params.name}'`);
    return ok(store.json(role));
  });
  router.get('/api/v3/role/:id', (req) => {
    requireAuth(req);
    const role = store.roles.get(req.params.id!);
    if (!role) throw roleNotFound(`with id '${req.params.id}'`);
    return ok(store.json(role));
  });
  // Docs list 400 (not 409) among the create codes, so a duplicate name is a 400 here.
  router.post('/api/v3/role', (req) => {
    requireAdmin(req);
    const body = objectBody(req);
    const name = optionalString(body, 'name')?.trim();
    if (!name) throw badRequest('Role name is required.');
    if (store.byName(name)) throw badRequest(`Role '${name}' already exists`);
    const description = optionalString(body, 'description');
    return ok(store.json(store.add({ id: randomUUID(), name, type: 'INTERNAL', description })));
  });
  // System roles cannot be deleted and answer 404 (docs/api-facts.md §8); members lose the role, and its grants go.
  router.delete('/api/v3/role/:id', (req) => {
    requireAdmin(req);
    const role = store.roles.get(req.params.id!);
    if (!role || role.type === 'SYSTEM') throw roleNotFound(`with id '${req.params.id}'`);
    store.roles.delete(role.id);
    for (const u of state.users.values()) u.roles = u.roles.filter((n) => n !== role.name);
    for (const r of store.roles.values()) r.memberRoles.delete(role.name);
    grants.forget(role.id);
    return noContent();
  });
  // A full replace with no tag (docs/api-facts.md §8): the name cannot change, and the description and the roles this
  // role is a member of that the body leaves out are removed. System roles are not editable (404, as delete).
  router.put('/api/v3/role/:id', (req) => {
    requireAdmin(req);
    const role = store.roles.get(req.params.id!);
    if (!role || role.type === 'SYSTEM') throw roleNotFound(`with id '${req.params.id}'`);
    const body = objectBody(req);
    const name = optionalString(body, 'name');
    if (name !== undefined && name !== role.name) throw badRequest('Role name cannot be changed.');
    const parents = store.resolve(body.roles);
    if (parents.includes(role.name)) throw badRequest('A role cannot be a member of itself.');
    role.description = optionalString(body, 'description');
    for (const r of store.roles.values()) {
      if (parents.includes(r.name)) r.memberRoles.add(role.name);
      else r.memberRoles.delete(role.name);
    }
    return ok(store.json(role));
  });
  // Membership changes: `[{op: add|remove, id, type: user|role}]`, all checked before any is applied.
  router.patch('/api/v3/role/:id/member', (req) => {
    requireAdmin(req);
    const role = store.roles.get(req.params.id!);
    if (!role) throw roleNotFound(`with id '${req.params.id}'`);
    if (role.name === 'PUBLIC') throw badRequest('Members of the PUBLIC role cannot be changed.');
    const ops = memberOps(req, store, state, role);
    for (const op of ops) op();
    return { status: 200 };
  });
}

function memberOps(req: EmuRequest, store: RoleStore, state: EmuState, role: EmuRole): (() => void)[] {
  if (!req.body.trim()) throw badRequest('Invalid value.');
  const body = jsonBody<unknown>(req);
  if (!Array.isArray(body)) throw badRequest('Invalid value.');
  return body.map((item, i) => {
    if (!item || typeof item !== 'object') throw invalidAt(`[${i}]`);
    const { op, id, type } = item as Json;
    if (op !== 'add' && op !== 'remove') throw invalidAt(`[${i}].op`);
    if (type !== 'user' && type !== 'role') throw invalidAt(`[${i}].type`);
    if (typeof id !== 'string') throw invalidAt(`[${i}].id`);
    if (type === 'user') {
      const user = state.users.get(id);
      if (!user) throw notFound(`User with given id '${id}' not found`);
      return () => {
        user.roles = user.roles.filter((n) => n !== role.name);
        if (op === 'add') user.roles.push(role.name);
      };
    }
    const member = store.roles.get(id);
    if (!member) throw notFound(`Role with id '${id}' not found`);
    if (member.id === role.id) throw badRequest('A role cannot be a member of itself.');
    return () => {
      if (op === 'add') role.memberRoles.add(member.name);
      else role.memberRoles.delete(member.name);
    };
  });
}
