// Password and PAT login, logout, whoami and the stored-token paths, against the emulator.
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, expectFailure, useFixture } from '../helpers/fixture.js';

// The authentication tests run twice: against the full emulator, and against one that serves only the spec's
// endpoints (nothing dlake does to log in or check credentials may depend on an endpoint outside the spec).
describe.each([
  { mode: 'full emulator', strictSpec: false },
  { mode: '--strict-spec', strictSpec: true },
])('$mode', ({ strictSpec }) => {
  const fx = useFixture({ strictSpec }, { login: false });
  beforeEach(async () => {
    // Each test starts logged out, with no profiles.
    await fx.run(['profile', 'delete', 'default', '-y']).catch(() => {});
    for (const f of ['config.json', 'credentials.json']) writeFileSync(join(fx.configDir, f), '{}');
    fx.emu.log.clear();
  });

  const lastApiCall = () => fx.emu.log.entries.filter((e) => e.path.startsWith('/api/v3')).at(-1);

  describe('dlake login (password)', () => {
    it('stores a session token and uses it as `_service<token>`', async () => {
      const r = await fx.login();
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/Logged in to http:\/\/127\.0\.0\.1:\d+ as admin \(profile "default"\)/);
      const creds = fx.readJson('credentials.json');
      expect(creds.tokens.default).toMatchObject({
        kind: 'session',
        obtainedVia: 'password',
        username: 'admin',
      });
      const hoursLeft = (Date.parse(creds.tokens.default.expiresAt) - Date.now()) / 3_600_000;
      expect(hoursLeft).toBeGreaterThan(29.9);
      expect(hoursLeft).toBeLessThanOrEqual(30);
      expect(fx.readJson('config.json')).toMatchObject({
        currentProfile: 'default',
        profiles: { default: { url: fx.emu.url, authMethod: 'password', username: 'admin' } },
      });

      const api = await fx.run(['api', 'GET', '/api/v3/catalog', '--url', fx.emu.url]);
      expect(api.code).toBe(0);
      expect(JSON.parse(api.stdout)).toHaveProperty('data');
      expect(lastApiCall()).toMatchObject({
        authScheme: '_service',
        user: 'admin',
        tokenKind: 'session',
        status: 200,
      });
    });

    it('refuses a wrong password with exit 3 and stores nothing', async () => {
      const r = await fx.run(['login', '-u', 'admin', '--password-stdin'], { input: 'wrong\n' });
      expectFailure(r, 3, 'Login failed: Invalid username or password');
      // Not "log in again": the name or the password is what to check.
      expect(r.stderr).toContain('hint: check the user name (admin) and the password');
      expect(r.stderr).not.toContain('log in again');
      expect(fx.readJson('credentials.json')).toEqual({});
    });

    it('refuses a password on the command line without echoing it (exit 2)', async () => {
      const r = await fx.run(['login', '-u', 'admin', '--password', 'hunter2-on-argv']);
      expectFailure(r, 2, '--password is not accepted');
      expect(r.stderr).not.toContain('hunter2-on-argv');
      expect(r.stderr).toMatch(/hint: use --password-stdin/);
    });

    it('refuses to prompt without a terminal and says how to pipe the password', async () => {
      const r = await fx.run(['login', '-u', 'admin']);
      expectFailure(r, 2, 'no password');
      expect(r.stderr).toContain('--password-stdin');
    });

    it('creates a named profile at login and keeps the file modes', async () => {
      const r = await fx.login(ADMIN, 'ops');
      expect(r.code).toBe(0);
      expect(fx.readJson('config.json').profiles.ops.url).toBe(fx.emu.url);
      expect(statSync(join(fx.configDir, 'credentials.json')).mode & 0o777).toBe(0o600);
      expect(statSync(join(fx.configDir, 'config.json')).mode & 0o777).toBe(0o600);
      expect(statSync(fx.configDir).mode & 0o777).toBe(0o700);
    });

    it('logout removes the token and ends the session on the service', async () => {
      await fx.login();
      const r = await fx.run(['logout']);
      expect(r.code).toBe(0);
      expect(fx.readJson('credentials.json').tokens).toEqual({});
      expect(fx.emu.log.find('DELETE', '/apiv2/login')).toHaveLength(1);
      const after = await fx.run(['api', 'GET', '/api/v3/catalog']);
      expectFailure(after, 3, 'not logged in');
    });
  });

  describe('dlake login --token-stdin (PAT)', () => {
    it('verifies the PAT with one call (which names its user), stores it, and sends it as Bearer', async () => {
      const admin = fx.emu.state.userByName('admin')!;
      const pat = fx.emu.state.issueToken(admin.id, 'pat', 86_400_000, { patId: 'p1', label: 'test' }).token;
      const r = await fx.run(['login', '--token-stdin'], { input: `${pat}\n` });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain('personal access token of admin');
      // The catalog listing is in the spec, so a server that serves only the spec answers it too.
      expect(fx.emu.log.entries.map((e) => `${e.method} ${e.path} ${e.authScheme} ${e.status}`)).toEqual([
        'GET /api/v3/catalog Bearer 200',
      ]);
      expect(fx.readJson('credentials.json').tokens.default).toMatchObject({
        kind: 'bearer',
        obtainedVia: 'pat',
        token: pat,
        username: 'admin',
      });
      await fx.run(['api', 'GET', '/api/v3/catalog']);
      expect(lastApiCall()).toMatchObject({ authScheme: 'Bearer', tokenKind: 'pat', user: 'admin' });
    });

    it('refuses --token-stdin with --password-stdin before reading either (exit 2, nothing sent)', async () => {
      const r = await fx.run(['login', '-u', 'admin', '--password-stdin', '--token-stdin'], {
        input: 'not-read\n',
      });
      expectFailure(r, 2, "option '--token-stdin' cannot be used with option '--password-stdin'");
      expect(r.stderr).toMatch(/^usage: dlake login \[options\]$/m);
      expect(fx.emu.log.entries).toHaveLength(0);
      expect(fx.readJson('credentials.json')).toEqual({});
    });

    it('refuses a PAT the service does not accept (exit 3) and stores nothing', async () => {
      const r = await fx.run(['login', '--token-stdin'], { input: 'not-a-real-token\n' });
      expectFailure(r, 3, 'refused the credentials');
      expect(fx.readJson('credentials.json')).toEqual({});
    });
  });

  describe('stored tokens and renewal', () => {
    const expireStoredToken = () => {
      const creds = fx.readJson('credentials.json');
      creds.tokens.default.expiresAt = new Date(Date.now() + 30_000).toISOString();
      writeFileSync(join(fx.configDir, 'credentials.json'), JSON.stringify(creds));
    };

    it('stops with exit 3 and the login command when the token expired and cannot be renewed', async () => {
      await fx.login();
      expireStoredToken();
      fx.emu.log.clear();
      const r = await fx.run(['api', 'GET', '/api/v3/catalog']);
      expectFailure(r, 3, 'the stored token of profile "default" expired');
      expect(r.stderr).toContain('hint: run `dlake login -u admin`');
      expect(fx.emu.log.entries).toHaveLength(0);
    });

    it('renews an expired token with DLAKE_CLIENT_ID/DLAKE_CLIENT_SECRET', async () => {
      await fx.login();
      expireStoredToken();
      fx.emu.log.clear();
      const env = { DLAKE_CLIENT_ID: 'ci-client', DLAKE_CLIENT_SECRET: 'ci-client-secret-1' };
      const r = await fx.run(['api', 'GET', '/api/v3/catalog'], { env });
      expect(r.code).toBe(0);
      expect(fx.emu.log.entries.map((e) => `${e.method} ${e.path}`)).toEqual([
        'POST /oauth/token',
        'GET /api/v3/catalog',
      ]);
      expect(lastApiCall()).toMatchObject({ authScheme: 'Bearer', tokenKind: 'oauth', user: 'svc-ci' });
      expect(fx.readJson('credentials.json').tokens.default).toMatchObject({
        kind: 'bearer',
        obtainedVia: 'client-credentials',
      });
    });

    it('renews an expired PAT-exchanged token with a new exchange of the stored PAT', async () => {
      const admin = fx.emu.state.userByName('admin')!;
      const pat = fx.emu.state.issueToken(admin.id, 'pat', 86_400_000, { patId: 'p2', label: 'renew' }).token;
      expect((await fx.run(['login', '--token-stdin'], { input: pat })).code).toBe(0);
      expect((await fx.run(['token', 'exchange', 'pat'])).code).toBe(0);
      expect(fx.readJson('credentials.json').tokens.default).toMatchObject({
        obtainedVia: 'pat-exchange',
        pat,
      });
      expireStoredToken();
      fx.emu.log.clear();
      const r = await fx.run(['api', 'GET', '/api/v3/catalog']);
      expect(r.code).toBe(0);
      expect(fx.emu.log.entries.map((e) => `${e.method} ${e.path}`)).toEqual([
        'POST /oauth/token',
        'GET /api/v3/catalog',
      ]);
      expect(lastApiCall()).toMatchObject({ tokenKind: 'oauth', user: 'admin' });
    });

    it('uses DLAKE_TOKEN as Bearer and stores nothing', async () => {
      const admin = fx.emu.state.userByName('admin')!;
      const t = fx.emu.state.issueToken(admin.id, 'pat', 86_400_000).token;
      const r = await fx.run(['api', 'GET', '/api/v3/catalog'], { env: { DLAKE_TOKEN: t } });
      expect(r.code).toBe(0);
      expect(lastApiCall()).toMatchObject({ authScheme: 'Bearer', tokenKind: 'pat' });
      expect(fx.readJson('credentials.json')).toEqual({});
    });

    it('never sends a stored token to another URL', async () => {
      await fx.login();
      const r = await fx.run(['api', 'GET', '/api/v3/catalog', '--url', 'http://127.0.0.1:9']);
      expectFailure(r, 3, 'not logged in to http://127.0.0.1:9 (profile "default")');
    });
  });

  describe('dlake whoami', () => {
    it('shows every setting and where it came from, never the token', async () => {
      await fx.login();
      const r = await fx.run(['whoami', '-o', 'json'], { env: { DLAKE_TIMEOUT: '10s' } });
      expect(r.code).toBe(0);
      const who = JSON.parse(r.stdout);
      expect(who.profile).toEqual({ value: 'default', source: 'profile' });
      expect(who.url).toEqual({ value: fx.emu.url, source: 'environment (DLAKE_URL)' });
      expect(who.timeout).toEqual({ value: '10s', source: 'environment (DLAKE_TIMEOUT)' });
      expect(who.user.value).toBe('admin');
      expect(who.token.value).toMatch(/^session via password \(1d 5h left\)$/);
      expect(r.stdout).not.toContain(fx.readJson('credentials.json').tokens.default.token);
    });

    it('--check proves the credentials with the service, and exits 3 when refused', async () => {
      await fx.login();
      const ok = await fx.run(['whoami', '--check']);
      expect(ok.code).toBe(0);
      expect(ok.stdout).toMatch(/check\s+ok/);
      // Make the service forget every token: the stored one is now refused.
      fx.emu.state.tokens.clear();
      const refused = await fx.run(['whoami', '--check']);
      expect(refused.code).toBe(3);
      expect(refused.stderr).toMatch(/^error: the service refused the credentials/m);
      expect(refused.stderr).not.toMatch(/refused the credentials: the service refused the credentials/);
    });

    it('names the environment values an explicit --profile overrides', async () => {
      await fx.login(ADMIN, 'prod');
      const r = await fx.run(['whoami', '-p', 'prod', '-o', 'json'], {
        env: { DLAKE_URL: 'http://127.0.0.1:9' },
      });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain('note: --profile prod given: ignoring DLAKE_URL from the environment');
      expect(JSON.parse(r.stdout).url).toEqual({ value: fx.emu.url, source: 'profile' });
    });
  });
});
