// Editions and their roots (docs/api-facts.md §13.1): which edition a URL implies, and where a request's target
// (api/endpoint.ts) goes on each. The target carries its path per edition and its scope; this module adds the
// hosted edition's project root, and refuses, before anything is sent, what the edition in force does not have
// (on the hosted one: workload queues and their rules, the password login, server info).
import { API_PREFIX } from '../constants.js';
import { type HostedGap, UsageError } from '../errors.js';
import type { Target } from './endpoint.js';
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
const HOSTED_PREFIX = '/v0';

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
    hint: { kind: 'project-id' },
  });
}

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

/** The usage error of a request the hosted edition has no endpoint for (exit 2, nothing sent). */
function notOnHosted(gap: HostedGap | undefined): UsageError {
  if (!gap) return new UsageError('the hosted edition has no such endpoint');
  return new UsageError(`the hosted edition has no ${GAP_WORDS[gap]}`, {
    hint: { kind: 'not-on-hosted', gap },
  });
}

const GAP_WORDS: Record<HostedGap, string> = {
  queues: 'workload queues',
  'queue-rules': 'queue rules',
  'password-login': 'password login',
};

/** The usage error of a feature only the hosted edition has. */
export function hostedOnly(what: string): UsageError {
  return new UsageError(`${what} exist on the hosted edition only`, { hint: { kind: 'hosted-only' } });
}

/**
 * The paths to try for `target` on `root`'s edition, in turn (below the base URL): one, or on the hosted edition
 * the known forms of a resource with several, the documented one first. Refused before anything is sent where
 * the edition has no such endpoint.
 */
export function routeTarget(root: Root, target: Target): RoutedForm[] {
  if (target.scope === 'auth' || root.edition === 'software') {
    if (target.software === undefined) throw hostedOnly(RESOURCE_WORDS[target.resource] ?? target.resource);
    return [{ path: target.software }];
  }
  if (target.cloud.length === 0) throw notOnHosted(target.gap);
  const base = target.scope === 'organisation' ? '' : projectRoot(root);
  return target.cloud.map((f) =>
    typeof f === 'string' ? { path: base + f } : { path: base + f.list, filter: f.filter },
  );
}

/** A path to send a request to; with `filter`, a lookup in the list at `path` (api/endpoint.ts HostedForm). */
interface RoutedForm {
  path: string;
  filter?: string;
}

/** Names of the hosted edition's own resources, for the refusal on the self-hosted edition. */
const RESOURCE_WORDS: Partial<Record<Target['resource'], string>> = {
  project: 'projects',
  engine: 'engines',
  'engine-rules': 'engine rules',
};

/** `/v0/projects/{projectId}`: the root of a project's resources; a usage error without a project. */
function projectRoot(root: Root): string {
  if (!root.projectId) {
    throw new UsageError('the hosted edition needs a project for this command', {
      hint: { kind: 'needs-project' },
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
  if (root.edition === 'software') return `${API_PREFIX}/${path}`;
  const first = path.split(/[/?]/)[0]!;
  return ORGANISATION.has(first) ? `${HOSTED_PREFIX}/${path}` : `${projectRoot(root)}/${path}`;
}

/** What `dlake api` sends to the organisation's root rather than a project's (§13.1). */
const ORGANISATION = new Set(['user', 'users', 'role', 'roles', 'projects']);
