// The admin kinds (queue, rule, reflection, grant) beside the catalog's: which `--kinds` names, and for each
// kind how it is pulled, planned, applied and ordered. The work of each kind is in wlm.ts, reflections.ts and
// grants.ts; the requests are those of the admin commands (src/api/queues.ts, reflections.ts, grants.ts).
import type { ApiClient } from '../api/http.js';
import { UsageError } from '../errors.js';
import { ADMIN_KINDS, type AdminKind, type Definition } from './definitions.js';
import { applyGrant, planGrant, pullGrants } from './grants.js';
import { catalogKey } from './order.js';
import { type EntityReader, entityReader, type PlanEntry } from './plan.js';
import {
  applyRole,
  applyUser,
  planRole,
  planUser,
  principalKey,
  principalReader,
  principalsNamed,
  pullRoles,
  pullUsers,
} from './principals.js';
import { applyReflection, planReflection, pullReflections, reflectionLister } from './reflections.js';
import {
  applyQueue,
  applyRules,
  planQueue,
  planRules,
  pullQueues,
  pullRules,
  queuesNamed,
  type WlmReader,
  wlmReader,
} from './wlm.js';

/** `--kinds queue,rule,…`: each name checked (in any case), duplicates dropped, in the documented order. */
export function parseKinds(value: string): AdminKind[] {
  const names = value
    .split(',')
    .map((k) => k.trim().toLowerCase())
    .filter(Boolean);
  const unknown = names.filter((k) => !(ADMIN_KINDS as readonly string[]).includes(k));
  if (unknown.length || names.length === 0) {
    throw new UsageError(
      `${unknown.length ? `unknown kind${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}` : 'no kind'} in --kinds: the kinds are ${ADMIN_KINDS.join(', ')}`,
      { hint: 'spaces, folders, views, datasets and sources are always pulled; --kinds adds to them' },
    );
  }
  return ADMIN_KINDS.filter((k) => names.includes(k));
}

/**
 * The definitions of `kinds`: every queue and the ruleset (they belong to the service, not to a path), and
 * the reflections and grants of the catalog definitions just pulled.
 */
export async function pullAdminKinds(
  client: ApiClient,
  kinds: readonly AdminKind[],
  catalogDefs: readonly Definition[],
  concurrency: number,
): Promise<Definition[]> {
  const reader = wlmReader(client);
  const people = principalReader(client);
  const pullers: Record<AdminKind, () => Promise<Definition[]>> = {
    queue: () => pullQueues(reader),
    rule: async () => [await pullRules(reader)],
    reflection: () => pullReflections(client, catalogDefs, concurrency),
    grant: () => pullGrants(client, catalogDefs, concurrency),
    user: () => pullUsers(people),
    role: () => pullRoles(people),
  };
  const parts = await Promise.all(kinds.map((kind) => pullers[kind]()));
  return parts.flat();
}

/**
 * What the plans of one run share: the queues and the ruleset are read once, and each catalog entity and each
 * dataset's reflections once (`read`: the catalog plan's reader, so that a plan reads no entity twice).
 */
export function adminPlanner(
  client: ApiClient,
  read: EntityReader = entityReader(client),
): (def: Definition) => Promise<PlanEntry | undefined> {
  const reader: WlmReader = wlmReader(client);
  const reflections = reflectionLister(client);
  const people = principalReader(client);
  return (def) => {
    switch (def.kind as AdminKind) {
      case 'queue':
        return planQueue(reader, def);
      case 'rule':
        return planRules(reader, def);
      case 'reflection':
        return planReflection(read, reflections, def);
      case 'grant':
        return planGrant(client, read, def);
      case 'user':
        return planUser(people, def);
      case 'role':
        return planRole(people, def);
    }
  };
}

export function applyAdmin(client: ApiClient, entry: PlanEntry): Promise<void> {
  switch (entry.def.kind as AdminKind) {
    case 'queue':
      return applyQueue(client, entry);
    case 'rule':
      return applyRules(client, entry);
    case 'reflection':
      return applyReflection(client, entry);
    case 'grant':
      return applyGrant(client, entry);
    case 'user':
      return applyUser(client, entry);
    case 'role':
      return applyRole(client, entry);
  }
}

/**
 * An admin definition's place in the order: its own key, and the keys it must come after — a reflection
 * after its dataset, a grant after its entity and its grantees, the ruleset after the queues it names, a role
 * after its members.
 */
export function adminOrder(def: Definition): { key: string; after: string[] } {
  const own = `${def.kind}:${JSON.stringify(def.path)}`;
  switch (def.kind as AdminKind) {
    case 'queue':
      return { key: own, after: [] };
    case 'rule':
      return { key: own, after: queuesNamed(def).map((n) => `queue:${JSON.stringify([n])}`) };
    case 'reflection':
      return { key: own, after: [catalogKey(def.path.slice(0, -1))] };
    case 'grant':
      return { key: own, after: [catalogKey(def.path), ...principalsNamed(def)] };
    case 'user':
      return { key: principalKey('user', def.path[0]!), after: [] };
    case 'role':
      return { key: principalKey('role', def.path[0]!), after: principalsNamed(def) };
  }
}
