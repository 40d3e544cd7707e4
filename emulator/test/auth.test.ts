// The emulator's authentication area: legacy login, header forms, the token endpoint's grants, /api/v3/info.
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../src/server.js';
import { call } from './call.js';

const HOUR_MS = 3_600_000;
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_TYPE = 'urn:ietf:params:oauth:token-type:jwt';
const PAT_TYPE = 'urn:ietf:params:oauth:token-type:service:personal-access-token';

const login = (emu: Emulator, userName: string, password: string) =>
  call(emu, 'POST', '/apiv2/login', { json: { userName, password } });

async function sessionToken(emu: Emulator, user = 'admin', password = 'admin-pass-1'): Promise<string> {
  const r = await login(emu, user, password);
  expect(r.status).toBe(200);
  return r.json.token;
}

const tokenRequest = (emu: Emulator, form: Record<string, string>) =>
  call(emu, 'POST', '/oauth/token', { form });

/** The user the last /api/v3/info call authenticated as, from the request log. */
async function whoIs(emu: Emulator, auth: string): Promise<string | undefined> {
  const r = await call(emu, 'GET', '/api/v3/info', { auth });
  expect(r.status).toBe(200);
  return emu.log.find('GET', '/api/v3/info').at(-1)?.user;
}

let emu: Emulator;
type Key = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
let privateKey: Key;
let otherKey: Key;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  privateKey = pair.privateKey;
  otherKey = (await generateKeyPair('RS256')).privateKey;
  emu = await startEmulator({ jwtPublicKeyPem: await exportSPKI(pair.publicKey) });
});
afterAll(async () => {
  await emu.close();
});
afterEach(() => {
  emu.state.clockOffsetMs = 0;
});

function jwt(claims: Record<string, unknown>, expiresInS: number, key = privateKey, alg = 'RS256') {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg })
    .setIssuedAt(now)
    .setExpirationTime(now + expiresInS)
    .sign(key);
}

describe('legacy login', () => {
  it('returns the login response with a 30-hour session token', async () => {
    const before = Date.now();
    const r = await login(emu, 'admin', 'admin-pass-1');
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      userName: 'admin',
      firstName: 'Ada',
      lastName: 'Admin',
      email: 'admin@example.com',
      admin: true,
      userId: emu.state.userByName('admin')!.id,
    });
    for (const f of ['clusterCreatedAt', 'userCreatedAt', 'expires']) expect(typeof r.json[f]).toBe('number');
    expect(r.json.expires).toBeGreaterThanOrEqual(before + 30 * HOUR_MS);
    expect(r.json.expires).toBeLessThanOrEqual(Date.now() + 30 * HOUR_MS);
    expect(r.json.permissions.canCreateUser).toBe(true);
    expect(typeof r.json.version).toBe('string');
    expect(typeof r.json.clusterId).toBe('string');
  });

  it('marks non-admins and withholds admin permissions', async () => {
    const r = await login(emu, 'ANALYST', 'analyst-pass-1');
    expect(r.status).toBe(200);
    expect(r.json.userName).toBe('analyst');
    expect(r.json.admin).toBe(false);
    expect(r.json.permissions.canCreateUser).toBe(false);
  });

  it('refuses bad credentials with the service 401 body', async () => {
    const r = await login(emu, 'admin', 'wrong');
    expect(r.status).toBe(401);
    expect(r.json).toEqual({
      errorMessage: 'Login failed: Invalid username or password, user admin',
      moreInfo: '',
      stackTrace: [],
    });
    expect((await login(emu, 'nobody', 'x')).json.errorMessage).toBe(
      'Login failed: Invalid username or password, user nobody',
    );
  });

  it('refuses empty fields and service users', async () => {
    const empty = await call(emu, 'POST', '/apiv2/login', { json: { userName: 'admin' } });
    expect(empty.status).toBe(401);
    expect(empty.json.errorMessage).toBe('user name or password cannot be null or empty');
    expect((await login(emu, 'svc-ci', 'ci-client-secret-1')).status).toBe(401);
  });

  it('checks and ends a session', async () => {
    const token = await sessionToken(emu);
    const check = await call(emu, 'GET', '/apiv2/login', { auth: `_service${token}` });
    expect(check.status).toBe(200);
    expect(check.json).toBe(true);
    expect((await call(emu, 'DELETE', '/apiv2/login', { auth: `_service${token}` })).status).toBe(204);
    const after = await call(emu, 'GET', '/apiv2/login', { auth: `_service${token}` });
    expect(after.status).toBe(401);
    expect(after.text).toBe('');
  });
});

describe('header forms and /api/v3/info', () => {
  it('accepts _service<token>, _service <token> and Bearer <token>', async () => {
    const token = await sessionToken(emu);
    for (const auth of [`_service${token}`, `_service ${token}`, `Bearer ${token}`, `bearer ${token}`]) {
      const r = await call(emu, 'GET', '/api/v3/info', { auth });
      expect(r.status, auth.slice(0, 9)).toBe(200);
      expect(r.json).toMatchObject({ version: expect.any(String), commit: { hash: expect.any(String) } });
    }
    const schemes = emu.log.find('GET', '/api/v3/info').map((e) => e.authScheme);
    expect(schemes).toContain('_service');
    expect(schemes).toContain('Bearer');
  });

  it('answers an empty 401 without or with a bad token', async () => {
    for (const auth of [undefined, 'Bearer nope', '_servicenope']) {
      const r = await call(emu, 'GET', '/api/v3/info', { auth });
      expect(r.status).toBe(401);
      expect(r.text).toBe('');
    }
  });

  it('expires session tokens after 30 hours', async () => {
    const token = await sessionToken(emu);
    emu.state.clockOffsetMs = 30 * HOUR_MS - 60_000;
    expect((await call(emu, 'GET', '/api/v3/info', { auth: `_service${token}` })).status).toBe(200);
    emu.state.clockOffsetMs = 30 * HOUR_MS + 1000;
    expect((await call(emu, 'GET', '/api/v3/info', { auth: `_service${token}` })).status).toBe(401);
  });
});

describe('token endpoint: client credentials and refresh', () => {
  const cc = {
    grant_type: 'client_credentials',
    client_id: 'ci-client',
    client_secret: 'ci-client-secret-1',
  };

  it('issues a one-hour token and a refresh token to a service user', async () => {
    const r = await tokenRequest(emu, { ...cc, scope: 'service.all' });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      expires_in: 3600,
      token_type: 'Bearer',
      issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      scope: 'service.all offline_access',
      refresh_token: expect.any(String),
    });
    expect(await whoIs(emu, `Bearer ${r.json.access_token}`)).toBe('svc-ci');
    expect(emu.log.entries.at(-1)?.tokenKind).toBe('oauth');

    // The refresh token is not an access token, but it buys a new one.
    expect((await call(emu, 'GET', '/api/v3/info', { auth: `Bearer ${r.json.refresh_token}` })).status).toBe(
      401,
    );
    const refreshed = await tokenRequest(emu, {
      grant_type: 'refresh_token',
      client_id: 'ci-client',
      refresh_token: r.json.refresh_token,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.json.expires_in).toBe(3600);
    expect(await whoIs(emu, `Bearer ${refreshed.json.access_token}`)).toBe('svc-ci');
  });

  it('rejects refresh tokens after 30 days or for another client', async () => {
    const r = await tokenRequest(emu, { ...cc, scope: 'service.all' });
    const bad = await tokenRequest(emu, {
      grant_type: 'refresh_token',
      client_id: 'other',
      refresh_token: r.json.refresh_token,
    });
    expect(bad.status).toBe(401);
    expect(bad.json.error).toBe('invalid_grant');
    emu.state.clockOffsetMs = 30 * 24 * HOUR_MS + 1000;
    const late = await tokenRequest(emu, {
      grant_type: 'refresh_token',
      client_id: 'ci-client',
      refresh_token: r.json.refresh_token,
    });
    expect(late.status).toBe(401);
  });

  it('answers RFC 6749 errors', async () => {
    const wrong = await tokenRequest(emu, { ...cc, client_secret: 'nope', scope: 'service.all' });
    expect(wrong.status).toBe(401);
    expect(wrong.json).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    const noScope = await tokenRequest(emu, cc);
    expect(noScope.status).toBe(400);
    expect(noScope.json.error).toBe('invalid_scope');
    const unknown = await tokenRequest(emu, { grant_type: 'magic', scope: 'service.all' });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toBe('unsupported_grant_type');
    const missing = await tokenRequest(emu, { grant_type: 'client_credentials', scope: 'service.all' });
    expect(missing.status).toBe(400);
    expect(missing.json.error).toBe('invalid_request');
  });
});

describe('token endpoint: JWT exchange', () => {
  const exchange = (subject: string, extra: Record<string, string> = {}) =>
    tokenRequest(emu, {
      grant_type: EXCHANGE,
      subject_token: subject,
      subject_token_type: JWT_TYPE,
      scope: 'service.all',
      ...extra,
    });

  it('caps the lifetime at one hour and maps sub to a user', async () => {
    const r = await exchange(await jwt({ sub: 'analyst' }, 2 * 3600));
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ expires_in: 3600, scope: 'service.all', token_type: 'Bearer' });
    expect(r.json.refresh_token).toBeUndefined();
    expect(await whoIs(emu, `Bearer ${r.json.access_token}`)).toBe('analyst');
  });

  it('gives the JWT remaining lifetime when shorter', async () => {
    const r = await exchange(await jwt({ sub: 'analyst' }, 600));
    expect(r.status).toBe(200);
    expect(r.json.expires_in).toBeGreaterThan(590);
    expect(r.json.expires_in).toBeLessThanOrEqual(600);
  });

  it('falls back to the email claim', async () => {
    const r = await exchange(await jwt({ sub: 'opaque-id-123', email: 'Admin@Example.com' }, 600));
    expect(r.status).toBe(200);
    expect(await whoIs(emu, `Bearer ${r.json.access_token}`)).toBe('admin');
  });

  it('rejects expired, foreign-signed and unknown-user JWTs', async () => {
    const expired = await exchange(await jwt({ sub: 'analyst' }, -60));
    expect(expired.status).toBe(401);
    expect(expired.json.error).toBe('invalid_grant');
    expect((await exchange(await jwt({ sub: 'analyst' }, 600, otherKey))).status).toBe(401);
    expect((await exchange(await jwt({ sub: 'stranger' }, 600))).status).toBe(401);
    expect((await exchange('not.a.jwt')).status).toBe(401);
  });

  it('issues a token for the service user named by the audience', async () => {
    const audience = '//login.example.com/organizations/org-1/clients/ci-client/credentials/cred-1';
    const r = await exchange(await jwt({ sub: 'github-actions' }, 1200), { audience });
    expect(r.status).toBe(200);
    expect(r.json.expires_in).toBeLessThanOrEqual(1200);
    expect(await whoIs(emu, `Bearer ${r.json.access_token}`)).toBe('svc-ci');
    const otherClient = audience.replace('ci-client', 'nobody');
    expect((await exchange(await jwt({ sub: 'x' }, 600), { audience: otherClient })).status).toBe(401);
    expect((await exchange(await jwt({ sub: 'x' }, 600), { audience: 'ci-client' })).status).toBe(400);
  });

  it('verifies ES256 keys too', async () => {
    const pair = await generateKeyPair('ES256');
    const es = await startEmulator({ jwtPublicKeyPem: await exportSPKI(pair.publicKey) });
    try {
      const token = await jwt({ sub: 'admin' }, 300, pair.privateKey, 'ES256');
      const r = await tokenRequest(es, {
        grant_type: EXCHANGE,
        subject_token: token,
        subject_token_type: JWT_TYPE,
        scope: 'service.all',
      });
      expect(r.status).toBe(200);
      expect(r.json.expires_in).toBeLessThanOrEqual(300);
    } finally {
      await es.close();
    }
  });
});

describe('token endpoint: PAT exchange', () => {
  async function makePat(ms: number): Promise<string> {
    const admin = emu.state.userByName('admin')!;
    const token = await sessionToken(emu);
    const r = await call(emu, 'POST', `/api/v3/user/${admin.id}/token`, {
      auth: `_service${token}`,
      json: { label: 'exchange', millisecondsToExpire: ms },
    });
    expect(r.status).toBe(200);
    return r.text;
  }
  const exchange = (pat: string) =>
    tokenRequest(emu, {
      grant_type: EXCHANGE,
      subject_token: pat,
      subject_token_type: PAT_TYPE,
      scope: 'service.all',
    });

  it('bounds the lifetime by the PAT', async () => {
    const short = await exchange(await makePat(5 * 60_000));
    expect(short.status).toBe(200);
    expect(short.json.expires_in).toBeGreaterThan(290);
    expect(short.json.expires_in).toBeLessThanOrEqual(300);
    const long = await exchange(await makePat(30 * 24 * HOUR_MS));
    expect(long.json.expires_in).toBe(3600);
    expect(await whoIs(emu, `Bearer ${long.json.access_token}`)).toBe('admin');
  });

  it('refuses unknown PATs and session tokens', async () => {
    expect((await exchange('no-such-pat')).status).toBe(401);
    expect((await exchange(await sessionToken(emu))).status).toBe(401);
  });
});

describe('community edition', () => {
  it('has no token endpoint', async () => {
    const community = await startEmulator({ edition: 'community' });
    try {
      const r = await tokenRequest(community, {
        grant_type: 'client_credentials',
        client_id: 'ci-client',
        client_secret: 'ci-client-secret-1',
        scope: 'service.all',
      });
      expect(r.status).toBe(404);
      expect(r.json).toEqual({ errorMessage: 'HTTP 404 Not Found', moreInfo: '' });
      expect((await login(community, 'admin', 'admin-pass-1')).status).toBe(200);
    } finally {
      await community.close();
    }
  });
});
