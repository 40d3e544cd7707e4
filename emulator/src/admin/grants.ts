// Privileges on catalog entities (docs/api-facts.md §5.13) and lineage (§5.12). Enterprise only.
// Grants: GET shows them with each grantee's name; PUT replaces them all (204). Lineage: a view's parents
// are the datasets its SQL names; children are the views whose SQL names it.

import type { AreaContext } from '../area.js';
import type { CatalogArea } from '../catalog.js';
import type { DatasetEntity, NsEntity } from '../catalog-store.js';
import { requireAdmin, requireAuth } from '../guards.js';
import { badRequest, type EmuRequest, noContent, notFound, ok, omitUndefined } from '../http.js';
import { invalidAt, type Json, objectBody } from './common.js';
import type { Grant, GrantStore } from './grant-store.js';
import type { RoleStore } from './roles.js';

const DATASET_PRIVILEGES = ['ALTER', 'SELECT', 'VIEW_REFLECTION', 'ALTER_REFLECTION', 'MANAGE_GRANTS'];
const CONTAINER_PRIVILEGES = [
  ...DATASET_PRIVILEGES,
  'CREATE_TABLE',
  'DROP',
  'INSERT',
  'TRUNCATE',
  'UPDATE',
  'DELETE',
];

export function registerGrantsAndLineage(
  area: AreaContext,
  catalog: CatalogArea,
  roles: RoleStore,
  grants: GrantStore,
): void {
  const { router, state } = area;
  const entity = (req: EmuRequest): NsEntity => {
    const e = catalog.store.get(req.params.id!);
    if (!e) throw notFound(`Could not find entity with id [${req.params.id}]`);
    return e;
  };
  const available = (e: NsEntity): string[] =>
    e.kind === 'dataset' ? DATASET_PRIVILEGES : CONTAINER_PRIVILEGES;

  router.get('/api/v3/catalog/:id/grants', (req) => {
    requireAdmin(req);
    const e = entity(req);
    const shown = grants.of(e.id).map((g) => {
      if (g.granteeType === 'ROLE') {
        const r = roles.roles.get(g.id);
        return { ...g, name: r?.name ?? g.id };
      }
      const u = state.users.get(g.id);
      return omitUndefined({
        ...g,
        name: u?.name ?? g.id,
        firstName: u?.firstName,
        lastName: u?.lastName,
        email: u?.email,
      });
    });
    return ok({ id: e.id, availablePrivileges: available(e), grants: shown });
  });
  router.put('/api/v3/catalog/:id/grants', (req) => {
    requireAdmin(req);
    const e = entity(req);
    const body = objectBody(req);
    if (!Array.isArray(body.grants)) throw invalidAt('grants');
    const allowed = available(e);
    const parsed = body.grants.map((raw, i): Grant => {
      if (!raw || typeof raw !== 'object') throw invalidAt(`grants[${i}]`);
      const g = raw as Json;
      if (g.granteeType !== 'USER' && g.granteeType !== 'ROLE') throw invalidAt(`grants[${i}].granteeType`);
      if (typeof g.id !== 'string') throw invalidAt(`grants[${i}].id`);
      if (!Array.isArray(g.privileges) || g.privileges.some((p) => typeof p !== 'string')) {
        throw invalidAt(`grants[${i}].privileges`);
      }
      const known = g.granteeType === 'USER' ? state.users.has(g.id) : roles.roles.has(g.id);
      if (!known) throw notFound(`${g.granteeType === 'USER' ? 'User' : 'Role'} with id '${g.id}' not found`);
      const bad = (g.privileges as string[]).find((p) => !allowed.includes(p));
      if (bad) throw badRequest(`Privilege ${bad} is not valid for this entity.`);
      return { granteeType: g.granteeType, id: g.id, privileges: [...new Set(g.privileges as string[])] };
    });
    grants.set(
      e.id,
      parsed.filter((g) => g.privileges.length > 0),
    );
    return noContent();
  });

  router.get('/api/v3/catalog/:id/graph', (req) => {
    requireAuth(req);
    const e = entity(req);
    if (e.kind !== 'dataset') throw badRequest('Lineage is only available for datasets.');
    const datasets = catalog.store.descendants([]).filter((x): x is DatasetEntity => x.kind === 'dataset');
    const names = (d: DatasetEntity): string[] => [d.path.join('.'), d.path.map((p) => `"${p}"`).join('.')];
    const reads = (view: DatasetEntity, d: DatasetEntity): boolean =>
      view.id !== d.id &&
      Boolean(view.sql) &&
      names(d).some((n) => view.sql!.toLowerCase().includes(n.toLowerCase()));
    const item = (d: DatasetEntity) => ({
      id: d.id,
      path: d.path,
      tag: d.tag,
      type: 'DATASET',
      datasetType: d.type === 'VIRTUAL_DATASET' ? 'VIRTUAL' : 'PROMOTED',
      createdAt: d.createdAt,
    });
    const parents = datasets.filter((d) => reads(e, d));
    const children = datasets.filter((d) => reads(d, e));
    const sourceNames = new Set(
      parents.filter((p) => p.type === 'PHYSICAL_DATASET').map((p) => p.path[0]!.toLowerCase()),
    );
    if (e.type === 'PHYSICAL_DATASET') sourceNames.add(e.path[0]!.toLowerCase());
    const sources = catalog.store
      .sources()
      .filter((s) => sourceNames.has(s.path[0]!.toLowerCase()))
      .map((s) => ({
        id: s.id,
        path: s.path,
        tag: s.tag,
        type: 'CONTAINER',
        containerType: 'SOURCE',
        createdAt: s.createdAt,
      }));
    return ok({ sources, parents: parents.map(item), children: children.map(item) });
  });
}
