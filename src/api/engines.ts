// The hosted edition's projects, engines and engine rules (docs/api-facts.md §13.3, §13.4). Engines are below
// the project root, projects at the organisation root: the paths here are the hosted ones, so the HTTP client's
// routing (src/api/roots.ts) sends them as written. An engine PUT replaces the engine, so updates merge into the
// engine just read (mergeEngine, pure) and send the whole of it.
import * as z from 'zod/mini';
import '../util/zod.js';
import { UsageError } from '../errors.js';
import { isUuid } from '../util/catalog-ref.js';
import { adminOnly } from './editions.js';
import type { ApiClient, RequestSpec } from './http.js';
import { HOSTED_PREFIX, projectRoot, type Root } from './roots.js';
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
type EngineRequest = Pick<RequestSpec, 'method' | 'path' | 'json' | 'idempotent' | 'responseType'>;

const projectsPath = `${HOSTED_PREFIX}/projects`;
const enginesPath = (root: Root): string => `${projectRoot(root)}/engines`;
const enginePath = (root: Root, id: string): string => `${enginesPath(root)}/${segment(id, 'engine id')}`;
const rulesPath = (root: Root): string => `${projectRoot(root)}/rules`;

/** Engines and rules are admin-only on the service: a 403 says so. */
async function adminCall<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw adminOnly(err, what);
  }
}

export async function listProjects(client: ApiClient): Promise<Project[]> {
  return client.request({ method: 'GET', path: projectsPath, schema: z.array(ProjectSchema) });
}

/** A project by id, or by name among those listed. */
export async function resolveProject(client: ApiClient, ref: string): Promise<Project> {
  if (isUuid(ref)) {
    return client.request({
      method: 'GET',
      path: `${projectsPath}/${segment(ref, 'project id')}`,
      schema: ProjectSchema,
    });
  }
  const found = (await listProjects(client)).filter((p) => p.name === ref);
  if (found.length === 1) return found[0]!;
  throw new UsageError(
    found.length ? `${found.length} projects are named "${ref}"` : `no project is named "${ref}"`,
    { hint: 'give the project id (a UUID): `dlake project list`' },
  );
}

export async function listEngines(client: ApiClient, root: Root): Promise<Engine[]> {
  return client.request({ method: 'GET', path: enginesPath(root), schema: z.array(EngineSchema) });
}

/** An engine by id, or by its (unique) name. */
export async function resolveEngine(client: ApiClient, root: Root, ref: string): Promise<Engine> {
  if (isUuid(ref)) {
    return client.request({ method: 'GET', path: enginePath(root, ref), schema: EngineSchema });
  }
  const found = (await listEngines(client, root)).find((e) => e.name === ref);
  if (found) return found;
  const { NotFoundError } = await import('../errors.js');
  throw new NotFoundError(`engine "${ref}" not found`, { hint: 'list the engines with `dlake engine list`' });
}

export function createEngineRequest(root: Root, body: EngineFields & { name: string }): EngineRequest {
  return { method: 'POST', path: enginesPath(root), json: body };
}

export async function createEngine(
  client: ApiClient,
  root: Root,
  body: EngineFields & { name: string },
): Promise<Engine> {
  const created = await adminCall('creating engines', () =>
    client.request({ ...createEngineRequest(root, body), schema: z.looseObject({ id: text }) }),
  );
  return resolveEngine(client, root, created.id);
}

export function updateEngineRequest(root: Root, engine: Engine): EngineRequest {
  return { method: 'PUT', path: enginePath(root, engine.id), json: engine, idempotent: true };
}

export function updateEngine(client: ApiClient, root: Root, engine: Engine): Promise<Engine> {
  return adminCall('changing engines', () =>
    client.request({ ...updateEngineRequest(root, engine), schema: EngineSchema }),
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

export function deleteEngineRequest(root: Root, id: string): EngineRequest {
  return { method: 'DELETE', path: enginePath(root, id), responseType: 'none', idempotent: true };
}

export async function deleteEngine(client: ApiClient, root: Root, id: string): Promise<void> {
  await adminCall('deleting engines', () => client.request(deleteEngineRequest(root, id)));
}

export function setEngineStateRequest(root: Root, id: string, action: 'enable' | 'disable'): EngineRequest {
  return { method: 'PUT', path: `${enginePath(root, id)}/${action}`, idempotent: true, responseType: 'none' };
}

export async function setEngineState(
  client: ApiClient,
  root: Root,
  id: string,
  action: 'enable' | 'disable',
): Promise<void> {
  await adminCall(`${action === 'enable' ? 'enabling' : 'disabling'} engines`, () =>
    client.request(setEngineStateRequest(root, id, action)),
  );
}

export async function getEngineRules(client: ApiClient, root: Root): Promise<EngineRuleSet> {
  const res = await client.request({ method: 'GET', path: rulesPath(root), schema: RuleSetSchema });
  return res.ruleSet;
}

export function replaceEngineRulesRequest(root: Root, ruleSet: Record<string, unknown>): EngineRequest {
  return { method: 'PUT', path: rulesPath(root), json: { ruleSet }, idempotent: true };
}

export async function replaceEngineRules(
  client: ApiClient,
  root: Root,
  ruleSet: Record<string, unknown>,
): Promise<EngineRuleSet> {
  const res = await adminCall('changing engine rules', () =>
    client.request({ ...replaceEngineRulesRequest(root, ruleSet), schema: RuleSetSchema }),
  );
  return res.ruleSet;
}
