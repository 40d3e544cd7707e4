// Why a user or role may (or may not) use an entity (docs/guide.md "Operating the service"): the roles it
// holds, the grants on the entity and on each container above it, and which of them gives which privilege.
//
// The service's own rules, as its grants page states them (docs/api-facts.md §5.13): a grant on a container is
// inherited by everything inside it; members of ADMIN implicitly hold every privilege on every entity; an
// entity's owner holds every privilege on it. A user holds PUBLIC and the roles of its `roles` list, and each
// role holds the roles of its own `roles` list (nested roles), followed here to the end.

import { type Grants, getGrants } from './grants.js';
import type { ApiClient } from './http.js';
import { PUBLIC_ROLE, type Role, resolveRole } from './roles.js';

/** Who is asked about: a user (with the roles its user object lists) or a role. */
export interface Principal {
  kind: 'user' | 'role';
  id: string;
  name: string;
}

/** A role the principal holds, and through which role it holds it (undefined: directly). */
export interface HeldRole {
  id: string;
  name: string;
  via?: string;
}

/** The grants on one entity of the chain, from the entity itself (first) up to its top-level container. */
export interface Level {
  path: string[];
  grants: Grants;
}

interface Via {
  /** `user:NAME` or `role:NAME`. */
  grantee: string;
  /** The path of the entity the grant is on (the entity itself or a container above it). */
  on: string[];
  /** How the privilege comes without a grant: `admin` (a member of ADMIN) or `owner`. */
  implicit?: 'admin' | 'owner';
}

export interface Explanation {
  privileges: Array<{ privilege: string; via: Via }>;
  /** Privileges the entity offers that the principal does not hold. */
  missing: string[];
}

/** Principal parsing: `user:NAME`, `role:NAME`, or a bare user name. */
export function parsePrincipal(text: string): { kind: 'user' | 'role'; name: string } {
  const m = /^(user|role):(.*)$/is.exec(text);
  if (m) return { kind: m[1]!.toLowerCase() as 'user' | 'role', name: m[2]! };
  return { kind: 'user', name: text };
}

/**
 * Every role the principal holds, nested roles followed (each role read once; a cycle ends). A user always
 * holds PUBLIC, even when its user object leaves it out.
 */
export async function heldRoles(
  client: ApiClient,
  start: ReadonlyArray<{ id?: string; name: string; via?: string }>,
  withPublic: boolean,
): Promise<HeldRole[]> {
  const held = new Map<string, HeldRole>();
  let frontier = [...start];
  if (withPublic && !start.some((r) => r.name.toUpperCase() === PUBLIC_ROLE))
    frontier.push({ name: PUBLIC_ROLE });
  while (frontier.length > 0) {
    // One level at a time, the roles of a level read together (by id; by name where a reference has none).
    const read: Role[] = await Promise.all(frontier.map((r) => resolveRole(client, r.id ?? r.name)));
    const next: typeof frontier = [];
    read.forEach((role, i) => {
      if (held.has(role.id)) return;
      held.set(role.id, {
        id: role.id,
        name: role.name,
        ...(frontier[i]!.via ? { via: frontier[i]!.via } : {}),
      });
      for (const parent of role.roles ?? []) {
        if (!parent.id || !held.has(parent.id))
          next.push({ id: parent.id, name: parent.name, via: role.name });
      }
    });
    frontier = next;
  }
  return [...held.values()];
}

/** The paths of the containers above an entity, nearest first (`a/b/c` → `a/b`, `a`). */
export function ancestorPaths(path: readonly string[]): string[][] {
  const out: string[][] = [];
  for (let n = path.length - 1; n >= 1; n--) out.push(path.slice(0, n));
  return out;
}

/** Reads the grants of each level (the entity and its ancestors' ids, nearest first) together. */
export async function readLevels(
  client: ApiClient,
  chain: ReadonlyArray<{ id: string; path: string[] }>,
): Promise<Level[]> {
  const grants = await Promise.all(chain.map((e) => getGrants(client, e.id)));
  return chain.map((e, i) => ({ path: e.path, grants: grants[i]! }));
}

/** Privileges a grant of `ALL` stands for: everything the entity offers. */
const ALL = 'ALL';

/**
 * Which privilege comes from which grant (pure). The nearest grant wins: one on the entity before one on its
 * folder before one on its space. Membership of ADMIN, or ownership, gives every privilege.
 */
export function explain(
  principal: Principal,
  roles: readonly HeldRole[],
  levels: readonly Level[],
  owner?: { id: string; type: string },
): Explanation {
  const entity = levels[0]!;
  const offered = entity.grants.availablePrivileges ?? [
    ...new Set(levels.flatMap((l) => l.grants.grants.flatMap((g) => g.privileges))),
  ];
  const roleIds = new Set(roles.map((r) => r.id));
  const applies = (type: string, id: string): boolean =>
    type.toUpperCase() === 'ROLE'
      ? roleIds.has(id) || (principal.kind === 'role' && principal.id === id)
      : principal.kind === 'user' && principal.id === id;
  const given = new Map<string, Via>();
  const give = (privilege: string, via: Via) => {
    if (!given.has(privilege)) given.set(privilege, via);
  };
  const admin = roles.find((r) => r.name.toUpperCase() === 'ADMIN');
  if (admin || (principal.kind === 'role' && principal.name.toUpperCase() === 'ADMIN')) {
    for (const p of [...offered, ALL]) give(p, { grantee: 'role:ADMIN', on: entity.path, implicit: 'admin' });
  }
  if (owner && applies(owner.type, owner.id)) {
    const grantee = `${owner.type.toLowerCase()}:${nameOf(owner.id, roles, principal)}`;
    for (const p of [...offered, ALL]) give(p, { grantee, on: entity.path, implicit: 'owner' });
  }
  for (const level of levels) {
    for (const g of level.grants.grants) {
      if (!applies(g.granteeType, g.id)) continue;
      const grantee = `${g.granteeType.toLowerCase()}:${g.name ?? nameOf(g.id, roles, principal)}`;
      const privileges = g.privileges.includes(ALL) ? [...offered, ALL] : g.privileges;
      for (const p of privileges) give(p, { grantee, on: level.path });
    }
  }
  const privileges = [...given].map(([privilege, via]) => ({ privilege, via }));
  const order = (p: string) => (offered.includes(p) ? offered.indexOf(p) : offered.length);
  privileges.sort((a, b) => order(a.privilege) - order(b.privilege));
  return { privileges, missing: offered.filter((p) => !given.has(p)) };
}

function nameOf(id: string, roles: readonly HeldRole[], principal: Principal): string {
  return roles.find((r) => r.id === id)?.name ?? (principal.id === id ? principal.name : id);
}
