// Catalog area: /api/v3/catalog — listing, lookups by id and by path, writes, refresh and collaboration.
// The entity tree lives in catalog-store.ts, wire shapes in catalog-view.ts, write rules in catalog-write.ts.
import { resolve as resolvePath } from 'node:path';
import type { AreaContext } from './area.js';
import { getLabels, getWiki, setLabels, setWiki } from './catalog-collab.js';
import { type CatalogDataset, type CatalogNode, CatalogStore } from './catalog-store.js';
import { type ChildrenOption, listString, renderNode, summary } from './catalog-view.js';
import {
  autoPromote,
  type CatalogContext,
  createEntity,
  deleteEntity,
  promote,
  seedNasSource,
  updateEntity,
} from './catalog-write.js';
import { type CtasCatalog, ctasCatalog } from './ctas.js';
import { requireAuth } from './guards.js';
import {
  ApiError,
  badRequest,
  type EmuRequest,
  forbidden,
  jsonBody,
  noContent,
  notFound,
  ok,
  type Principal,
} from './http.js';
import { type Field, FieldProbe } from './nas.js';

export type { CatalogDataset } from './catalog-store.js';

/** The catalog area's face, for the jobs area (which reads its datasets) and for tests (`emu.catalog`). */
export interface CatalogArea {
  /** The entity tree; `store.sourceConfig(name)` reads a source's stored, unmasked config. */
  store: CatalogStore;
  /** Every table (promoted file or folder) and view, for the SQL engine. */
  datasets(): CatalogDataset[];
  /** Records a dataset's schema once the SQL engine has seen it. */
  recordFields(path: string[], fields: Field[]): void;
  /** CREATE TABLE … AS: where a new table may be written, and registering it once written. */
  ctas: CtasCatalog;
  /** Makes tables of the files and folders these paths name where their source formats them on query. */
  autoPromote(paths: readonly string[][]): Promise<void>;
}

export async function registerCatalog(area: AreaContext): Promise<CatalogArea> {
  const { router, state, options } = area;
  const store = new CatalogStore(() => state.now(), options.secretPlaceholder);
  const probe = new FieldProbe();
  area.onClose(() => probe.close());
  const cx: CatalogContext = {
    store,
    probe,
    edition: options.edition === 'community' ? 'community' : 'enterprise',
  };

  const face: CatalogArea = {
    store,
    datasets: () => store.datasets(),
    recordFields: (path, fields) => store.setFields(path, fields),
    ctas: ctasCatalog(store, probe),
    autoPromote: (paths) => autoPromote(cx, paths),
  };

  if (options.samplesDir) seedNasSource(store, 'Samples', resolvePath(options.samplesDir));

  /** The caller; also makes sure their home exists (see `CatalogStore.home`). */
  const caller = (req: EmuRequest): Principal => {
    const p = requireAuth(req);
    store.home(p.userName);
    return p;
  };

  // The caller's home, then spaces, then sources (other users' homes are not listed).
  router.get('/api/v3/catalog', (req) => {
    const p = caller(req);
    const include = listParam(req, 'include');
    for (const x of include) {
      // The service parses each value as an enum; unknown values fail the parse.
      if (x !== 'datasetCount' && x !== 'permissions') throw badRequest(`No enum constant DetailType.${x}`);
    }
    const items = [store.home(p.userName), ...store.topLevel()].map((entity) => {
      const node: CatalogNode = { kind: 'entity', entity };
      const item = summary(node);
      if (include.includes('datasetCount')) {
        item.stats = { datasetCount: datasetCount(node), datasetCountBounded: false };
      }
      if (include.includes('permissions')) item.permissions = permissions(p);
      return item;
    });
    return ok({ data: items });
  });

  /** `include=datasetCount`: views and tables anywhere below a top-level container (promoted ones for NAS). */
  const datasetCount = (node: CatalogNode): number =>
    node.kind === 'entity'
      ? store.descendants(node.entity.path).filter((e) => e.kind === 'dataset').length
      : 0;

  const show = (req: EmuRequest, p: Principal, node: CatalogNode) => {
    const body = renderNode(store, node, childrenOption(req));
    if (listParam(req, 'include').includes('permissions')) body.permissions = permissions(p);
    return ok(body);
  };

  router.get('/api/v3/catalog/:id', (req) => {
    const p = caller(req);
    const id = req.params.id!;
    const node = store.resolveId(id);
    if (!node) throw notFound(`Could not find entity with id [${id}]`);
    return show(req, p, node);
  });

  router.get('/api/v3/catalog/by-path/*path', (req) => {
    const p = caller(req);
    const path = decodeSegments(req.params.path!);
    const node = store.resolvePath(path);
    if (!node) throw notFound(`Could not find entity with path [${listString(path)}]`);
    return show(req, p, node);
  });

  router.post('/api/v3/catalog', (req) => createEntity(cx, caller(req), jsonBody(req)));
  router.post('/api/v3/catalog/:id', (req) => promote(cx, caller(req), req.params.id!, jsonBody(req)));
  router.put('/api/v3/catalog/:id', (req) => updateEntity(cx, caller(req), req.params.id!, jsonBody(req)));
  router.delete('/api/v3/catalog/:id', (req) =>
    deleteEntity(cx, caller(req), req.params.id!, req.query.get('tag')),
  );

  // Refresh of the reflections depending on a table: admin-only in the emulator (it acts on a source's data).
  router.post('/api/v3/catalog/:id/refresh', (req) => {
    const p = caller(req);
    if (!p.admin) throw forbidden();
    const id = req.params.id!;
    const node = store.resolveId(id);
    if (
      node?.kind !== 'entity' ||
      node.entity.kind !== 'dataset' ||
      node.entity.type !== 'PHYSICAL_DATASET'
    ) {
      throw notFound(`Could not find dataset with id [${id}].`);
    }
    return noContent();
  });

  router.get('/api/v3/catalog/:id/collaboration/tag', (req) => {
    caller(req);
    return getLabels(store, req.params.id!);
  });
  router.post('/api/v3/catalog/:id/collaboration/tag', (req) =>
    setLabels(store, caller(req), req.params.id!, jsonBody(req)),
  );
  router.get('/api/v3/catalog/:id/collaboration/wiki', (req) => {
    caller(req);
    return getWiki(store, req.params.id!);
  });
  router.post('/api/v3/catalog/:id/collaboration/wiki', (req) =>
    setWiki(store, caller(req), req.params.id!, jsonBody(req)),
  );
  return face;
}

/** A repeatable query parameter, also accepting comma-separated values. */
function listParam(req: EmuRequest, name: string): string[] {
  return req.query
    .getAll(name)
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
}

function childrenOption(req: EmuRequest): ChildrenOption {
  if (listParam(req, 'exclude').includes('children')) return { exclude: true };
  const raw = req.query.get('maxChildren');
  let maxChildren: number | undefined;
  if (raw !== null) {
    // A query parameter that does not convert is a 404 in JAX-RS, with this shape of message
    // (docs/api-facts.md §1.4).
    if (!/^-?\d+$/.test(raw.trim())) {
      throw new ApiError(404, `HTTP 404 Not Found: QueryParam maxChildren. For input string: "${raw}"`);
    }
    maxChildren = Number(raw);
  }
  return { maxChildren, pageToken: req.query.get('pageToken') ?? undefined };
}

/**
 * The raw by-path segments: each is percent-decoded on its own, so `%2F` stays inside its component. A segment
 * that is not valid percent-encoding is refused with a 400, as the real server's URI parser does.
 */
function decodeSegments(raw: string): string[] {
  return raw
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        throw badRequest(`Invalid URI encoding in path segment [${s}].`);
      }
    });
}

/** `include=permissions` (Enterprise): what the caller may do, from the emulator's simple permission model. */
function permissions(p: Principal): string[] {
  return p.admin
    ? [
        'ALTER',
        'ALTER_REFLECTION',
        'DROP',
        'MANAGE_GRANTS',
        'MODIFY',
        'READ',
        'SELECT',
        'VIEW_REFLECTION',
        'WRITE',
      ]
    : ['READ', 'SELECT', 'VIEW_REFLECTION'];
}
