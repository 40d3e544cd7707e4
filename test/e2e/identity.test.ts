// Identity (docs/cli-contract.md "Identity"): the user shown comes from the credentials in force, a cached
// token is used only by the identity that obtained it, and the client-credentials refresh token renews.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_USERS } from 'dlake-emulator';
import { beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, ANALYST, expectFailure, SERVICE_USER, useFixture } from '../helpers/fixture.js';

const OTHER_SERVICE_USER = { name: 'svc-etl', clientId: 'etl-client', clientSecret: 'etl-client-secret-1' };

const fx = useFixture({ users: [...DEFAULT_USERS, OTHER_SERVICE_USER] }, { login: false });
// Each test starts with no profile and no stored token.
beforeEach(() => {
  for (const f of ['config.json', 'credentials.json']) writeFileSync(join(fx.configDir, f), '{}');
});

const writeJson = (file: string, value: unknown) =>
  writeFileSync(join(fx.configDir, file), JSON.stringify(value));

async function passwordLogin(user = ADMIN): Promise<void> {
  const r = await fx.run(['login', '-u', user.name, '--password-stdin'], { input: `${user.password}\n` });
  expect(r.code, r.stderr).toBe(0);
}

async function clientCredentials(user: { clientId: string; clientSecret: string } = SERVICE_USER) {
  const r = await fx.run(
    ['token', 'exchange', 'client-credentials', '--client-id', user.clientId, '--client-secret-stdin'],
    {
      input: user.clientSecret,
    },
  );
  expect(r.code, r.stderr).toBe(0);
  return r;
}

async function whoami(args: string[] = [], env?: Record<string, string>) {
  const r = await fx.run(['whoami', '-o', 'json', ...args], { env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, { value: string; source: string }>;
}

async function profileUser(): Promise<string | undefined> {
  const r = await fx.run(['profile', 'list', '-o', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as Array<{ name: string; user?: string }>).find((p) => p.name === 'default')
    ?.user;
}

const expireStoredToken = () => {
  const creds = fx.readJson('credentials.json');
  creds.tokens.default.expiresAt = new Date(Date.now() + 30_000).toISOString();
  writeJson('credentials.json', creds);
};

describe('the user shown comes from the credentials in force', () => {
  it('password login as A, then client credentials of B into the same profile: whoami, profile list and hints name B', async () => {
    await passwordLogin(ADMIN);
    expect((await whoami()).user?.value).toBe('admin');
    const r = await clientCredentials(SERVICE_USER);
    expect(r.stderr).toContain('Stored an access token for svc-ci in profile "default"');

    const who = await whoami();
    expect(who.user?.value).toBe('svc-ci');
    expect(who['client-id']?.value).toBe('ci-client');
    expect(await profileUser()).toBe('svc-ci');
    expect(fx.readJson('config.json').profiles.default).toMatchObject({
      authMethod: 'client-credentials',
      username: 'svc-ci',
      clientId: 'ci-client',
    });

    // The hint for an expired token points at B's means of renewal, not at A's password login.
    const creds = fx.readJson('credentials.json');
    delete creds.tokens.default.refreshToken;
    writeJson('credentials.json', creds);
    expireStoredToken();
    const expired = await fx.run(['catalog', 'ls']);
    expectFailure(expired, 3, 'expired');
    expect(expired.stderr).toContain('--client-id ci-client');
    expect(expired.stderr).not.toContain('-u admin');
  });

  it("password login as A, then `login --token-stdin` with B's PAT: whoami and profile list name B", async () => {
    await passwordLogin(ADMIN);
    const analyst = fx.emu.state.userByName(ANALYST.name)!;
    const pat = fx.emu.state.issueToken(analyst.id, 'pat', 86_400_000, { patId: 'p-id', label: 'id' }).token;
    const r = await fx.run(['login', '--token-stdin'], { input: pat });
    expect(r.code, r.stderr).toBe(0);
    expect((await whoami()).user?.value).toBe('analyst');
    expect(await profileUser()).toBe('analyst');
    expect(fx.readJson('config.json').profiles.default).toMatchObject({
      authMethod: 'pat',
      username: 'analyst',
    });
    expect(fx.readJson('config.json').profiles.default.clientId).toBeUndefined();
  });

  it('whoami --check shows who the service says you are (here DLAKE_TOKEN, whose owner nothing stored knows)', async () => {
    await passwordLogin(ADMIN);
    const analyst = fx.emu.state.userByName(ANALYST.name)!;
    const token = fx.emu.state.issueToken(analyst.id, 'pat', 86_400_000).token;
    const plain = await whoami([], { DLAKE_TOKEN: token });
    expect(plain.user).toBeUndefined();
    const checked = await whoami(['--check'], { DLAKE_TOKEN: token });
    expect(checked.user).toEqual({ value: 'analyst', source: 'service' });
    expect(checked.check?.value).toBe('ok, the service knows you as analyst');
  });

  it("profile list of a file from an older dlake names the token's client, not the first login's user", async () => {
    writeJson('config.json', {
      currentProfile: 'default',
      profiles: {
        default: {
          url: fx.emu.url,
          authMethod: 'client-credentials',
          username: 'admin',
          clientId: 'ci-client',
        },
      },
    });
    writeJson('credentials.json', {
      tokens: {
        default: {
          kind: 'bearer',
          token: 'x',
          expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
          obtainedVia: 'client-credentials',
          url: fx.emu.url,
        },
      },
    });
    expect(await profileUser()).toBe('ci-client');
  });
});

describe('a cached token is used only by the identity that obtained it', () => {
  const B = {
    DLAKE_CLIENT_ID: OTHER_SERVICE_USER.clientId,
    DLAKE_CLIENT_SECRET: OTHER_SERVICE_USER.clientSecret,
  };

  it("DLAKE_CLIENT_ID=B after an exchange for A: B's own token is obtained and used, never A's", async () => {
    await clientCredentials(SERVICE_USER);
    fx.emu.log.clear();
    const r = await fx.run(['catalog', 'ls', '-o', 'json'], { env: B });
    expect(r.code, r.stderr).toBe(0);
    expect(fx.emu.log.entries.map((e) => [e.method, e.path, e.clientId ?? e.user])).toEqual([
      ['POST', '/oauth/token', 'etl-client'],
      ['GET', '/api/v3/catalog', 'svc-etl'],
    ]);
    expect(fx.emu.log.entries.some((e) => e.user === 'svc-ci')).toBe(false);
  });

  it("DLAKE_CLIENT_ID=B without a secret: exit 3 and no request with A's token", async () => {
    await clientCredentials(SERVICE_USER);
    fx.emu.log.clear();
    const r = await fx.run(['catalog', 'ls'], { env: { DLAKE_CLIENT_ID: OTHER_SERVICE_USER.clientId } });
    expectFailure(r, 3, 'not logged in as client etl-client (DLAKE_CLIENT_ID)');
    expect(r.stderr).toContain('DLAKE_CLIENT_SECRET');
    expect(fx.emu.log.entries).toEqual([]);
  });

  it('DLAKE_CLIENT_ID=A (the same client) uses the cached token without a new exchange', async () => {
    await clientCredentials(SERVICE_USER);
    fx.emu.log.clear();
    const r = await fx.run(['catalog', 'ls'], {
      env: { DLAKE_CLIENT_ID: SERVICE_USER.clientId, DLAKE_CLIENT_SECRET: SERVICE_USER.clientSecret },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(fx.emu.log.entries.map((e) => `${e.method} ${e.path} ${e.user}`)).toEqual([
      'GET /api/v3/catalog svc-ci',
    ]);
  });

  it("DLAKE_CLIENT_ID set after a password login: the password session is not used as the client's", async () => {
    await passwordLogin(ADMIN);
    fx.emu.log.clear();
    const r = await fx.run(['catalog', 'ls'], { env: B });
    expect(r.code, r.stderr).toBe(0);
    expect(fx.emu.log.entries.map((e) => e.user ?? e.clientId)).toEqual(['etl-client', 'svc-etl']);
  });

  it('an older credentials.json (client id on the profile only) is still read and bound to that client', async () => {
    await clientCredentials(SERVICE_USER);
    const creds = fx.readJson('credentials.json');
    delete creds.tokens.default.clientId;
    delete creds.tokens.default.username;
    writeJson('credentials.json', creds);
    fx.emu.log.clear();
    const same = await fx.run(['catalog', 'ls'], { env: { DLAKE_CLIENT_ID: SERVICE_USER.clientId } });
    expect(same.code, same.stderr).toBe(0);
    expect(fx.emu.log.entries.map((e) => e.user)).toEqual(['svc-ci']);
    const other = await fx.run(['catalog', 'ls'], { env: { DLAKE_CLIENT_ID: OTHER_SERVICE_USER.clientId } });
    expectFailure(other, 3, 'not logged in as client etl-client');
  });
});

describe('the client-credentials refresh token', () => {
  it('renews an expired token without the client secret', async () => {
    await clientCredentials(SERVICE_USER);
    const before = fx.readJson('credentials.json').tokens.default;
    expect(before.refreshToken).toEqual(expect.any(String));
    expireStoredToken();
    fx.emu.log.clear();
    const r = await fx.run(['catalog', 'ls']);
    expect(r.code, r.stderr).toBe(0);
    expect(fx.emu.log.entries.map((e) => [e.path, e.grant ?? e.user])).toEqual([
      ['/oauth/token', 'refresh_token'],
      ['/api/v3/catalog', 'svc-ci'],
    ]);
    const after = fx.readJson('credentials.json').tokens.default;
    expect(after.token).not.toBe(before.token);
    expect(after).toMatchObject({
      clientId: 'ci-client',
      username: 'svc-ci',
      refreshToken: before.refreshToken,
    });
    expect(Date.parse(after.expiresAt)).toBeGreaterThan(Date.now() + 3_000_000);
  });

  it('renews after a 401 on a token believed valid', async () => {
    await clientCredentials(SERVICE_USER);
    // The service forgets the access token (not the refresh token).
    const token = fx.readJson('credentials.json').tokens.default.token;
    fx.emu.state.tokens.delete(token);
    fx.emu.log.clear();
    const r = await fx.run(['catalog', 'ls']);
    expect(r.code, r.stderr).toBe(0);
    expect(fx.emu.log.entries.map((e) => [e.path, e.status, e.grant ?? e.user ?? ''])).toEqual([
      ['/api/v3/catalog', 401, ''],
      ['/oauth/token', 200, 'refresh_token'],
      ['/api/v3/catalog', 200, 'svc-ci'],
    ]);
  });

  it('a refused refresh token falls back to exit 3 with the command to run', async () => {
    await clientCredentials(SERVICE_USER);
    const creds = fx.readJson('credentials.json');
    creds.tokens.default.refreshToken = 'revoked';
    writeJson('credentials.json', creds);
    expireStoredToken();
    const r = await fx.run(['catalog', 'ls']);
    expectFailure(r, 3, 'the stored token of profile "default" expired');
    expect(r.stderr).toContain('warning: could not renew with the stored refresh token');
    expect(r.stderr).toContain('dlake token exchange client-credentials --client-id ci-client');
  });

  it('a refused refresh token with client credentials at hand: a new exchange', async () => {
    await clientCredentials(SERVICE_USER);
    const creds = fx.readJson('credentials.json');
    creds.tokens.default.refreshToken = 'revoked';
    writeJson('credentials.json', creds);
    expireStoredToken();
    fx.emu.log.clear();
    const r = await fx.run(['catalog', 'ls'], {
      env: { DLAKE_CLIENT_ID: SERVICE_USER.clientId, DLAKE_CLIENT_SECRET: SERVICE_USER.clientSecret },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(fx.emu.log.entries.map((e) => e.grant ?? e.user)).toEqual([
      'refresh_token',
      'client_credentials',
      'svc-ci',
    ]);
  });
});
