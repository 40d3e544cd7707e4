// Authentication area: the legacy login (/apiv2/login), the token endpoint (/oauth/token), /api/v3/info.
// The guards the other areas use are in guards.ts.
import { randomBytes, randomUUID } from 'node:crypto';
import { importSPKI, type JWTPayload, jwtVerify } from 'jose';
import type { AreaContext } from './area.js';
import { requireAuth } from './guards.js';
import {
  ApiError,
  type EmuRequest,
  type EmuResponse,
  formBody,
  jsonBody,
  noContent,
  ok,
  omitUndefined,
} from './http.js';
import type { EmuState, EmuUser } from './state.js';

/** The server version the emulator reports (login response, /api/v3/info). */
export const EMULATOR_VERSION = '26.0.0-emulator';

const HOUR_MS = 60 * 60 * 1000;
const SESSION_LIFETIME_MS = 30 * HOUR_MS;
const ACCESS_TOKEN_LIFETIME_S = 3600;
const REFRESH_TOKEN_LIFETIME_MS = 30 * 24 * HOUR_MS;

const GRANT_TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const TOKEN_TYPE_JWT = 'urn:ietf:params:oauth:token-type:jwt';
const TOKEN_TYPE_PAT = 'urn:ietf:params:oauth:token-type:service:personal-access-token';
const TOKEN_TYPE_ACCESS = 'urn:ietf:params:oauth:token-type:access_token';
const SCOPE = 'service.all';
const OFFLINE_SCOPE = 'offline_access';
/** `//<host>/organizations/<org>/clients/<client_id>/credentials/<credential_id>` (spec, token endpoint). */
const AUDIENCE_RE = /^\/\/[^/]+\/organizations\/[^/]+\/clients\/([^/]+)\/credentials\/[^/]+$/;

export function registerAuth(area: AreaContext): void {
  const { router, state, options } = area;
  const cluster = { id: randomUUID(), createdAt: state.now() };

  router.post('/apiv2/login', (req) => login(req, state, cluster));
  // GET is the session check: `true` for a live token of any kind, else the bare 401 (docs/api-facts.md
  // §2.2).
  router.get('/apiv2/login', (req) => {
    requireAuth(req);
    return ok(true);
  });
  // Logout ends the session the header names. PATs and OAuth tokens are not session tokens: sending one
  // here is accepted (204) but leaves it valid, as the token manager only knows sessions.
  router.delete('/apiv2/login', (req) => {
    const p = requireAuth(req);
    if (p.tokenKind === 'session') state.tokens.delete(p.token);
    return noContent();
  });

  router.get('/api/v3/info', (req) => {
    requireAuth(req);
    return ok(serverInfo(cluster.createdAt));
  });

  // The token endpoint is Enterprise-only (docs/api-facts.md §11): the community edition has no such
  // resource, so it is simply not registered and Jersey's `HTTP 404 Not Found` answers.
  if (options.edition !== 'community') {
    const oauth = new OAuthEndpoint(state, options.jwtPublicKeyPem);
    router.post('/oauth/token', (req) => oauth.handle(req));
  }
}

// ── Legacy login ────────────────────────────────────────────────────────────────────────────────────

/** Login failures carry `stackTrace: []`: they are built with the one-argument GenericErrorMessage. */
const loginError = (msg: string): ApiError => new ApiError(401, msg, { moreInfo: '', stackTrace: [] });

function login(req: EmuRequest, state: EmuState, cluster: { id: string; createdAt: number }): EmuResponse {
  const body = jsonBody<{ userName?: unknown; password?: unknown } | null>(req);
  const userName = typeof body?.userName === 'string' ? body.userName : '';
  const password = typeof body?.password === 'string' ? body.password : '';
  if (!userName || !password) throw loginError('user name or password cannot be null or empty');
  const user = state.userByName(userName);
  // Unknown, inactive, non-local and password-less (service) users all get the same message, as the
  // real SimpleUserService does; the name echoed is the one the caller sent.
  if (!user?.active || user.source !== 'local' || !user.password || user.password !== password) {
    throw loginError(`Login failed: Invalid username or password, user ${userName}`);
  }
  const issued = state.issueToken(user.id, 'session', SESSION_LIFETIME_MS);
  return ok(
    omitUndefined({
      token: issued.token,
      userName: user.name,
      firstName: user.firstName,
      lastName: user.lastName,
      expires: issued.expiresAt,
      email: user.email,
      userId: user.id,
      // OSS always says true here; the emulator reports the user's real role so the CLI can show it.
      admin: user.admin,
      clusterId: cluster.id,
      clusterCreatedAt: cluster.createdAt,
      version: EMULATOR_VERSION,
      permissions: permissionsOf(user),
      userCreatedAt: user.createdAt,
    }),
  );
}

/** Admins may do everything; other users get the harmless self-service permissions. */
function permissionsOf(user: EmuUser): Record<string, boolean> {
  const a = user.admin;
  return {
    canUploadProfiles: true,
    canDownloadProfiles: true,
    canEmailForSupport: a,
    canChatForSupport: a,
    canViewAllJobs: a,
    canCreateUser: a,
    canCreateRole: a,
    canCreateSource: a,
    canUploadFile: true,
    canManageNodeActivity: a,
    canManageEngines: a,
    canManageQueues: a,
    canManageEngineRouting: a,
    canManageSupportSettings: a,
    canConfigureSecurity: a,
    canRunDiagnostic: a,
  };
}

/**
 * `/api/v3/info` (docs/api-facts.md §3.2). `clusterType` is the string "null" that a standalone install (no
 * YARN or Kubernetes) reports; build and commit data are fixed so responses are reproducible.
 */
function serverInfo(startedAt: number): Record<string, unknown> {
  const built = new Date(startedAt - 24 * HOUR_MS).toISOString();
  return {
    version: EMULATOR_VERSION,
    buildTime: built,
    commit: { hash: '0000000emulator', builder: 'emulator@example.com', time: built },
    clusterType: 'null',
  };
}

// ── Token endpoint ──────────────────────────────────────────────────────────────────────────────────

/**
 * Token-endpoint failures. The real error body is unconfirmed (docs/api-facts.md §2.5); the emulator uses the
 * RFC 6749 §5.2 shape: 400 for malformed or unsupported requests, 401 for bad credentials or tokens.
 */
class OAuthError extends Error {
  constructor(
    readonly status: 400 | 401,
    readonly error: string,
    readonly description: string,
  ) {
    super(description);
  }
}

const badRequest = (error: string, description: string): OAuthError =>
  new OAuthError(400, error, description);
const invalidGrant = (description: string): OAuthError => new OAuthError(401, 'invalid_grant', description);

interface RefreshRecord {
  userId: string;
  /** The `client_id` a refresh request must repeat: the client id, or the user name of a password grant. */
  clientId: string;
  expiresAt: number;
}

interface Grant {
  user: EmuUser;
  lifetimeS: number;
  /** Client credentials and `offline_access` password grants also get a refresh token. */
  refreshClientId?: string;
}

class OAuthEndpoint {
  /** Refresh tokens live here, not in `state.tokens`, so they are never accepted as access tokens. */
  private readonly refreshTokens = new Map<string, RefreshRecord>();

  constructor(
    private readonly state: EmuState,
    private readonly jwtPublicKeyPem: string | undefined,
  ) {}

  async handle(req: EmuRequest): Promise<EmuResponse> {
    try {
      const form = formBody(req);
      const grant = await this.grant(form);
      return ok(this.issue(grant));
    } catch (err) {
      if (!(err instanceof OAuthError)) throw err;
      return { status: err.status, json: { error: err.error, error_description: err.description } };
    }
  }

  private async grant(form: URLSearchParams): Promise<Grant> {
    const grantType = form.get('grant_type');
    switch (grantType) {
      case null:
      case '':
        throw badRequest('invalid_request', 'Missing grant_type');
      case 'client_credentials':
        return this.clientCredentials(form);
      case 'password':
        return this.password(form);
      case 'refresh_token':
        return this.refresh(form);
      case GRANT_TOKEN_EXCHANGE:
        return this.exchange(form);
      default:
        throw badRequest('unsupported_grant_type', `Unsupported grant_type: ${grantType}`);
    }
  }

  private issue(g: Grant): Record<string, unknown> {
    const issued = this.state.issueToken(g.user.id, 'oauth', g.lifetimeS * 1000);
    const body: Record<string, unknown> = {
      access_token: issued.token,
      expires_in: g.lifetimeS,
      token_type: 'Bearer',
      issued_token_type: TOKEN_TYPE_ACCESS,
      scope: g.refreshClientId ? `${SCOPE} ${OFFLINE_SCOPE}` : SCOPE,
    };
    if (g.refreshClientId) {
      const refresh = randomBytes(32).toString('base64url');
      this.refreshTokens.set(refresh, {
        userId: g.user.id,
        clientId: g.refreshClientId,
        expiresAt: this.state.now() + REFRESH_TOKEN_LIFETIME_MS,
      });
      body.refresh_token = refresh;
    }
    return body;
  }

  private clientCredentials(form: URLSearchParams): Grant {
    const clientId = required(form, 'client_id');
    const secret = required(form, 'client_secret');
    requireScope(form);
    const user = [...this.state.users.values()].find((u) => u.clientId === clientId && u.active);
    if (!user?.clientSecret || user.clientSecret !== secret) {
      throw new OAuthError(401, 'invalid_client', 'Invalid client credentials');
    }
    return { user, lifetimeS: ACCESS_TOKEN_LIFETIME_S, refreshClientId: clientId };
  }

  /** The password grant of docs/api-facts.md §2.5: a refresh token only when `offline_access` is asked for.
   * */
  private password(form: URLSearchParams): Grant {
    const name = required(form, 'username');
    const password = required(form, 'password');
    const scopes = requireScope(form);
    const user = this.state.userByName(name);
    if (!user?.active || !user.password || user.password !== password) {
      throw invalidGrant('Invalid username or password');
    }
    const offline = scopes.includes(OFFLINE_SCOPE);
    return { user, lifetimeS: ACCESS_TOKEN_LIFETIME_S, refreshClientId: offline ? user.name : undefined };
  }

  /**
   * The refresh grant sends no scope (docs/api-facts.md §2.5 lists only client_id and refresh_token), so none
   * is required. The refresh token is not rotated: the response carries no new one and the old one stays
   * valid.
   */
  private refresh(form: URLSearchParams): Grant {
    const clientId = required(form, 'client_id');
    const token = required(form, 'refresh_token');
    const rec = this.refreshTokens.get(token);
    if (!rec || rec.expiresAt <= this.state.now() || rec.clientId !== clientId) {
      throw invalidGrant('Invalid or expired refresh token');
    }
    const user = this.state.users.get(rec.userId);
    if (!user?.active) throw invalidGrant('Invalid or expired refresh token');
    return { user, lifetimeS: ACCESS_TOKEN_LIFETIME_S };
  }

  private async exchange(form: URLSearchParams): Promise<Grant> {
    const subject = required(form, 'subject_token');
    const type = required(form, 'subject_token_type');
    requireScope(form);
    if (type === TOKEN_TYPE_PAT) return this.patExchange(subject);
    if (type === TOKEN_TYPE_JWT) return this.jwtExchange(subject, form.get('audience'));
    // Impersonation (`…:service:subject` with an actor token) is not emulated.
    throw badRequest('invalid_request', `Unsupported subject_token_type: ${type}`);
  }

  private patExchange(pat: string): Grant {
    const found = this.state.lookupToken(pat);
    if (found?.issued.kind !== 'pat') throw invalidGrant('Invalid or expired personal access token');
    return { user: found.user, lifetimeS: this.boundedLifetime(found.issued.expiresAt) };
  }

  /**
   * Verifies the JWT against the configured public key (RS256 or ES256, by the JWT header) and its `exp`,
   * on the emulator's clock. The user is chosen, first match wins, by: `sub` as a user name,
   * `preferred_username` as a user name, then `email` against users' e-mail addresses (all case-insensitive):
   * IdPs usually put an opaque id in `sub`, so the readable claims are fallbacks. With `audience`, the token
   * is for the service user owning the client id in the credential identifier, whatever the claims say (the
   * emulator keeps no per-credential issuer/subject settings).
   */
  private async jwtExchange(jwt: string, audience: string | null): Promise<Grant> {
    const pem = this.jwtPublicKeyPem;
    if (!pem) throw invalidGrant('No external token provider is configured');
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(jwt, (header) => importSPKI(pem, header.alg ?? ''), {
        algorithms: ['RS256', 'ES256'],
        requiredClaims: ['exp'],
        currentDate: new Date(this.state.now()),
      }));
    } catch (e) {
      throw invalidGrant(`Invalid JWT: ${(e as Error).message}`);
    }
    const user = audience ? this.serviceUserFor(audience) : this.userForClaims(payload);
    return { user, lifetimeS: this.boundedLifetime((payload.exp ?? 0) * 1000) };
  }

  private serviceUserFor(audience: string): EmuUser {
    const clientId = AUDIENCE_RE.exec(audience)?.[1];
    if (!clientId) throw badRequest('invalid_request', `Invalid audience: ${audience}`);
    const user = [...this.state.users.values()].find(
      (u) => u.identityType === 'SERVICE_USER' && u.clientId === clientId && u.active,
    );
    if (!user) throw invalidGrant(`No service user has the client id ${clientId}`);
    return user;
  }

  private userForClaims(p: JWTPayload): EmuUser {
    const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);
    const byName = (n: string | undefined) => (n ? this.state.userByName(n) : undefined);
    const email = str(p.email)?.toLowerCase();
    const user =
      byName(str(p.sub)) ??
      byName(str(p.preferred_username)) ??
      (email ? [...this.state.users.values()].find((u) => u.email?.toLowerCase() === email) : undefined);
    if (!user?.active) throw invalidGrant('The JWT does not identify a known user');
    return user;
  }

  /** Remaining lifetime of the subject token in whole seconds, at most one hour. */
  private boundedLifetime(expiresAt: number): number {
    const remaining = Math.floor((expiresAt - this.state.now()) / 1000);
    if (remaining <= 0) throw invalidGrant('The subject token has expired');
    return Math.min(remaining, ACCESS_TOKEN_LIFETIME_S);
  }
}

function required(form: URLSearchParams, name: string): string {
  const v = form.get(name);
  if (!v) throw badRequest('invalid_request', `Missing ${name}`);
  return v;
}

/** Every grant but refresh must ask for `service.all` (the spec lists it as required). */
function requireScope(form: URLSearchParams): string[] {
  const scopes = (form.get('scope') ?? '').split(/\s+/).filter(Boolean);
  if (!scopes.includes(SCOPE)) throw badRequest('invalid_scope', `scope must include ${SCOPE}`);
  return scopes;
}
