// The stored profiles as data: each as a row with its token's state (never the token) and whose credentials
// they are. `profile list`, `profile show` and the agents' `list_profiles` read them.
import { isExpired } from '../auth/expiry.js';
import type { Profile } from '../config/schema.js';
import { secretPlace } from '../config/secrets.js';
import type { Context } from '../context.js';
import { redactUrl } from '../util/redact.js';
import { sameServiceUrl } from '../util/url.js';

const URL_FIELDS = ['url', 'authUrl', 'flightUrl'] as const;

export interface ProfileRow extends Profile {
  name: string;
  current: boolean;
  token: string;
  /** Where the stored token's secrets are: the OS credential store or credentials.json. */
  storedIn?: 'keyring' | 'file';
  /** Who the stored token belongs to (its user, else its client id); the profile's user when none is stored. */
  user?: string;
}

/** Every stored profile as a row, the current one marked. */
export function profileRows(ctx: Context): ProfileRow[] {
  const { config, credentials } = ctx.snapshot();
  return Object.entries(config.profiles).map(([name, p]) => {
    const t = credentials.tokens[name];
    const token = !t
      ? 'none'
      : t.url && p.url && !sameServiceUrl(t.url, p.url)
        ? // `profile set --url` moved the profile: its token stays bound to the URL that issued it.
          `${t.kind} for ${redactUrl(t.url)} only`
        : isExpired(t.expiresAt)
          ? `${t.kind} (expired)`
          : `${t.kind} via ${t.obtainedVia}`;
    // The stored token says whose credentials these are; the profile's own fields may predate it (files
    // from an older dlake kept the first login's user there).
    const user = t
      ? (t.username ?? t.clientId ?? (t.obtainedVia === 'client-credentials' ? p.clientId : undefined))
      : p.username;
    // A hand-edited URL may carry a user name and password: shown masked (src/util/redact.ts).
    const urls = Object.fromEntries(
      URL_FIELDS.filter((f) => typeof p[f] === 'string').map((f) => [f, redactUrl(p[f] as string)]),
    );
    return {
      name,
      current: config.currentProfile === name,
      token,
      ...(t ? { storedIn: secretPlace(t) } : {}),
      ...p,
      ...urls,
      ...(user ? { user } : {}),
    };
  });
}
