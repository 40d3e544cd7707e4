// The admin kinds (queue, rule, reflection, grant, user, role) beside the catalog's: which `--kinds` names, and
// the table of their handlers (kind.ts): how each is pulled, planned, applied and ordered. The work of each kind
// is in its module (wlm.ts, reflections.ts, grants.ts, principals.ts); the requests are those of the admin
// commands (src/api/queues.ts, reflections.ts, grants.ts, users.ts, roles.ts).
import type { ApiClient } from '../api/http.js';
import { UsageError } from '../errors.js';
import { ADMIN_KINDS, type AdminKind, type Definition } from './definitions.js';
import type { EntityReader, PlanEntry } from './diff.js';
import { grantKind } from './grants.js';
import { type KindHandler, sharedPerRun } from './kind.js';
import { roleKind, userKind } from './principals.js';
import { reflectionKind } from './reflections.js';
import { queueKind, ruleKind } from './wlm.js';

/** Each admin kind's handler: the one place a kind is dispatched. */
const HANDLERS: Record<AdminKind, KindHandler> = {
  queue: queueKind,
  rule: ruleKind,
  reflection: reflectionKind,
  grant: grantKind,
  user: userKind,
  role: roleKind,
};

const handlerOf = (def: Definition): KindHandler => HANDLERS[def.kind as AdminKind];

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
 * The definitions of `kinds`: every queue and the ruleset (they belong to the service, not to a path), the
 * local users and roles, and the reflections and grants of the catalog definitions just pulled.
 */
export async function pullAdminKinds(
  client: ApiClient,
  kinds: readonly AdminKind[],
  catalogDefs: readonly Definition[],
  concurrency: number,
): Promise<Definition[]> {
  const run = { client, shared: sharedPerRun(client), catalogDefs, concurrency };
  const parts = await Promise.all(kinds.map((kind) => HANDLERS[kind].pull(run)));
  return parts.flat();
}

/**
 * What the plans of one run share: the queues and the ruleset are read once, and each catalog entity and each
 * dataset's reflections once (`read`: the catalog plan's reader, so that a plan reads no entity twice).
 */
export function adminPlanner(
  client: ApiClient,
  read: EntityReader,
): (def: Definition) => Promise<PlanEntry | undefined> {
  const run = { client, read, shared: sharedPerRun(client) };
  return (def) => handlerOf(def).plan(run, def);
}

export function applyAdmin(client: ApiClient, entry: PlanEntry): Promise<void> {
  return handlerOf(entry.def).apply(client, entry);
}

/**
 * An admin definition's place in the order: its own key, and the keys it must come after — a reflection
 * after its dataset, a grant after its entity and its grantees, the ruleset after the queues it names, a role
 * after its members.
 */
export function adminOrder(def: Definition): { key: string; after: string[] } {
  return handlerOf(def).order(def);
}
