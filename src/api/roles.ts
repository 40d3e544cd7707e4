// Roles (docs/api-facts.md §8, Enterprise only), as far as naming them in `user --role/--add-role` needs:
// a role reference {id, name, type} from its name.

import * as z from 'zod/mini';
import '../util/zod.js';
import { NotFoundError, UsageError } from '../errors.js';
import { isUuid } from '../util/catalog-ref.js';
import { nameTaken } from './conflicts.js';
import { EditionError, enterprise } from './editions.js';
import { below, organisationResource, type Target } from './endpoint.js';
import type { ApiClient } from './http.js';
import { PageTokens } from './paging.js';
import { type RoleRef, RoleRefSchema, RoleSchema } from './schemas/admin.js';
import { count, optional, text } from './schemas.js';
import { segment } from './url-segment.js';

/** Every user has this role; the service adds it on creation and it cannot be removed. */
export const PUBLIC_ROLE = 'PUBLIC';

/**
 * GET /api/v3/role/by-name/{name} (case-insensitive on the service). `feature` names what the caller is
 * doing, for the sentence a community-edition server (which has no roles) ends with.
 */
async function getRoleByName(client: ApiClient, name: string, feature = 'user roles'): Promise<RoleRef> {
  const role = await enterprise(feature, () =>
    client.request({
      method: 'GET',
      at: roleByName(name),
      schema: RoleSchema,
    }),
  ).catch((err: unknown) => {
    if (err instanceof NotFoundError && !(err instanceof EditionError)) {
      throw new NotFoundError(`not found: role "${name}"`, {
        moreInfo: err.message,
        hint: { kind: 'list-roles' },
      });
    }
    throw err;
  });
  return { id: role.id, name: role.name, ...(role.type ? { type: role.type } : {}) };
}

/** Role references for names, looked up one by one (duplicates, in any case, looked up once). */
export async function getRolesByName(
  client: ApiClient,
  names: readonly string[],
  feature?: string,
): Promise<RoleRef[]> {
  const unique = [...new Map(names.map((n) => [n.toLowerCase(), n])).values()];
  return Promise.all(unique.map((n) => getRoleByName(client, n, feature)));
}

// ── Managing roles (`dlake role …`) ─────────────────────────────────────────────────────────────────

const ROLES = organisationResource('role', undefined);
const roleByName = (name: string): Target =>
  organisationResource('role', { name }, segment(name, 'role name'));

/** A role as GET answers it; `roles` are the roles it is itself a member of. */
const RoleDetailSchema = z.looseObject({
  id: text,
  name: z.string(),
  type: optional(z.string()),
  description: optional(z.string()),
  memberCount: optional(count),
  roles: z.optional(z.array(RoleRefSchema)),
});
export type Role = z.infer<typeof RoleDetailSchema>;

const RoleListPageSchema = z.looseObject({
  data: z.array(RoleDetailSchema),
  totalResults: optional(count),
  nextPageToken: optional(z.string()),
});

export function roleTarget(id: string): Target {
  return organisationResource('role', { id }, segment(id, 'role id'));
}

/** GET /role?filter=: every role matching the filter; a page token, should one come, is followed. */
export async function listRoles(client: ApiClient, filter?: string): Promise<Role[]> {
  const roles: Role[] = [];
  let pageToken: string | undefined;
  const tokens = new PageTokens(`GET ${ROLES.software}`);
  for (;;) {
    const page = await enterprise('roles', () =>
      client.request({
        method: 'GET',
        at: ROLES,
        query: { filter, pageToken },
        schema: RoleListPageSchema,
      }),
    );
    roles.push(...page.data);
    pageToken = tokens.next(page.nextPageToken, page.data);
    if (!pageToken) return roles;
  }
}

/** A role by id (a UUID) or by name (case-insensitive); an unknown one is "not found: role …". */
export async function resolveRole(client: ApiClient, ref: string): Promise<Role> {
  const at = isUuid(ref) ? roleTarget(ref) : roleByName(ref);
  return enterprise('roles', () => client.request({ method: 'GET', at, schema: RoleDetailSchema })).catch(
    (err: unknown) => {
      if (err instanceof NotFoundError && !(err instanceof EditionError)) {
        throw new NotFoundError(`not found: role "${ref}"`, {
          moreInfo: err.message,
          hint: { kind: 'list-roles' },
        });
      }
      throw err;
    },
  );
}

/**
 * System roles (PUBLIC, ADMIN) are built in: the service refuses to change or delete them with a bare 404,
 * so they are refused here first, in words. Every user is in PUBLIC, so its membership cannot change either.
 */
export function refuseSystemRole(role: Role, action: string): void {
  if (role.type === 'SYSTEM' || [PUBLIC_ROLE, 'ADMIN'].includes(role.name.toUpperCase())) {
    throw new UsageError(`cannot ${action} "${role.name}": it is a system role, built into the service`);
  }
}

interface NewRole {
  name: string;
  description?: string;
}

export function createRoleRequest(role: NewRole) {
  return { method: 'POST', at: ROLES, json: role } as const;
}

/** POST /role; never repeated automatically. A name taken is a conflict (exit 5). */
export async function createRole(client: ApiClient, role: NewRole): Promise<Role> {
  return enterprise('roles', () =>
    client.request({ ...createRoleRequest(role), schema: RoleDetailSchema }),
  ).catch((err: unknown) => {
    throw nameTaken(err, `a role named "${role.name}" already exists`);
  });
}

/** The PUT body: the service removes what it leaves out, so the current roles always go with it. */
export function roleUpdateBody(current: Role, changes: { description?: string }) {
  const description = changes.description ?? current.description;
  return {
    id: current.id,
    name: current.name,
    ...(description === undefined || description === '' ? {} : { description }),
    roles: (current.roles ?? []).map((r) => ({
      id: r.id,
      name: r.name,
      ...(r.type ? { type: r.type } : {}),
    })),
  };
}

/** PUT /role/{id}: a full replace without a tag, so it is not repeated automatically either. */
export function updateRole(client: ApiClient, body: ReturnType<typeof roleUpdateBody>): Promise<Role> {
  return enterprise('roles', () =>
    client.request({ method: 'PUT', at: roleTarget(body.id), json: body, schema: RoleDetailSchema }),
  );
}

export function deleteRoleRequest(id: string) {
  return { method: 'DELETE', at: roleTarget(id) } as const;
}

export async function deleteRole(client: ApiClient, id: string): Promise<void> {
  await enterprise('roles', () =>
    client.request({ ...deleteRoleRequest(id), responseType: 'text', idempotent: true }),
  );
}

export interface MemberChange {
  op: 'add' | 'remove';
  id: string;
  type: 'user' | 'role';
}

export function membersRequest(roleId: string, changes: MemberChange[]) {
  return { method: 'PATCH', at: below(roleTarget(roleId), 'member'), json: changes } as const;
}

/** PATCH /role/{id}/member: 200 without a body. */
export async function changeMembers(
  client: ApiClient,
  roleId: string,
  changes: MemberChange[],
): Promise<void> {
  await enterprise('roles', () =>
    client.request({ ...membersRequest(roleId, changes), responseType: 'text' }),
  );
}
