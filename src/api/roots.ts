// The one place that knows under which root each resource lives, per edition (docs/api-facts.md §13.1).
//
// The API modules speak the self-hosted paths (`/api/v3/catalog/…`); the HTTP client hands every path through
// `routeFor(root)` before it builds a URL. On the self-hosted edition that changes nothing. On the hosted edition
// a project's resources move below `/v0/projects/{projectId}/`, the organisation's below `/v0/`, and what that
// edition does not have (workload queues and their rules, the legacy login, server info) is a usage error
// naming it, raised before anything is sent.
import { API_PREFIX, LOGIN_PATH } from '../constants.js';
import { UsageError } from '../errors.js';
import { segment } from './url-segment.js';

const EDITIONS = ['software', 'cloud'] as const;
export type Edition = (typeof EDITIONS)[number];

/** The hosted edition's published API hosts, and their login services (§13.1, §13.2). */
const HOSTED_LOGIN: Record<string, string> = {
  'api.dremio.cloud': 'https://login.dremio.cloud',
  // The EU login host is not on the page (§13.2 "unconfirmed"): the US one's pattern.
  'api.eu.dremio.cloud': 'https://login.eu.dremio.cloud',
};

/** The hosted edition's root for organisation resources. */
export const HOSTED_PREFIX = '/v0';

export interface Root {
  edition: Edition;
  /** The hosted edition's project (a UUID); unused on the self-hosted edition. */
  projectId?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The edition a URL implies when none is set: hosted for its published hosts, else self-hosted. */
export function defaultEdition(url: string | undefined): Edition {
  if (!url) return 'software';
  try {
    return new URL(url).hostname.toLowerCase() in HOSTED_LOGIN ? 'cloud' : 'software';
  } catch {
    return 'software';
  }
}

/** The login service of a published hosted host (the default auth URL there), else undefined. */
export function hostedLoginUrl(url: string): string | undefined {
  try {
    return HOSTED_LOGIN[new URL(url).hostname.toLowerCase()];
  } catch {
    return undefined;
  }
}

/** Checks `--edition` / `DLAKE_EDITION` / the profile's value; `where` names it in the error. */
export function parseEdition(value: string, where: string): Edition {
  const v = value.toLowerCase();
  if ((EDITIONS as readonly string[]).includes(v)) return v as Edition;
  throw new UsageError(`unknown edition "${value}" (${where})`, {
    hint: `use one of: ${EDITIONS.join(', ')}`,
  });
}

/** Checks `--project-id` / `DLAKE_PROJECT_ID`: a UUID, since it becomes a URL segment. */
export function parseProjectId(value: string, where: string): string {
  if (UUID.test(value)) return value.toLowerCase();
  throw new UsageError(`the project id "${value}" (${where}) is not a UUID`, {
    hint: "copy it from the project's settings, or list them with `dlake project list`",
  });
}

/** What the hosted edition lacks, by self-hosted path prefix, and what to use there instead. */
const NOT_HOSTED: Array<{ prefix: string; what: string; instead?: string }> = [
  { prefix: `${API_PREFIX}/wlm/queue`, what: 'workload queues', instead: 'use `dlake engine`' },
  { prefix: `${API_PREFIX}/wlm/rule`, what: 'queue rules', instead: 'use `dlake engine rules`' },
  { prefix: `${API_PREFIX}/wlm`, what: 'workload management', instead: 'use `dlake engine`' },
  {
    prefix: LOGIN_PATH,
    what: 'the password login',
    instead: 'log in with a PAT: `dlake login --token-stdin`',
  },
  { prefix: `${API_PREFIX}/info`, what: 'the server information endpoint' },
];

/**
 * Source types of file systems that live beside a self-hosted cluster (a NAS mount, HDFS): the hosted edition,
 * which runs in the vendor's cloud, has none (docs/api-facts.md §13.5, inferred).
 */
const NOT_HOSTED_SOURCE_TYPES = new Set(['NAS', 'HDFS']);

/** Why a source of `type` is not carried over to the hosted edition, or undefined when it is. */
export function notCarriedSourceType(type: unknown): string | undefined {
  return typeof type === 'string' && NOT_HOSTED_SOURCE_TYPES.has(type.toUpperCase())
    ? `the hosted edition has no ${type.toUpperCase()} sources`
    : undefined;
}

/** Resources of the organisation rather than of a project (§13.1). */
const ORGANISATION = new Set(['user', 'role', 'projects']);

/** The usage error of a feature the hosted edition does not have (exit 2, nothing sent). */
function notOnHosted(what: string, instead?: string): UsageError {
  return new UsageError(`the hosted edition (--edition cloud) has no ${what}`, { hint: instead });
}

/** The usage error of a feature only the hosted edition has. */
export function hostedOnly(what: string): UsageError {
  return new UsageError(`${what} exist on the hosted edition only`, {
    hint: 'pass --edition cloud --project-id UUID (or log in to a hosted project)',
  });
}

/** Maps a self-hosted path to the root of `root`'s edition; other paths (already `/v0/…`) pass as written. */
export function routePath(root: Root, path: string): string {
  if (root.edition === 'software') return path;
  for (const n of NOT_HOSTED) {
    if (path === n.prefix || path.startsWith(`${n.prefix}/`)) throw notOnHosted(n.what, n.instead);
  }
  if (!path.startsWith(`${API_PREFIX}/`)) return path;
  const rest = path.slice(API_PREFIX.length + 1);
  const first = rest.split('/')[0]!;
  if (ORGANISATION.has(first)) return `${HOSTED_PREFIX}/${rest}`;
  return `${projectRoot(root)}/${rest}`;
}

/** `/v0/projects/{projectId}`: the root of a project's resources; a usage error without a project. */
export function projectRoot(root: Root): string {
  if (!root.projectId) {
    throw new UsageError('the hosted edition needs a project for this command', {
      hint: 'pass --project-id UUID, set DLAKE_PROJECT_ID, or store one with `dlake login --project-id UUID`',
    });
  }
  return `${HOSTED_PREFIX}/projects/${segment(root.projectId, 'project id')}`;
}

/**
 * `dlake api`'s relative paths: below the project root on the hosted edition (`catalog` →
 * `/v0/projects/{id}/catalog`; `user` stays at the organisation), below `/api/v3` on the self-hosted one.
 * Absolute paths are sent as written.
 */
export function relativeApiPath(root: Root, path: string): string {
  if (path.startsWith('/')) return path;
  return routePath(root, `${API_PREFIX}/${path}`);
}
