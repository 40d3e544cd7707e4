// Requests as data: where a request goes, said once, as fields rather than as a URL string that later layers
// would parse back apart (docs/architecture.md "The request pipeline").
//
// An area module (users.ts, catalog.ts, …) names what it asks for with a `Target`: the resource, the entity
// the request is about, the root it sits below on the hosted edition, the rate limit it counts against, and its
// path on each edition that has it. Routing (roots.ts), pacing (pacing.ts) and the wording of a missing entity
// (errors.ts) read these fields; none of them looks at the path.
import { API_PREFIX } from '../constants.js';
import type { HostedGap } from '../errors.js';

type Resource =
  | 'catalog'
  | 'dataset'
  | 'user'
  | 'role'
  | 'pat'
  | 'reflection'
  | 'reflection-summary'
  | 'queue'
  | 'queue-rules'
  | 'job'
  | 'sql'
  | 'search'
  | 'login'
  | 'token'
  | 'project'
  | 'engine'
  | 'engine-rules'
  /** The self-hosted server's version (`/api/v3/info`). */
  | 'info'
  /** `dlake api`: a path the user typed, sent as written. */
  | 'raw';

/** The hosted edition's published rate limits a request counts against, beside `api` (docs/api-facts.md §13.5). */
export type LimitClass = 'api' | 'results' | 'status' | 'cancel';

/** The entity a request names: a 404 then means that entity is missing. */
type Key = { id: string } | { name: string } | { path: readonly string[] };

export interface Target {
  resource: Resource;
  /** The entity a 404 says is missing; none where a 404 is about something else (a list, a user's tokens). */
  key?: Key;
  /**
   * Below which root it sits on the hosted edition: the organisation's (`cloud` paths are whole), a project's
   * (`cloud` paths go below `/v0/projects/{id}`), or the token endpoint's base (the same on both editions).
   */
  scope: 'organisation' | 'project' | 'auth';
  /** The rate limit it counts against beside `api`, or `api` alone. */
  limit: LimitClass;
  /** Its path on the self-hosted edition; none where that edition has no such resource. */
  software?: string;
  /**
   * Its forms on the hosted edition, the documented one first: a 404 of "no such path" tries the next, and the
   * form that answered is remembered per profile under `family` (api/pipeline/route.ts). Empty where it has none.
   */
  cloud: readonly HostedForm[];
  /** The name under which the hosted form that answered is remembered (`users`); set where there are several. */
  family?: string;
  /** Why the hosted edition has none, where it has none. */
  gap?: HostedGap;
}

/**
 * A path below the hosted edition's root for the target's scope, or a lookup: one item of a list, found with a
 * CEL filter (`name == "bob"`), which the route layer answers as the item itself or as a 404 naming it.
 */
type HostedForm = string | { list: string; filter: string };

/** A CEL string literal: the text in double quotes, its quotes and backslashes escaped. */
function celString(text: string): string {
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/**
 * An organisation's users or roles: `/api/v3/<singular>…` on the self-hosted edition; on the hosted one the
 * documented `/v0/<plural>…`, else the vendor CLI's `/v1/<plural>…` (docs/api-facts.md §13.4).
 */
export function organisationResource(
  resource: 'user' | 'role',
  ref: { id: string } | { name: string } | undefined,
  encoded?: string,
): Target {
  const plural = `${resource}s`;
  const forms = ['/v0', '/v1'].map((v) => `${v}/${plural}`);
  const base: Omit<Target, 'software' | 'cloud'> = {
    resource,
    key: ref,
    scope: 'organisation',
    limit: 'api',
    family: plural,
  };
  if (!ref) return { ...base, software: `${API_PREFIX}/${resource}`, cloud: forms };
  if ('id' in ref) {
    return {
      ...base,
      software: `${API_PREFIX}/${resource}/${encoded}`,
      cloud: forms.map((f) => `${f}/${encoded}`),
    };
  }
  // By name: the documented list with a CEL filter (the vendor CLI's `/v1/users/name/{name}` has no `/v0` twin).
  const filter = `name == ${celString(ref.name)}`;
  return {
    ...base,
    software: `${API_PREFIX}/${resource}/by-name/${encoded}`,
    cloud: forms.map((list) => ({ list, filter })),
  };
}

/**
 * Something below a target (its tags, a job's results): `sub` (segments already encoded) added to each path.
 * A 404 there is about the target's entity only where `change.key` says so.
 */
export function below(t: Target, sub: string, change: Partial<Pick<Target, 'limit' | 'key'>> = {}): Target {
  const key = 'key' in change ? change.key : undefined;
  return {
    ...t,
    ...change,
    key,
    software: t.software === undefined ? undefined : `${t.software}/${sub}`,
    cloud: t.cloud.map((p) => (typeof p === 'string' ? `${p}/${sub}` : p)),
  };
}

/**
 * A resource of the self-hosted API (`/api/v3/<rest>`), found on the hosted edition at the same place below a
 * project's root (or the organisation's `/v0`), unless it is one of the edition's gaps.
 */
export function v3(
  resource: Resource,
  rest: string,
  opts: { key?: Key; limit?: LimitClass; scope?: 'organisation' | 'project'; gap?: HostedGap } = {},
): Target {
  const scope = opts.scope ?? 'project';
  return {
    resource,
    key: opts.key,
    scope,
    limit: opts.limit ?? 'api',
    software: `${API_PREFIX}/${rest}`,
    cloud: opts.gap ? [] : [scope === 'organisation' ? `/v0/${rest}` : `/${rest}`],
    gap: opts.gap,
  };
}

/** A resource of the hosted edition only (projects, engines): `path` below the scope's root. */
export function hostedOnly(
  resource: Resource,
  path: string,
  scope: 'organisation' | 'project',
  key?: Key,
): Target {
  return { resource, key, scope, limit: 'api', cloud: [path] };
}

/** A path sent as written on either edition (the token endpoint, `dlake api`). */
export function literal(
  resource: Resource,
  path: string,
  scope: 'organisation' | 'auth' = 'organisation',
): Target {
  return { resource, scope, limit: 'api', software: path, cloud: [path] };
}
