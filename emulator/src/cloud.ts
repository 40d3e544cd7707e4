// The hosted edition (docs/api-facts.md §13): the same resources under other roots, served in front of the
// self-hosted areas. `/v0/projects/{projectId}/…` is a project's catalog, SQL, jobs and reflections (handed to
// the self-hosted routes as `/api/v3/…`), its engines and engine rules (served here); `/v0/…` holds the
// organisation's projects, users, roles and PATs. The self-hosted roots answer 404. Requests are counted against
// the published per-IP limits (§13.5), lowerable for tests; an exceeded limit answers 429 with Retry-After.
import { randomUUID } from 'node:crypto';
import { type Json, objectBody } from './admin/common.js';
import { requireAdmin } from './guards.js';
import {
  ApiError,
  badRequest,
  conflict,
  type EmuRequest,
  type EmuResponse,
  noContent,
  notFound,
  ok,
  type Principal,
  Router,
} from './http.js';
import { newTag } from './state.js';

/** The limit names of `--rate-limit NAME=N` (§13.5). */
export const RATE_LIMIT_NAMES = ['api', 'results', 'status', 'cancel'] as const;
export type RateLimitName = (typeof RATE_LIMIT_NAMES)[number];

/** Requests per window, as published: per minute, per source IP (§13.5). */
export const PUBLISHED_LIMITS: Record<RateLimitName, number> = {
  api: 1200,
  results: 1000,
  status: 100,
  cancel: 100,
};

export interface CloudOptions {
  /** The project the emulator serves (default: a fixed UUID). */
  projectId?: string;
  /** Lowered limits, for tests: requests per window. */
  rateLimits?: Partial<Record<RateLimitName, number>>;
  /** The window of the limits in ms (default 60000, as published). */
  rateWindowMs?: number;
  /**
   * Serve users and roles only at the vendor CLI's `/v1/…` forms, the documented `/v0/…` ones answering "no such
   * path" (a deployment behind or ahead of the documentation; tests of the client's fallback).
   */
  vendorFormsOnly?: boolean;
}

export const DEFAULT_PROJECT_ID = '48ca6975-39ad-47cb-9bb5-de73060380f6';

const ENGINE_SIZES = [
  'XX_SMALL_V1',
  'X_SMALL_V1',
  'SMALL_V1',
  'MEDIUM_V1',
  'LARGE_V1',
  'X_LARGE_V1',
  'XX_LARGE_V1',
  'XXX_LARGE_V1',
];
const ENGINE_NUMBERS = [
  'minReplicas',
  'maxReplicas',
  'autoStopDelaySeconds',
  'queueTimeLimitSeconds',
  'runtimeLimitSeconds',
  'drainTimeLimitSeconds',
  'maxConcurrency',
] as const;

export interface EmuEngine {
  id: string;
  name: string;
  size: string;
  activeReplicas: number;
  minReplicas: number;
  maxReplicas: number;
  autoStopDelaySeconds: number;
  queueTimeLimitSeconds: number;
  runtimeLimitSeconds: number;
  drainTimeLimitSeconds: number;
  state: 'ENABLED' | 'DISABLED';
  cloudTags: Array<{ key: string; value: string }>;
  queriedAt: string;
  statusChangedAt: string;
  description: string;
  maxConcurrency: number;
  instanceFamily: string;
  additionalEngineStateInfo: string;
}

interface EngineRule {
  name: string;
  condition: string;
  engineName: string;
  action: 'ROUTE' | 'REJECT';
  rejectMessage: string;
}

export interface EmuProject {
  id: string;
  name: string;
  type: string;
  state: string;
  cloudId: string;
  createdAt: string;
  modifiedAt: string;
  numberOfEngines: number;
  cloudType: string;
}

/** A sliding window of request times per limit. */
class RateLimiter {
  private readonly seen = new Map<RateLimitName, number[]>();
  /** How many requests were refused with 429, by limit (tests assert on it). */
  readonly refused: Record<RateLimitName, number> = { api: 0, results: 0, status: 0, cancel: 0 };

  constructor(
    readonly limits: Record<RateLimitName, number>,
    readonly windowMs: number,
  ) {}

  /** Counts a request against its limits; the seconds to wait when one of them is exceeded. */
  take(names: RateLimitName[], now: number): number | undefined {
    let wait: number | undefined;
    for (const name of names) {
      const times = (this.seen.get(name) ?? []).filter((t) => t > now - this.windowMs);
      this.seen.set(name, times);
      if (times.length >= this.limits[name]) {
        this.refused[name]++;
        const until = times[0]! + this.windowMs - now;
        wait = Math.max(wait ?? 0, Math.max(1, Math.ceil(until / 1000)));
      }
    }
    if (wait !== undefined) return wait;
    for (const name of names) this.seen.get(name)!.push(now);
    return undefined;
  }
}

/** Which limits a project path counts against (§13.5): every API call, and the three job endpoints. */
function limitsOf(rest: string): RateLimitName[] {
  if (/^job\/[^/]+\/results$/.test(rest)) return ['api', 'results'];
  if (/^job\/[^/]+\/cancel$/.test(rest)) return ['api', 'cancel'];
  if (/^job\/[^/]+$/.test(rest)) return ['api', 'status'];
  return ['api'];
}

/** Self-hosted resources a project path may reach; queues (`wlm`), `info` and the rest are not there. */
const PROJECT_RESOURCES = new Set([
  'catalog',
  'sql',
  'job',
  'reflection',
  'reflection-summary',
  'dataset',
  'search',
]);

export type CloudRouting = { path: string } | { response: EmuResponse };

/**
 * The self-hosted path that serves an organisation path of the hosted edition (docs/api-facts.md §13.4), or
 * undefined (a 404 of "no such path"): the documented `/v0/users…` and `/v0/roles…`, the vendor CLI's
 * `/v1/users…` (with `/v1/users/name/{name}`, which `/v0` lacks) and `/v1/roles…`, and the PATs at the singular
 * `/v0/user/{id}/token…`. The singular forms of the self-hosted API are not served.
 */
function organisationPath(segs: readonly string[], vendorFormsOnly: boolean): string | undefined {
  const [version, kind, ...rest] = segs;
  if (version === 'v0' && kind === 'user' && rest.length >= 2 && rest[1] === 'token')
    return `/api/v3/user/${rest.join('/')}`;
  if (kind !== 'users' && kind !== 'roles') return undefined;
  if (vendorFormsOnly && version === 'v0') return undefined;
  const singular = kind.slice(0, -1);
  if (rest[0] === 'by-name') return undefined;
  if (rest[0] === 'name') {
    if (version !== 'v1' || kind !== 'users' || rest.length !== 2) return undefined;
    return `/api/v3/user/by-name/${rest[1]}`;
  }
  return ['/api/v3', singular, ...rest].join('/');
}

export class CloudEdition {
  readonly projectId: string;
  readonly projects = new Map<string, EmuProject>();
  readonly engines = new Map<string, EmuEngine>();
  ruleSet: { tag: string; ruleInfos: EngineRule[]; ruleInfoDefault: EngineRule };
  readonly limiter: RateLimiter;
  /** See CloudOptions.vendorFormsOnly; tests change it between commands. */
  vendorFormsOnly: boolean;
  private readonly router = new Router();

  constructor(opts: CloudOptions = {}) {
    this.projectId = opts.projectId ?? DEFAULT_PROJECT_ID;
    this.vendorFormsOnly = opts.vendorFormsOnly ?? false;
    const now = new Date().toISOString();
    this.projects.set(this.projectId, {
      id: this.projectId,
      name: 'default-project',
      type: 'QUERY_ENGINE',
      state: 'ACTIVE',
      cloudId: 'dremio-aws-us-east-1',
      createdAt: now,
      modifiedAt: now,
      numberOfEngines: 1,
      cloudType: 'AWS',
    });
    this.addEngine({ name: 'default', size: 'SMALL_V1' });
    this.ruleSet = {
      tag: newTag(),
      ruleInfos: [],
      ruleInfoDefault: {
        name: 'All Other Queries',
        condition: '',
        engineName: 'default',
        action: 'ROUTE',
        rejectMessage: '',
      },
    };
    this.limiter = new RateLimiter({ ...PUBLISHED_LIMITS, ...opts.rateLimits }, opts.rateWindowMs ?? 60_000);
    this.registerRoutes();
  }

  engineByName(name: string): EmuEngine | undefined {
    for (const e of this.engines.values()) if (e.name === name) return e;
    return undefined;
  }

  /**
   * Where a request goes: an answer of the hosted edition's own (projects, engines, rules, a 404 for the
   * self-hosted roots, a 429), or the self-hosted path that serves it.
   */
  async route(
    method: string,
    path: string,
    principal: Principal | null,
    authScheme: string,
    body: string,
    query: URLSearchParams,
  ): Promise<CloudRouting> {
    try {
      // The login service (§13.2) shares the emulator's host.
      if (path === '/oauth/token') return { path };
      if (!path.startsWith('/v0/') && !path.startsWith('/v1/')) throw notFound('HTTP 404 Not Found');
      // Only `Bearer` (a PAT or an OAuth access token): no `_service` form there (§13.2).
      if (authScheme !== 'Bearer' || !principal) throw new ApiError(401, '', {}, true);
      const segs = path.split('/').filter(Boolean);
      if (segs[1] === 'projects' && segs.length > 3) {
        const pid = decodeURIComponent(segs[2]!);
        if (!this.projects.has(pid)) throw notFound(`Project [${pid}] not found.`);
        const rest = segs.slice(3).join('/');
        const wait = this.limiter.take(limitsOf(rest), Date.now());
        if (wait !== undefined) return { response: tooMany(wait) };
        if (PROJECT_RESOURCES.has(segs[3]!)) {
          if (segs[3] === 'catalog' && method === 'POST') {
            const entity = parse(body);
            if (entity.entityType === 'space') {
              throw badRequest('The hosted catalog has no spaces: create a folder instead.');
            }
            if (entity.entityType === 'source' && NOT_HOSTED_SOURCES.has(String(entity.type))) {
              throw badRequest(`Source type [${String(entity.type)}] is not available.`);
            }
          }
          return { path: `/api/v3/${rest}` };
        }
      } else {
        const wait = this.limiter.take(['api'], Date.now());
        if (wait !== undefined) return { response: tooMany(wait) };
        const served = organisationPath(segs, this.vendorFormsOnly);
        if (served) return { path: served };
      }
      const match = this.router.match(method, path);
      if (!match) throw notFound('HTTP 404 Not Found');
      if ('allowed' in match) {
        return {
          response: {
            status: 405,
            json: { errorMessage: 'HTTP 405 Method Not Allowed', moreInfo: '' },
            headers: { Allow: match.allowed.join(',') },
          },
        };
      }
      const req: EmuRequest = {
        method,
        rawPath: path,
        params: match.params,
        query,
        headers: {},
        body,
        principal,
      };
      return { response: await match.handler(req) };
    } catch (err) {
      if (err instanceof ApiError) {
        return {
          response: err.emptyBody
            ? { status: err.status }
            : { status: err.status, json: { errorMessage: err.errorMessage, ...err.extra } },
        };
      }
      throw err;
    }
  }

  private registerRoutes(): void {
    const r = this.router;
    r.get('/v0/projects', () => ok([...this.projects.values()]));
    r.get('/v0/projects/:id', (req) => ok(this.project(req.params.id!)));
    const base = '/v0/projects/:pid';
    r.get(`${base}/engines`, () => ok([...this.engines.values()]));
    r.get(`${base}/engines/:id`, (req) => ok(this.engine(req.params.id!)));
    r.post(`${base}/engines`, (req) => {
      requireAdmin(req);
      const b = objectBody(req);
      const name = typeof b.name === 'string' ? b.name.trim() : '';
      if (!name) throw badRequest('Engine name is required.');
      if (this.engineByName(name)) throw conflict(`Engine with name [${name}] already exists.`);
      const engine = this.addEngine({ ...engineFields(b), name });
      return ok({ id: engine.id });
    });
    r.put(`${base}/engines/:id`, (req) => {
      requireAdmin(req);
      const engine = this.engine(req.params.id!);
      const b = objectBody(req);
      const fields = engineFields(b);
      if (typeof b.name === 'string' && b.name !== engine.name) {
        if (this.engineByName(b.name)) throw conflict(`Engine with name [${b.name}] already exists.`);
        fields.name = b.name;
      }
      Object.assign(engine, fields, { statusChangedAt: new Date().toISOString() });
      return ok(engine);
    });
    r.delete(`${base}/engines/:id`, (req) => {
      requireAdmin(req);
      const engine = this.engine(req.params.id!);
      if (engine.name === this.ruleSet.ruleInfoDefault.engineName) {
        throw badRequest(`Engine [${engine.name}] is the target of the default rule and cannot be deleted.`);
      }
      this.engines.delete(engine.id);
      return noContent();
    });
    for (const action of ['enable', 'disable'] as const) {
      r.put(`${base}/engines/:id/${action}`, (req) => {
        requireAdmin(req);
        const engine = this.engine(req.params.id!);
        engine.state = action === 'enable' ? 'ENABLED' : 'DISABLED';
        engine.statusChangedAt = new Date().toISOString();
        return ok(engine);
      });
    }
    r.get(`${base}/rules`, () => ok({ ruleSet: this.ruleSet }));
    r.put(`${base}/rules`, (req) => {
      requireAdmin(req);
      const b = objectBody(req);
      const set = b.ruleSet as Json | undefined;
      if (!set || typeof set !== 'object') throw badRequest('ruleSet is required.');
      if (set.tag !== undefined && set.tag !== this.ruleSet.tag) {
        throw conflict('The rule set was changed by someone else: read it again.');
      }
      const infos = Array.isArray(set.ruleInfos) ? set.ruleInfos.map((x) => this.rule(x as Json)) : [];
      const def = set.ruleInfoDefault ? this.rule(set.ruleInfoDefault as Json) : this.ruleSet.ruleInfoDefault;
      this.ruleSet = { tag: newTag(), ruleInfos: infos, ruleInfoDefault: def };
      return ok({ ruleSet: this.ruleSet });
    });
  }

  private project(id: string): EmuProject {
    const p = this.projects.get(id);
    if (!p) throw notFound(`Project [${id}] not found.`);
    return p;
  }

  private engine(id: string): EmuEngine {
    const e = this.engines.get(id);
    if (!e) throw notFound(`Engine [${id}] not found.`);
    return e;
  }

  private rule(x: Json): EngineRule {
    const name = typeof x.name === 'string' ? x.name : '';
    if (!name) throw badRequest('Every rule needs a name.');
    const action = x.action === 'REJECT' ? 'REJECT' : 'ROUTE';
    const engineName = typeof x.engineName === 'string' ? x.engineName : '';
    if (action === 'ROUTE' && !this.engineByName(engineName)) {
      throw badRequest(`Rule [${name}] routes to unknown engine [${engineName}].`);
    }
    return {
      name,
      condition: typeof x.condition === 'string' ? x.condition : '',
      engineName,
      action,
      rejectMessage: typeof x.rejectMessage === 'string' ? x.rejectMessage : '',
    };
  }

  private addEngine(fields: Partial<EmuEngine> & { name: string }): EmuEngine {
    const now = new Date().toISOString();
    const engine: EmuEngine = {
      id: randomUUID(),
      size: 'SMALL_V1',
      activeReplicas: 0,
      minReplicas: 0,
      maxReplicas: 1,
      autoStopDelaySeconds: 300,
      queueTimeLimitSeconds: 300,
      runtimeLimitSeconds: 0,
      drainTimeLimitSeconds: 0,
      state: 'ENABLED',
      cloudTags: [],
      queriedAt: now,
      statusChangedAt: now,
      description: '',
      maxConcurrency: 4,
      instanceFamily: 'M5D',
      additionalEngineStateInfo: 'NONE',
      ...fields,
    };
    this.engines.set(engine.id, engine);
    return engine;
  }
}

function engineFields(b: Json): Partial<EmuEngine> {
  const out: Partial<EmuEngine> = {};
  if (b.size !== undefined) {
    if (typeof b.size !== 'string' || !ENGINE_SIZES.includes(b.size)) {
      throw badRequest(`Invalid engine size [${String(b.size)}]; valid: ${ENGINE_SIZES.join(', ')}.`);
    }
    out.size = b.size;
  }
  for (const k of ENGINE_NUMBERS) {
    const v = b[k];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
      throw badRequest(`${k} must be a non-negative integer.`);
    }
    out[k] = v;
  }
  if (out.minReplicas !== undefined && out.maxReplicas !== undefined && out.minReplicas > out.maxReplicas) {
    throw badRequest('minReplicas cannot exceed maxReplicas.');
  }
  if (typeof b.description === 'string') out.description = b.description;
  if (Array.isArray(b.cloudTags)) out.cloudTags = b.cloudTags as EmuEngine['cloudTags'];
  return out;
}

/** File systems beside a self-hosted cluster, which the hosted edition has no use for (§13.5, inferred). */
const NOT_HOSTED_SOURCES = new Set(['NAS', 'HDFS']);

function parse(body: string): { entityType?: unknown; type?: unknown } {
  try {
    const v = JSON.parse(body) as unknown;
    return v && typeof v === 'object' ? (v as { entityType?: unknown; type?: unknown }) : {};
  } catch {
    return {};
  }
}

function tooMany(seconds: number): EmuResponse {
  return {
    status: 429,
    headers: { 'Retry-After': String(seconds) },
    json: {
      errorMessage: 'Too many requests: the rate limit of this IP address was exceeded.',
      moreInfo: '',
    },
  };
}
