// Turns the settings in force into a valid Authorization header: DLAKE_TOKEN; else the profile's stored
// token while it has more than 60 s left; else a renewal where the means are at hand (the stored
// client-credentials refresh token, client credentials from the environment, or a new exchange of the
// stored PAT); else exit 3 with the command to run.
//
// A stored token is used only by the identity that obtained it (docs/cli-contract.md "Identity"): for the URL it was
// issued for, and only while DLAKE_CLIENT_ID (and the profile's client id and user) are the ones it was
// obtained with. `DLAKE_CLIENT_ID=B` never runs as the A whose token is cached.
import type { ApiClient, AuthProvider } from '../api/http.js';
import { hostedLoginUrl, type Root } from '../api/roots.js';
import type { OAuthToken } from '../api/schemas/auth.js';
import type { Profile, StoredToken } from '../config/schema.js';
import type { RevealedToken } from '../config/secrets.js';
import type { ConfigStore, StoreSnapshot } from '../config/store.js';
import { SESSION_AUTH_PREFIX } from '../constants.js';
import { AuthError, LocalIOError, UsageError } from '../errors.js';
import { sameServiceUrl, tryNormalizeServiceUrl } from '../util/url.js';
import { expiryFromNow, isExpired } from './expiry.js';
import { pointProfileAt } from './place.js';
import type { ResolvedSettings } from './settings.js';

/** The edition and project of the settings in force. */
export function rootOf(settings: ResolvedSettings): Root {
  return { edition: settings.edition.value, projectId: settings.projectId?.value };
}

function headerFor(token: Pick<RevealedToken, 'kind' | 'token'>): string {
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
    if (settings.envToken) {
      this.current = `Bearer ${settings.envToken}`;
      return this.current;
    }
    const kept = this.kept();
    const stored = await this.revealed();
    if (stored && !isExpired(stored.expiresAt)) {
      this.current = headerFor(stored);
      // A token still in the file moves to the credential store the first time one answers.
      if (!kept?.keyring) await this.deps.store.migrateSecrets();
    } else if (!(await this.renew())) throw this.missingCredentials(kept);
    return this.current!;
  }

  /** The profile's stored token the identity in force may use, as the file describes it (its secrets aside). */
  private kept(): StoredToken | undefined {
    return usableToken(this.deps.snapshot, this.deps.settings, this.deps.url);
  }

  /** That token with its secrets (read from the credential store when they are there). */
  private async revealed(): Promise<RevealedToken | undefined> {
    const kept = this.kept();
    return kept && this.deps.store.reveal(this.deps.settings.profileName.value, kept);
  }

  /** Renews the token if the means are at hand. Never replaces DLAKE_TOKEN, which the user chose. */
  async renew(): Promise<boolean> {
    const { settings, client } = this.deps;
    if (settings.envToken || !client) return false;
    const stored = await this.revealed();
    const oauth = () => import('../api/oauth.js');
    // The refresh token first: it needs no secret, and it is the renewal the service hands out for this.
    const refreshClientId = stored && tokenClientId(stored, settings.profile);
    if (stored?.refreshToken && refreshClientId) {
      const { refreshTokenGrant } = await oauth();
      try {
        const t = await refreshTokenGrant(client, refreshClientId, stored.refreshToken);
        await this.save({
          ...tokenRecord(t, 'client-credentials'),
          clientId: refreshClientId,
          ...(stored.username ? { username: stored.username } : {}),
          // The service may or may not hand out a new refresh token; the old one stays valid if it does not.
          refreshToken: t.refresh_token ?? stored.refreshToken,
        });
        return true;
      } catch (err) {
        // A refused refresh token (expired after 30 days, revoked) leaves the other means, or exit 3.
        if (!(err instanceof AuthError) && !(err instanceof UsageError)) throw err;
        this.deps.notice?.(`could not renew with the stored refresh token: ${(err as Error).message}`);
      }
    }
    if (settings.envClientCredentials) {
      const { clientId, clientSecret } = settings.envClientCredentials;
      const { clientCredentialsGrant } = await oauth();
      const t = await clientCredentialsGrant(client, clientId, clientSecret);
      await this.save({ ...tokenRecord(t, 'client-credentials'), clientId });
      return true;
    }
    if (stored?.pat && !isExpired(stored.patExpiresAt)) {
      const { patExchange } = await oauth();
      const t = await patExchange(client, stored.pat);
      await this.save({
        ...tokenRecord(t, 'pat-exchange'),
        pat: stored.pat,
        patExpiresAt: stored.patExpiresAt,
        ...(stored.username ? { username: stored.username } : {}),
      });
      return true;
    }
    this.current = undefined;
    return false;
  }

  /**
   * Keeps a renewed token for later commands. A config folder that cannot be written does not stop this
   * command: the token is used for it alone, and a warning says why the next command must renew again.
   */
  private async save(record: RevealedToken): Promise<void> {
    const { store, settings, url, client } = this.deps;
    this.current = headerFor(record);
    try {
      const endpoints = { baseUrl: url, authUrl: client?.authUrl ?? url };
      this.deps.snapshot = await storeToken(
        store,
        settings.profileName.value,
        endpoints,
        record,
        { authMethod: record.obtainedVia },
        rootOf(settings),
      );
    } catch (err) {
      // A folder that cannot be written, or a credential store that failed: the command goes on.
      if (!(err instanceof UsageError) && !(err instanceof LocalIOError)) throw err;
      this.deps.notice?.(`the renewed token is used for this command only: ${err.message}`);
    }
  }

  private missingCredentials(stored: StoredToken | undefined): AuthError {
    const { settings } = this.deps;
    const name = settings.profileName.value;
    // The profile and a --url given on the command line: the command named logs in where this one went.
    const p =
      (settings.profileName.source === 'flag' || name !== 'default' ? ` -p ${name}` : '') +
      (settings.url?.source === 'flag' ? ` --url ${this.deps.url}` : '');
    const method = stored?.obtainedVia ?? settings.profile?.authMethod;
    const clientId = settings.envClientId ?? stored?.clientId ?? settings.profile?.clientId;
    const username = stored?.username ?? settings.profile?.username;
    const hint =
      method === 'client-credentials' || settings.envClientId
        ? `set DLAKE_CLIENT_ID and DLAKE_CLIENT_SECRET, or run \`dlake token exchange client-credentials${p} --client-id ${clientId ?? 'ID'} --client-secret-stdin\``
        : method === 'jwt'
          ? `run \`dlake token exchange jwt${p} --subject-token-file FILE\``
          : method === 'pat' || method === 'pat-exchange'
            ? `store a new token with \`dlake login${p} --token-stdin\``
            : `run \`dlake login${p}${username ? ` -u ${username}` : ''}\``;
    if (this.deps.snapshot.credentialsProblem) {
      // The problem itself was the warning just above: say it once.
      return new AuthError(`not logged in (profile "${name}"): the credentials file is not valid`, { hint });
    }
    if (stored) {
      return new AuthError(`the stored token of profile "${name}" expired at ${stored.expiresAt}`, { hint });
    }
    const other = this.deps.snapshot.credentials.tokens[name];
    const mismatch = other && identityMismatch(other, settings, this.deps.url);
    if (mismatch) return new AuthError(`not logged in ${mismatch} (profile "${name}")`, { hint });
    return new AuthError(`not logged in (profile "${name}")`, { hint });
  }
}

/**
 * The profile's stored token if the identity in force may use it: issued for this URL, and obtained with
 * the client id and user in force. Otherwise undefined (the token stays stored for its own identity's use).
 */
export function usableToken(
  snapshot: StoreSnapshot,
  settings: ResolvedSettings,
  url: string | undefined,
): StoredToken | undefined {
  const stored = snapshot.credentials.tokens[settings.profileName.value];
  return stored && !identityMismatch(stored, settings, url) ? stored : undefined;
}

/**
 * Why the identity in force may not use `stored`, as the end of "not logged in …" (`to URL`, `as client
 * B (DLAKE_CLIENT_ID)`), or undefined when it may.
 */
function identityMismatch(
  stored: StoredToken,
  settings: ResolvedSettings,
  url: string | undefined,
): string | undefined {
  // A token is only ever sent to the service it was issued for.
  if (stored.url && !(url && sameServiceUrl(stored.url, url))) return `to ${url ?? 'this URL'}`;
  // …and on the edition and hosted project it was issued for (docs/cli-contract.md "The hosted edition").
  const edition = settings.edition.value;
  if ((stored.edition ?? 'software') !== edition) return `on the ${edition} edition`;
  const project = settings.projectId?.value;
  if (edition === 'cloud' && stored.projectId !== project) return `to project ${project ?? '(none set)'}`;
  // Nor are its refresh token or PAT ever sent to another token endpoint than the one in force when it was
  // stored (docs/cli-contract.md "Identity"). A token stored before dlake recorded it was obtained with the
  // profile's auth URL, if any, else its service URL.
  if (stored.url && url) {
    const issuedBy = stored.authUrl ?? settings.profile?.authUrl ?? stored.url;
    // The hosted edition's default token endpoint is its login service (docs/api-facts.md §13.2).
    const hostedLogin = settings.edition.value === 'cloud' ? hostedLoginUrl(url) : undefined;
    const inForce = settings.authUrl?.value ?? hostedLogin ?? url;
    if (!sameServiceUrl(issuedBy, inForce)) {
      const from = settings.authUrl?.source === 'environment' ? ` (${settings.authUrl.name})` : '';
      return `with the token endpoint ${tryNormalizeServiceUrl(inForce)}${from}`;
    }
  }
  const obtainedWith = tokenClientId(stored, settings.profile);
  if (settings.envClientId !== undefined && settings.envClientId !== obtainedWith) {
    return `as client ${settings.envClientId} (DLAKE_CLIENT_ID)`;
  }
  const profile = settings.profile;
  if (profile?.clientId && obtainedWith && profile.clientId !== obtainedWith) {
    return `as client ${profile.clientId}`;
  }
  if (profile?.username && stored.username && profile.username !== stored.username) {
    return `as user ${profile.username}`;
  }
  return undefined;
}

/**
 * The client id a token was obtained with. Files written before dlake stored it on the token kept it on
 * the profile only, which is still right for a client-credentials token stored by that older dlake.
 */
export function tokenClientId(stored: StoredToken, profile: Profile | undefined): string | undefined {
  if (stored.clientId) return stored.clientId;
  return stored.obtainedVia === 'client-credentials' ? profile?.clientId : undefined;
}

export function tokenRecord(t: OAuthToken, obtainedVia: StoredToken['obtainedVia']): RevealedToken {
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
 * current profile when none is) if needed. The token remembers the URL it is valid for and the token endpoint
 * in force (its refresh token or PAT is never sent to another). The profile's identity (user, client id)
 * becomes the token's: what an earlier login stored never outlives it.
 *
 * With `relocate` (a login or exchange, which the user pointed somewhere), the profile is pointed at the URL,
 * token endpoint, edition and project in force (src/auth/place.ts); otherwise (a renewal) they are written
 * only into a profile that has none yet.
 */
export function storeToken(
  store: ConfigStore,
  name: string,
  endpoints: { baseUrl: string; authUrl: string },
  record: StoredToken,
  profilePatch: Partial<Profile> = {},
  root?: Root,
  opts: { relocate?: boolean } = {},
): Promise<StoreSnapshot> {
  const url = endpoints.baseUrl;
  // The hosted edition's tokens remember their edition and project, and so does the profile (login stores them).
  const scope =
    root?.edition === 'cloud' ? { edition: root.edition, projectId: root.projectId } : ({} as Partial<Root>);
  return store.update(
    (s) => {
      s.credentials.tokens[name] = { ...record, ...scope, url, authUrl: endpoints.authUrl };
      const { username: _u, clientId: _c, ...existing } = s.config.profiles[name] ?? {};
      const placed = opts.relocate
        ? pointProfileAt(existing, {
            url,
            authUrl: endpoints.authUrl,
            edition: root?.edition ?? 'software',
            projectId: root?.projectId,
          })
        : {
            ...existing,
            ...(existing.url ? {} : { url }),
            // As with the URL: a token endpoint given once (--auth-url) stays the profile's, so that the next
            // command, without the flag, is still logged in there.
            ...(existing.authUrl || sameServiceUrl(endpoints.authUrl, url)
              ? {}
              : { authUrl: endpoints.authUrl }),
            ...scope,
          };
      s.config.profiles[name] = {
        ...placed,
        ...(record.username ? { username: record.username } : {}),
        ...(record.clientId ? { clientId: record.clientId } : {}),
        ...profilePatch,
      };
      s.config.currentProfile ??= name;
    },
    { replaceCorruptCredentials: true },
  );
}
