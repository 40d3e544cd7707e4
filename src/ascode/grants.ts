// Privileges on a catalog entity as a definition (`--kinds grant`): `users` and `roles` map each grantee's
// name (never its id, which differs between environments) to its privileges. The file holds every grant on
// the entity. Apply reads, merges and writes back whole, as `dlake catalog grants` does; the service's PUT
// has no tag, so the grants are read again first and a change since the plan is a conflict.
import * as catalog from '../api/catalog.js';
import { EditionError } from '../api/editions.js';
import * as api from '../api/grants.js';
import type { ApiClient } from '../api/http.js';
import { resolveRole } from '../api/roles.js';
import { lookupUser } from '../api/users.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { formatPath } from '../util/catalog-ref.js';
import type { Definition } from './definitions.js';
import { diffFields, type EntityReader, type PlanEntry } from './diff.js';
import { type KindHandler, orderKey } from './kind.js';
import { catalogKey } from './order.js';
import { principalsNamed } from './principals.js';

type Named = Record<'users' | 'roles', Record<string, string[]>>;

const GROUP = { USER: 'users', ROLE: 'roles' } as const;

/** The grants by grantee name, privileges sorted; grantees with none left out. */
function named(grants: api.Grants): Named {
  const out: Named = { users: {}, roles: {} };
  for (const g of grants.grants) {
    const group = GROUP[g.granteeType.toUpperCase() as keyof typeof GROUP];
    if (!group || g.privileges.length === 0) continue;
    out[group][g.name ?? g.id] = [...g.privileges].sort();
  }
  return out;
}

/** What the file says, in the same form (an absent group is none). */
function wanted(def: Definition): Named {
  const group = (v: unknown) =>
    Object.fromEntries(
      Object.entries((v ?? {}) as Record<string, string[]>)
        .filter(([, p]) => p.length > 0)
        .map(([n, p]) => [n, [...new Set(p.map((x) => x.toUpperCase()))].sort()]),
    );
  return { users: group(def.fields.users), roles: group(def.fields.roles) };
}

function fileFields(n: Named): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (Object.keys(n.roles).length) out.roles = n.roles;
  if (Object.keys(n.users).length) out.users = n.users;
  return out;
}

/** The grants on each of `defs` that has any (read from the service, so with their ids). */
async function pullGrants(
  client: ApiClient,
  defs: readonly Definition[],
  concurrency: number,
): Promise<Definition[]> {
  const withIds = defs.filter((d) => d.id !== undefined);
  const found = await catalog.mapConcurrent(withIds, concurrency, async (d) => {
    const fields = fileFields(named(await api.getGrants(client, d.id!)));
    return Object.keys(fields).length ? ({ kind: 'grant', path: d.path, fields } as Definition) : undefined;
  });
  return found.filter((d): d is Definition => d !== undefined);
}

interface GrantState {
  entityId: string;
  grants: api.Grants;
}

async function readGrants(
  client: ApiClient,
  path: readonly string[],
  read: EntityReader = (p) => catalog.getByPath(client, p, { exclude: ['children'] }),
): Promise<GrantState | undefined> {
  let entity: { id: string };
  try {
    entity = await read(path);
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
  return { entityId: entity.id, grants: await api.getGrants(client, entity.id) };
}

async function planGrant(
  client: ApiClient,
  read: EntityReader,
  def: Definition,
): Promise<PlanEntry | undefined> {
  const want = wanted(def);
  const state = await readGrants(client, def.path, read);
  if (!state) return { action: 'create', def, changes: diffFields({}, fileFields(want)) };
  const changes = diffFields(named(state.grants), want);
  return changes.length ? { action: 'update', def, changes, state } : undefined;
}

async function applyGrant(client: ApiClient, entry: PlanEntry): Promise<void> {
  const { def } = entry;
  const read = entry.state as GrantState | undefined;
  const now = await readGrants(client, def.path);
  if (!now) throw new NotFoundError(`${formatPath(def.path)} does not exist, so it has no grants to set`);
  const before = read ? named(read.grants) : { users: {}, roles: {} };
  if (JSON.stringify(named(now.grants)) !== JSON.stringify(before)) {
    throw new ConflictError(`the grants on ${formatPath(def.path)} were changed since the plan was made`, {
      hint: 'run plan again to see them',
    });
  }
  const want = wanted(def);
  const ids = new Map(
    now.grants.grants.map((g) => [`${g.granteeType.toUpperCase()}:${g.name ?? g.id}`, g.id]),
  );
  // Every grantee's id, all looked up before anything is written, so that a failure names every one missing.
  const missing: string[] = [];
  const idOf = async (kind: 'user' | 'role', name: string): Promise<string> => {
    const known = ids.get(`${kind.toUpperCase()}:${name}`);
    if (known !== undefined) return known;
    try {
      return (kind === 'user' ? await lookupUser(client, name) : await resolveRole(client, name)).id;
    } catch (err) {
      if (!(err instanceof NotFoundError) || err instanceof EditionError) throw err;
      missing.push(`${kind} ${name}`);
      return '';
    }
  };
  const specs = async (
    kind: 'user' | 'role',
    from: Record<string, string[]>,
    to: Record<string, string[]>,
  ) => {
    const grant: api.ResolvedSpec[] = [];
    const revoke: api.ResolvedSpec[] = [];
    for (const name of new Set([...Object.keys(from), ...Object.keys(to)])) {
      const add = (to[name] ?? []).filter((p) => !(from[name] ?? []).includes(p));
      const drop = (from[name] ?? []).filter((p) => !(to[name] ?? []).includes(p));
      if (!add.length && !drop.length) continue;
      const id = await idOf(kind, name);
      if (add.length) grant.push({ kind, name, id, privileges: add });
      if (drop.length) revoke.push({ kind, name, id, privileges: drop });
    }
    return { grant, revoke };
  };
  const [u, r] = await Promise.all([
    specs('user', before.users, want.users),
    specs('role', before.roles, want.roles),
  ]);
  if (missing.length) {
    throw new NotFoundError(
      `the service has no ${missing.sort().join(', ')}: nothing was granted on ${formatPath(def.path)}`,
      { hint: 'create them first (dlake user create, dlake role create), or change the file' },
    );
  }
  const merged = api.mergeGrants(now.grants, [...u.grant, ...r.grant], [...u.revoke, ...r.revoke]);
  await api.setGrants(client, now.entityId, merged.body);
}

/** The grants on an entity come after the entity and their grantees. */
export const grantKind: KindHandler = {
  pull: (run) => pullGrants(run.client, run.catalogDefs, run.concurrency),
  plan: (run, def) => planGrant(run.client, run.read, def),
  apply: applyGrant,
  order: (def) => ({ key: orderKey(def), after: [catalogKey(def.path), ...principalsNamed(def)] }),
};
