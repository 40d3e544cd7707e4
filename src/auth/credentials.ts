// Turns the settings in force into a valid Authorization header: DLAKE_TOKEN; else the profile's stored
// token while it has more than 60 s left; else a renewal where the means are at hand (client credentials
// from the environment, or a new exchange of the stored PAT); else exit 3 with the command to run.
import type { ApiClient, AuthProvider } from '../api/http.js';
import type { OAuthToken } from '../api/schemas.js';
import type { Profile, StoredToken } from '../config/schema.js';
import type { ConfigStore, StoreSnapshot } from '../config/store.js';
import { SESSION_AUTH_PREFIX } from '../constants.js';
import { AuthError } from '../errors.js';
import { sameServiceUrl } from '../util/url.js';
import { expiryFromNow, isExpired } from './expiry.js';
import type { ResolvedSettings } from './settings.js';

function headerFor(token: Pick<StoredToken, 'kind' | 'token'>): string {
  return token.kind === 'session' ? `${SESSION_AUTH_PREFIX}${token.token}` : `Bearer ${token.token}`;
}

interface CredentialDeps {
  settings: ResolvedSettings;
  url: string;
  store: ConfigStore;
  snapshot: StoreSnapshot;
  /** Set after construction: the client and the provider need each other. */
  client?: ApiClient;
  notice?: (msg: string) => void;
}

export class CredentialProvider implements AuthProvider {
  private current?: string;

  constructor(private readonly deps: CredentialDeps) {}

  /** The client that renewals are sent through (it is also the client this provider serves). */
  attach(client: ApiClient): void {
    this.deps.client = client;
  }

  async header(): Promise<string> {
    if (this.current) return this.current;
    const { settings } = this.deps;
    const stored = this.storedToken();
    if (settings.envToken) this.current = `Bearer ${settings.envToken}`;
    else if (stored && !isExpired(stored.expiresAt)) this.current = headerFor(stored);
    else if (!(await this.renew())) throw this.missingCredentials(stored);
    return this.current!;
  }

  /** Renews the token if the means are at hand. Never replaces DLAKE_TOKEN, which the user chose. */
  async renew(): Promise<boolean> {
    const { settings, client } = this.deps;
    if (settings.envToken || !client) return false;
    const stored = this.storedToken();
    if (settings.envClientCredentials) {
      const { clientId, clientSecret } = settings.envClientCredentials;
      const { clientCredentialsGrant } = await import('../api/oauth.js');
      const t = await clientCredentialsGrant(client, clientId, clientSecret);
      await this.save(tokenRecord(t, 'client-credentials'), { authMethod: 'client-credentials', clientId });
      return true;
    }
    if (stored?.pat && !isExpired(stored.patExpiresAt)) {
      const { patExchange } = await import('../api/oauth.js');
      const t = await patExchange(client, stored.pat);
      await this.save({
        ...tokenRecord(t, 'pat-exchange'),
        pat: stored.pat,
        patExpiresAt: stored.patExpiresAt,
      });
      return true;
    }
    this.current = undefined;
    return false;
  }

  private storedToken(): StoredToken | undefined {
    const { snapshot, settings, url } = this.deps;
    const stored = snapshot.credentials.tokens[settings.profileName.value];
    // A token is only ever sent to the service it was issued for.
    if (stored?.url && !sameServiceUrl(stored.url, url)) return undefined;
    return stored;
  }

  private async save(record: StoredToken, profilePatch: Partial<Profile> = {}): Promise<void> {
    const { store, settings, url } = this.deps;
    this.current = headerFor(record);
    this.deps.snapshot = await storeToken(store, settings.profileName.value, url, record, profilePatch);
  }

  private missingCredentials(stored: StoredToken | undefined): AuthError {
    const { settings } = this.deps;
    const name = settings.profileName.value;
    const p = settings.profileName.source === 'flag' || name !== 'default' ? ` -p ${name}` : '';
    const method = stored?.obtainedVia ?? settings.profile?.authMethod;
    const hint =
      method === 'client-credentials'
        ? `set DLAKE_CLIENT_ID and DLAKE_CLIENT_SECRET, or run \`dlake token exchange client-credentials${p} --client-id ${settings.profile?.clientId ?? 'ID'} --client-secret-stdin\``
        : method === 'jwt'
          ? `run \`dlake token exchange jwt${p} --subject-token-file FILE\``
          : method === 'pat' || method === 'pat-exchange'
            ? `store a new token with \`dlake login${p} --token-stdin\``
            : `run \`dlake login${p}${settings.profile?.username ? ` -u ${settings.profile.username}` : ''}\``;
    if (this.deps.snapshot.credentialsProblem) {
      // The problem itself was the warning just above: say it once.
      return new AuthError(`not logged in (profile "${name}"): the credentials file is not valid`, { hint });
    }
    if (stored) {
      return new AuthError(`the stored token of profile "${name}" expired at ${stored.expiresAt}`, { hint });
    }
    return new AuthError(`not logged in (profile "${name}")`, { hint });
  }
}

export function tokenRecord(t: OAuthToken, obtainedVia: StoredToken['obtainedVia']): StoredToken {
  return {
    kind: 'bearer',
    token: t.access_token,
    expiresAt: expiryFromNow(t.expires_in * 1000),
    obtainedVia,
    ...(t.refresh_token ? { refreshToken: t.refresh_token } : {}),
  };
}

/**
 * Stores a token for a profile and merges `profilePatch` into the profile, creating it (and making it the
 * current profile when none is) if needed. The token remembers the URL it is valid for.
 */
export function storeToken(
  store: ConfigStore,
  name: string,
  url: string,
  record: StoredToken,
  profilePatch: Partial<Profile> = {},
): Promise<StoreSnapshot> {
  return store.update(
    (s) => {
      s.credentials.tokens[name] = { ...record, url };
      const existing = s.config.profiles[name];
      s.config.profiles[name] = { ...existing, ...(existing?.url ? {} : { url }), ...profilePatch };
      s.config.currentProfile ??= name;
    },
    { replaceCorruptCredentials: true },
  );
}
