// Administration area: users, roles (minimal), personal access tokens, workload queues and rules, and the
// reflection summary, one module each under admin/. Everything but reading and writing users is
// Enterprise-only: the community edition does not have those resources at all (docs/api-facts.md §11), so
// they are not registered there and the server's generic `HTTP 404 Not Found` answers, as Jersey would for
// a path it does not know.
import { GrantStore } from './admin/grant-store.js';
import { registerGrantsAndLineage } from './admin/grants.js';
import { registerPats } from './admin/pats.js';
import { QueueStore, registerQueues, registerRules } from './admin/queues.js';
import { ReflectionStore, registerReflections } from './admin/reflection-store.js';
import { registerReflectionSummary } from './admin/reflections.js';
import { RoleStore, registerRoles } from './admin/roles.js';
import { registerUsers } from './admin/users.js';
import type { AreaContext } from './area.js';
import type { CatalogArea } from './catalog.js';

export type { EmuQueue, QueueStore } from './admin/queues.js';
export type { ReflectionStore } from './admin/reflection-store.js';
export { ADMIN_ROLE_ID, PUBLIC_ROLE_ID } from './admin/roles.js';

/** The administration area's face, for tests (`emu.queues`). */
export interface AdminArea {
  /** The workload queues and rules; undefined on the community edition. */
  queues: QueueStore | undefined;
  /** The roles (grants name them). */
  roles: RoleStore;
  /** The grants on catalog entities (a user or role deleted takes its own with it). */
  grants: GrantStore;
}

export function registerAdmin(area: AreaContext): AdminArea {
  const enterprise = area.options.edition !== 'community';
  const roles = new RoleStore(area.state);
  const grants = new GrantStore();
  registerUsers(area, roles, enterprise, grants);
  if (!enterprise) return { queues: undefined, roles, grants };
  registerRoles(area, roles, grants);
  registerPats(area);
  const queues = new QueueStore();
  registerQueues(area, queues);
  registerRules(area, queues);
  registerReflectionSummary(area);
  return { queues, roles, grants };
}

/**
 * Grants and lineage (Enterprise) and reflections sit on the catalog's entities: they are registered once the
 * catalog is. Reflections sit on the catalog's datasets (their field names are checked on create and update), so they
 * are registered once the catalog is. CRUD is on both editions; listing all and refresh are Enterprise-only.
 */
export function registerReflectionArea(
  area: AreaContext,
  catalog: CatalogArea,
  admin: AdminArea,
): ReflectionStore {
  if (area.options.edition !== 'community')
    registerGrantsAndLineage(area, catalog, admin.roles, admin.grants);
  const store = new ReflectionStore(() => area.state.now());
  const fieldsOf = (id: string): string[] | undefined => {
    const e = catalog.store.get(id);
    return e?.kind === 'dataset' ? (e.fields ?? []).map((f) => f.name) : undefined;
  };
  registerReflections(area, store, { fieldsOf }, area.options.edition !== 'community');
  return store;
}
