// The hosted edition's projects, engines and engine rules (docs/api-facts.md §13.3, §13.4). Engines are below
// the project root, projects at the organisation root; the self-hosted edition has none (api/roots.ts refuses
// them before anything is sent). An engine PUT replaces the engine, so updates merge into the
// engine just read (mergeEngine, pure) and send the whole of it.
import * as z from 'zod/mini';
import '../util/zod.js';
import { UsageError } from '../errors.js';
import { isUuid } from '../util/catalog-ref.js';
import { adminOnly } from './editions.js';
import { below, hostedOnly, type Target } from './endpoint.js';
import type { ApiClient, RequestSpec } from './http.js';
import { optional, text } from './schemas.js';
import { segment } from './url-segment.js';

const ProjectSchema = z.looseObject({
  id: text,
  name: z.string(),
  state: optional(z.string()),
  type: optional(z.string()),
  cloudId: optional(z.string()),
  numberOfEngines: optional(z.number()),
  createdAt: optional(text),
});
export type Project = z.infer<typeof ProjectSchema>;

const CloudTagSchema = z.looseObject({ key: z.string(), value: z.string() });
const EngineSchema = z.looseObject({
  id: text,
  name: z.string(),
  size: optional(z.string()),
  state: optional(z.string()),
  activeReplicas: optional(z.number()),
  minReplicas: optional(z.number()),
  maxReplicas: optional(z.number()),
  maxConcurrency: optional(z.number()),
  autoStopDelaySeconds: optional(z.number()),
  queueTimeLimitSeconds: optional(z.number()),
  runtimeLimitSeconds: optional(z.number()),
  drainTimeLimitSeconds: optional(z.number()),
  description: optional(z.string()),
  cloudTags: optional(z.array(CloudTagSchema)),
});
export type Engine = z.infer<typeof EngineSchema>;

const RuleInfoSchema = z.looseObject({
  name: z.string(),
  condition: optional(z.string()),
  engineName: optional(z.string()),
  action: optional(z.string()),
  rejectMessage: optional(z.string()),
});
const RuleSetSchema = z.looseObject({
  ruleSet: z.looseObject({
    ruleInfos: z.pipe(
      optional(z.array(RuleInfoSchema)),
      z.transform((r) => r ?? []),
    ),
    ruleInfoDefault: optional(RuleInfoSchema),
    tag: optional(text),
  }),
});
type EngineRuleSet = z.infer<typeof RuleSetSchema>['ruleSet'];

/** The writable fields of an engine, in the API's units (seconds). */
export interface EngineFields {
  name?: string;
  size?: string;
  minReplicas?: number;
  maxReplicas?: number;
  maxConcurrency?: number;
  autoStopDelaySeconds?: number;
  queueTimeLimitSeconds?: number;
  runtimeLimitSeconds?: number;
  drainTimeLimitSeconds?: number;
  description?: string;
  cloudTags?: Array<{ key: string; value: string }>;
}

/** A request as sent, and as `--dry-run` prints it. */
type EngineRequest = Pick<RequestSpec, 'method' | 'at' | 'json' | 'idempotent' | 'responseType'>;

const PROJECTS = hostedOnly('project', '/v0/projects', 'organisation');
const ENGINES = hostedOnly('engine', '/engines', 'project');
const engineTarget = (id: string): Target =>
  hostedOnly('engine', `/engines/${segment(id, 'engine id')}`, 'project', { id });
const RULES = hostedOnly('engine-rules', '/rules', 'project');

/** Engines and rules are admin-only on the service: a 403 says so. */
async function adminCall<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw adminOnly(err, what);
  }
}

export async function listProjects(client: ApiClient): Promise<Project[]> {
  return client.request({ method: 'GET', at: PROJECTS, schema: z.array(ProjectSchema) });
}

/** A project by id, or by name among those listed. */
export async function resolveProject(client: ApiClient, ref: string): Promise<Project> {
  if (isUuid(ref)) {
    return client.request({
      method: 'GET',
      at: hostedOnly('project', `/v0/projects/${segment(ref, 'project id')}`, 'organisation', { id: ref }),
      schema: ProjectSchema,
    });
  }
  const found = (await listProjects(client)).filter((p) => p.name === ref);
  if (found.length === 1) return found[0]!;
  throw new UsageError(
    found.length ? `${found.length} projects are named "${ref}"` : `no project is named "${ref}"`,
    { hint: { kind: 'list-entities', list: 'project' } },
  );
}

export async function listEngines(client: ApiClient): Promise<Engine[]> {
  return client.request({ method: 'GET', at: ENGINES, schema: z.array(EngineSchema) });
}

/** An engine by id, or by its (unique) name. */
export async function resolveEngine(client: ApiClient, ref: string): Promise<Engine> {
  if (isUuid(ref)) {
    return client.request({ method: 'GET', at: engineTarget(ref), schema: EngineSchema });
  }
  const found = (await listEngines(client)).find((e) => e.name === ref);
  if (found) return found;
  const { NotFoundError } = await import('../errors.js');
  throw new NotFoundError(`not found: engine "${ref}"`, { hint: { kind: 'list-entities', list: 'engine' } });
}

export function createEngineRequest(body: EngineFields & { name: string }): EngineRequest {
  return { method: 'POST', at: ENGINES, json: body };
}

export async function createEngine(
  client: ApiClient,
  body: EngineFields & { name: string },
): Promise<Engine> {
  const created = await adminCall('creating engines', () =>
    client.request({ ...createEngineRequest(body), schema: z.looseObject({ id: text }) }),
  );
  return resolveEngine(client, created.id);
}

export function updateEngineRequest(engine: Engine): EngineRequest {
  return { method: 'PUT', at: engineTarget(engine.id), json: engine, idempotent: true };
}

export function updateEngine(client: ApiClient, engine: Engine): Promise<Engine> {
  return adminCall('changing engines', () =>
    client.request({ ...updateEngineRequest(engine), schema: EngineSchema }),
  );
}

/** The engine read, with the given fields changed, and the names of those that changed. */
export function mergeEngine(current: Engine, fields: EngineFields): { body: Engine; changed: string[] } {
  const body: Engine = { ...current };
  const changed: string[] = [];
  for (const [k, v] of Object.entries(fields) as Array<[keyof EngineFields, unknown]>) {
    if (v === undefined) continue;
    if (JSON.stringify((current as Record<string, unknown>)[k]) === JSON.stringify(v)) continue;
    (body as Record<string, unknown>)[k] = v;
    changed.push(k);
  }
  const min = body.minReplicas;
  const max = body.maxReplicas;
  if (min !== undefined && max !== undefined && min > max) {
    throw new UsageError(`the minimum replicas (${min}) would exceed the maximum (${max})`);
  }
  return { body, changed };
}

export function deleteEngineRequest(id: string): EngineRequest {
  return { method: 'DELETE', at: engineTarget(id), responseType: 'none', idempotent: true };
}

export async function deleteEngine(client: ApiClient, id: string): Promise<void> {
  await adminCall('deleting engines', () => client.request(deleteEngineRequest(id)));
}

export function setEngineStateRequest(id: string, action: 'enable' | 'disable'): EngineRequest {
  return { method: 'PUT', at: below(engineTarget(id), action), idempotent: true, responseType: 'none' };
}

export async function setEngineState(
  client: ApiClient,
  id: string,
  action: 'enable' | 'disable',
): Promise<void> {
  await adminCall(`${action === 'enable' ? 'enabling' : 'disabling'} engines`, () =>
    client.request(setEngineStateRequest(id, action)),
  );
}

export async function getEngineRules(client: ApiClient): Promise<EngineRuleSet> {
  const res = await client.request({ method: 'GET', at: RULES, schema: RuleSetSchema });
  return res.ruleSet;
}

export function replaceEngineRulesRequest(ruleSet: Record<string, unknown>): EngineRequest {
  return { method: 'PUT', at: RULES, json: { ruleSet }, idempotent: true };
}

export async function replaceEngineRules(
  client: ApiClient,
  ruleSet: Record<string, unknown>,
): Promise<EngineRuleSet> {
  const res = await adminCall('changing engine rules', () =>
    client.request({ ...replaceEngineRulesRequest(ruleSet), schema: RuleSetSchema }),
  );
  return res.ruleSet;
}
