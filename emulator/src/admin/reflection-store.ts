// Reflections (docs/api-facts.md §10.1–10.2): create, read, replace with the tag, delete, list per dataset and (on
// the Enterprise edition) list all and refresh. A refresh takes `refreshMs` of emulated time, then the
// reflection can accelerate; tests can make the next refreshes fail or never end.
import { randomUUID } from 'node:crypto';
import type { AreaContext } from '../area.js';
import { requireAdmin, requireAuth } from '../guards.js';
import {
  type ApiError,
  badRequest,
  conflict,
  type EmuRequest,
  notFound,
  ok,
  omitUndefined,
} from '../http.js';
import { newTag } from '../state.js';
import { invalidAt, iso, type Json, objectBody, optionalString } from './common.js';

type FieldList = Array<Record<string, unknown>>;
const LISTS = [
  'displayFields',
  'dimensionFields',
  'measureFields',
  'partitionFields',
  'sortFields',
  'distributionFields',
] as const;

export interface EmuReflection {
  id: string;
  type: 'RAW' | 'AGGREGATION';
  name: string;
  tag: string;
  datasetId: string;
  enabled: boolean;
  arrowCachingEnabled: boolean;
  partitionDistributionStrategy: string;
  lists: Record<(typeof LISTS)[number], FieldList>;
  createdAt: number;
  updatedAt: number;
  /** When the running refresh ends (undefined: none running; Infinity: never). */
  refreshEndsAt?: number;
  refreshFails?: boolean;
  lastDataFetch?: number;
  failureCount: number;
  lastFailureMessage?: string;
}

/** What reflections need from the catalog: a dataset's id and field names. */
export interface ReflectionDatasets {
  fieldsOf(datasetId: string): string[] | undefined;
}

export class ReflectionStore {
  readonly reflections = new Map<string, EmuReflection>();
  /** Test knobs: how the next refreshes end. */
  nextRefresh: 'succeed' | 'fail' | 'hang' = 'succeed';
  refreshMs = 300;

  constructor(private readonly now: () => number) {}

  startRefresh(r: EmuReflection): void {
    r.refreshEndsAt = this.nextRefresh === 'hang' ? Number.POSITIVE_INFINITY : this.now() + this.refreshMs;
    r.refreshFails = this.nextRefresh === 'fail';
  }

  /** Settles a refresh whose time is up. */
  private settle(r: EmuReflection): void {
    if (r.refreshEndsAt === undefined || this.now() < r.refreshEndsAt) return;
    if (r.refreshFails) {
      r.failureCount += 1;
      r.lastFailureMessage = 'Refresh failed: the emulator was told to fail it';
    } else {
      r.lastDataFetch = r.refreshEndsAt;
      r.failureCount = 0;
      r.lastFailureMessage = undefined;
    }
    r.refreshEndsAt = undefined;
  }

  json(r: EmuReflection): Json {
    this.settle(r);
    const running = r.refreshEndsAt !== undefined;
    const available = r.lastDataFetch !== undefined;
    const failed = !running && r.failureCount > 0;
    const combinedStatus = !r.enabled
      ? 'DISABLED'
      : running
        ? 'REFRESHING'
        : failed
          ? available
            ? 'CAN_ACCELERATE_WITH_FAILURES'
            : 'FAILED'
          : available
            ? 'CAN_ACCELERATE'
            : 'CANNOT_ACCELERATE_MANUAL';
    const lists = Object.fromEntries(LISTS.map((k) => [k, r.lists[k]]));
    return {
      id: r.id,
      type: r.type,
      name: r.name,
      tag: r.tag,
      createdAt: iso(r.createdAt),
      updatedAt: iso(r.updatedAt),
      datasetId: r.datasetId,
      currentSizeBytes: available ? 65_536 : 0,
      totalSizeBytes: available ? 65_536 : 0,
      enabled: r.enabled,
      arrowCachingEnabled: r.arrowCachingEnabled,
      status: omitUndefined({
        config: 'OK',
        refresh: running ? 'RUNNING' : failed && !available ? 'GIVEN_UP' : 'MANUAL',
        availability: available ? 'AVAILABLE' : 'NONE',
        combinedStatus,
        failureCount: r.failureCount,
        lastFailureMessage: r.lastFailureMessage,
        lastDataFetch: available ? iso(r.lastDataFetch!) : undefined,
        expiresAt: available ? iso(r.lastDataFetch! + 3 * 3_600_000) : undefined,
      }),
      ...lists,
      partitionDistributionStrategy: r.partitionDistributionStrategy,
      entityType: 'reflection',
    };
  }
}

const reflectionNotFound = (id: string): ApiError => notFound(`reflection at with id [${id}] not found`);
const datasetNotFound = (id: string): ApiError => notFound(`dataset at with id [${id}] not found`);

export function registerReflections(
  area: AreaContext,
  store: ReflectionStore,
  datasets: ReflectionDatasets,
  enterprise: boolean,
): void {
  const { router, state } = area;
  const find = (req: EmuRequest): EmuReflection => {
    const r = store.reflections.get(req.params.id!);
    if (!r) throw reflectionNotFound(req.params.id!);
    return r;
  };

  router.get('/api/v3/reflection/:id', (req) => {
    requireAuth(req);
    return ok(store.json(find(req)));
  });
  router.get('/api/v3/dataset/:id/reflection', (req) => {
    requireAuth(req);
    const id = req.params.id!;
    if (!datasets.fieldsOf(id)) throw datasetNotFound(id);
    const data = [...store.reflections.values()].filter((r) => r.datasetId === id).map((r) => store.json(r));
    return ok({ data });
  });
  router.post('/api/v3/reflection', (req) => {
    requireAdmin(req);
    const body = objectBody(req);
    if (body.id !== undefined || body.tag !== undefined) {
      throw badRequest("Invalid reflection: new reflection shouldn't have an ID");
    }
    if (typeof body.enabled !== 'boolean') throw badRequest('Reflections must have the enabled field set');
    const type = body.type;
    if (type !== 'RAW' && type !== 'AGGREGATION') throw invalidAt('type');
    const datasetId = optionalString(body, 'datasetId');
    if (!datasetId) throw badRequest('Invalid reflection: dataset id is required');
    const fields = datasets.fieldsOf(datasetId);
    if (!fields) throw datasetNotFound(datasetId);
    const t = state.now();
    const r: EmuReflection = {
      id: randomUUID(),
      type,
      name: optionalString(body, 'name') ?? `${type === 'RAW' ? 'Raw' : 'Aggregation'} Reflection`,
      tag: newTag(),
      datasetId,
      enabled: body.enabled,
      arrowCachingEnabled: body.arrowCachingEnabled === true,
      partitionDistributionStrategy: optionalString(body, 'partitionDistributionStrategy') ?? 'CONSOLIDATED',
      lists: parseLists(body, fields),
      createdAt: t,
      updatedAt: t,
      failureCount: 0,
    };
    if (type === 'RAW' && r.lists.displayFields.length === 0) {
      throw badRequest('Invalid reflection: raw reflection must have at least one display field');
    }
    if (type === 'AGGREGATION' && r.lists.dimensionFields.length + r.lists.measureFields.length === 0) {
      throw badRequest(
        'Invalid reflection: aggregation reflection must have at least one dimension or measure',
      );
    }
    store.reflections.set(r.id, r);
    if (r.enabled) store.startRefresh(r);
    return ok(store.json(r));
  });
  // A full replace: the tag is required and must be current; lists the body leaves out are removed.
  router.put('/api/v3/reflection/:id', (req) => {
    requireAdmin(req);
    const r = find(req);
    const body = objectBody(req);
    const tag = optionalString(body, 'tag');
    if (!tag) throw badRequest('Invalid reflection: reflection version required');
    if (body.type !== undefined && body.type !== r.type) {
      throw badRequest('Invalid reflection: Cannot change the type of an existing reflection');
    }
    if (body.datasetId !== undefined && body.datasetId !== r.datasetId) {
      throw badRequest('Invalid reflection: Cannot change the dataset id of an existing reflection');
    }
    if (tag !== r.tag) {
      throw conflict(
        'The reflection seems to have been modified by another flow. Please verify the reflection definition and retry.',
      );
    }
    if (body.enabled !== undefined && typeof body.enabled !== 'boolean') throw invalidAt('enabled');
    const lists = parseLists(body, datasets.fieldsOf(r.datasetId) ?? []);
    const wasEnabled = r.enabled;
    if (body.arrowCachingEnabled !== undefined && typeof body.arrowCachingEnabled !== 'boolean') {
      throw invalidAt('arrowCachingEnabled');
    }
    r.name = optionalString(body, 'name') ?? r.name;
    r.enabled = body.enabled === undefined ? r.enabled : (body.enabled as boolean);
    // A full replace: the settings the body carries are taken too.
    if (body.arrowCachingEnabled !== undefined) r.arrowCachingEnabled = body.arrowCachingEnabled as boolean;
    r.partitionDistributionStrategy =
      optionalString(body, 'partitionDistributionStrategy') ?? r.partitionDistributionStrategy;
    r.lists = lists;
    r.tag = newTag();
    r.updatedAt = state.now();
    if (r.enabled && !wasEnabled) store.startRefresh(r);
    return ok(store.json(r));
  });
  router.delete('/api/v3/reflection/:id', (req) => {
    requireAdmin(req);
    store.reflections.delete(find(req).id);
    return { status: 200 };
  });
  if (!enterprise) return;

  router.get('/api/v3/reflection', (req) => {
    requireAuth(req);
    return ok({ data: [...store.reflections.values()].map((r) => store.json(r)) });
  });
  router.post('/api/v3/reflection/:id/refresh', (req) => {
    requireAdmin(req);
    const r = find(req);
    if (!r.enabled) throw badRequest('Cannot refresh a disabled reflection');
    store.startRefresh(r);
    return { status: 200 };
  });
}

/** The field lists of a body, each name checked against the dataset's fields (a 400 names the first unknown). */
function parseLists(body: Json, fields: readonly string[]): EmuReflection['lists'] {
  const known = new Set(fields.map((f) => f.toLowerCase()));
  const out = {} as EmuReflection['lists'];
  for (const key of LISTS) {
    const v = body[key];
    if (v === undefined || v === null) {
      out[key] = [];
      continue;
    }
    if (!Array.isArray(v)) throw invalidAt(key);
    out[key] = v.map((item, i) => {
      if (!item || typeof item !== 'object' || typeof (item as Json).name !== 'string') {
        throw invalidAt(`${key}[${i}].name`);
      }
      const { name, ...rest } = item as Json & { name: string };
      if (fields.length && !known.has(name.toLowerCase())) {
        throw badRequest(`Invalid reflection: field [${name}] not found in dataset`);
      }
      // The service answers with its own key order (name first, as its field classes declare them), whatever
      // order the request had: a client must not compare the keys' order.
      return omitUndefined({ name, ...rest }) as Record<string, unknown>;
    });
  }
  return out;
}
