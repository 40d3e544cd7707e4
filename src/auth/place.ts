// Where a profile points: its service URL, token endpoint, edition and hosted project. A login (or a token
// exchange, or `profile set`) given another place points the profile there and says so, as `gh auth login`,
// `kubectl config set-cluster` and `databricks configure` do (docs/cli-contract.md "Identity"). What the
// profile remembered about its old host goes with it: a credential goes only to the host that issued it.
import { defaultEdition, type Edition } from '../api/roots.js';
import type { Profile } from '../config/schema.js';
import { redactUrl } from '../util/redact.js';
import { sameServiceUrl } from '../util/url.js';

/** A profile's place, as a login or `profile set` gives it. */
interface Place {
  url: string;
  /** The token endpoint in force; the service URL itself when none is set apart. */
  authUrl?: string;
  edition: Edition;
  projectId?: string;
}

/**
 * Fields that belong to the host a profile pointed at, not to the profile: the token endpoint, the Flight
 * endpoint, and the forms of the hosted API (`routes`) or search (`searchForm`) found there.
 */
const HOST_BOUND = ['authUrl', 'flightUrl', 'routes', 'searchForm', 'searchFormUrl'] as const;

/** `profile` pointed at `place`; what it stored for another URL is dropped. */
export function pointProfileAt(profile: Profile | undefined, place: Place): Profile {
  const next: Profile = { ...profile, url: place.url };
  if (profile?.url && !sameServiceUrl(profile.url, place.url)) {
    for (const field of HOST_BOUND) delete (next as Record<string, unknown>)[field];
  }
  if (place.authUrl && !sameServiceUrl(place.authUrl, place.url)) next.authUrl = place.authUrl;
  else if (place.authUrl) delete next.authUrl;
  // The edition is stored when it is not the one the URL implies, and always with a project.
  delete next.edition;
  delete next.projectId;
  if (place.edition === 'cloud' || defaultEdition(place.url) !== place.edition) next.edition = place.edition;
  if (place.edition === 'cloud' && place.projectId) next.projectId = place.projectId;
  return next;
}

/** A profile's place in words: `http://h:9047` or `https://api.dremio.cloud (cloud, project P)`. */
function describePlace(p: Pick<Profile, 'url' | 'edition' | 'projectId'>): string {
  const edition = p.edition ?? defaultEdition(p.url);
  const url = p.url ? redactUrl(p.url) : '(no URL)';
  if (edition === 'software') return url;
  return `${url} (${edition} edition${p.projectId ? `, project ${p.projectId}` : ''})`;
}

/**
 * `now points at NEW; was OLD` when `before` pointed elsewhere than `after` (another URL, edition or project), else
 * undefined. The caller names the profile (`profile "NAME" now points at …`).
 */
export function describeMove(before: Profile | undefined, after: Profile): string | undefined {
  if (!before?.url) return undefined;
  const was = describePlace(before);
  const now = describePlace(after);
  return was === now ? undefined : `now points at ${now}; was ${was}`;
}
