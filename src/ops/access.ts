// Why a user or role may (or may not) use an entity, as data: the roles it holds, the grants on the entity and
// on each container above it, and which grant gives which privilege (src/api/access.ts has the rules). `access
// why` reads it.
import {
  type Explanation,
  type HeldRole,
  type Level,
  type Principal,
  parsePrincipal,
} from '../api/access.js';
import type { CatalogEntity } from '../api/schemas/catalog.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { CatalogRef } from '../util/catalog-ref.js';

/** A principal as written (`user:NAME`, `role:NAME` or a user name); one that names no one is refused. */
export function parsePrincipalText(text: string): { kind: 'user' | 'role'; name: string } {
  const asked = parsePrincipal(text);
  if (!asked.name.trim()) {
    throw new UsageError(`"${text}" names no one`, {
      hint: 'write user:NAME, role:NAME or a user name',
    });
  }
  return asked;
}

/** The answer of `access why`: who, with which roles, the entity and its chain of grants, what is held. */
interface AccessExplained {
  principal: Principal;
  roles: HeldRole[];
  /** The entity's grants first, then each container's above it. */
  levels: Level[];
  entity: CatalogEntity;
  path: string[];
  explanation: Explanation;
}

/** Which grants give `asked` its privileges on `ref`, and what it lacks (not on the hosted edition). */
export async function explainAccess(
  ctx: Context,
  asked: { kind: 'user' | 'role'; name: string },
  ref: CatalogRef,
  signal = ctx.interrupt.signal,
): Promise<AccessExplained> {
  const [access, { resolveRef, getByPath, entityPath }, { resolveUser }, { resolveRole }] = await Promise.all(
    [
      import('../api/access.js'),
      import('../api/catalog.js'),
      import('../api/users.js'),
      import('../api/roles.js'),
    ],
  );
  if (ctx.root().edition === 'cloud') {
    // The hosted edition's users and roles carry no role list (docs/api-facts.md §5.13): membership, and so the
    // answer, cannot be read there.
    throw new UsageError(
      'the hosted edition (--edition cloud) does not say which roles a user or role holds',
      {
        hint: 'see the grants of one entity with `dlake catalog grants REF`',
      },
    );
  }
  const client = (await ctx.client()).withSignal(signal);

  // Who: the principal and every role it holds.
  let principal: Principal;
  let start: Array<{ id?: string; name: string; via?: string }>;
  if (asked.kind === 'user') {
    const user = await resolveUser(client, asked.name);
    principal = { kind: 'user', id: user.id, name: user.name };
    start = user.roles ?? [];
  } else {
    const role = await resolveRole(client, asked.name);
    principal = { kind: 'role', id: role.id, name: role.name };
    start = (role.roles ?? []).map((r) => ({ ...r, via: role.name }));
  }
  // What: the entity and the containers above it, each with its grants; read while the roles are.
  const chain = async () => {
    const entity = await resolveRef(client, ref, { exclude: ['children'] });
    const path = entityPath(entity);
    const above = await Promise.all(
      access.ancestorPaths(path).map((p) => getByPath(client, p, { exclude: ['children'] })),
    );
    const levels = await access.readLevels(client, [
      { id: entity.id, path },
      ...above.map((a) => ({ id: a.id, path: entityPath(a) })),
    ]);
    return { entity, path, levels };
  };
  // Both are awaited before either's failure is reported: none is left running, and the roles' failure (an
  // edition without roles) is the one told first.
  const [rolesResult, chainResult] = await Promise.allSettled([
    access.heldRoles(client, start, principal.kind === 'user'),
    chain(),
  ]);
  if (rolesResult.status === 'rejected') throw rolesResult.reason;
  if (chainResult.status === 'rejected') throw chainResult.reason;
  const roles = rolesResult.value;
  const { entity, path, levels } = chainResult.value;
  const explanation = access.explain(principal, roles, levels, ownerOf(entity));
  return { principal, roles, levels, entity, path, explanation };
}

/** The entity's owner, where the service says (Enterprise adds `owner: {ownerId, ownerType}`). */
function ownerOf(entity: Record<string, unknown>): { id: string; type: string } | undefined {
  const o = entity.owner as { ownerId?: unknown; ownerType?: unknown } | undefined;
  if (!o || typeof o.ownerId !== 'string' || typeof o.ownerType !== 'string') return undefined;
  return { id: o.ownerId, type: o.ownerType };
}
