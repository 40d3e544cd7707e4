// A stored credential goes only to the endpoint that issued it (docs/cli-contract.md "Identity"): the token
// endpoint in force when a token was stored is part of its identity, like the service URL. Another auth URL is
// "not logged in" (exit 3), and neither the refresh token nor the stored PAT is sent anywhere.
import { type Emulator, startEmulator } from 'dlake-emulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ANALYST, expectFailure, type Fixture, SERVICE_USER, useFixture } from '../helpers/fixture.js';

const fx = useFixture({}, { login: false });
/** The other host: whatever reaches it is a leak. */
let other: Emulator;

beforeAll(async () => {
  other = await startEmulator();
});
afterAll(() => other.close());
beforeEach(() => other.log.clear());

const writeCreds = async (change: (c: ReturnType<Fixture['readJson']>) => void) => {
  const { writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const creds = fx.readJson('credentials.json');
  change(creds);
  writeFileSync(join(fx.configDir, 'credentials.json'), JSON.stringify(creds));
};
const expire = () =>
  writeCreds((c) => {
    c.tokens.default.expiresAt = new Date(Date.now() + 10_000).toISOString();
  });

describe('the token endpoint is bound into a stored token', () => {
  it('a refresh token is never posted to another DLAKE_AUTH_URL: exit 3, nothing sent there', async () => {
    const got = await fx.run(
      [
        'token',
        'exchange',
        'client-credentials',
        '--client-id',
        SERVICE_USER.clientId,
        '--client-secret-stdin',
      ],
      { input: SERVICE_USER.clientSecret },
    );
    expect(got.code, got.stderr).toBe(0);
    expect(fx.readJson('credentials.json').tokens.default).toMatchObject({
      authUrl: fx.emu.url,
      refreshToken: expect.any(String),
    });
    await expire();
    fx.emu.log.clear();

    const r = await fx.run(['catalog', 'ls'], { env: { DLAKE_AUTH_URL: other.url } });
    expectFailure(r, 3, `not logged in with the token endpoint ${other.url} (DLAKE_AUTH_URL)`);
    expect(other.log.entries).toEqual([]);
    expect(fx.emu.log.entries).toEqual([]);

    // The same endpoint spelled otherwise is the same endpoint: the refresh token renews there.
    const same = await fx.run(['catalog', 'ls'], { env: { DLAKE_AUTH_URL: `${fx.emu.url}/` } });
    expect(same.code, same.stderr).toBe(0);
    expect(fx.emu.log.find('POST', '/oauth/token').map((e) => e.grant)).toEqual(['refresh_token']);
  });

  it('a stored PAT is never exchanged at another DLAKE_AUTH_URL, on renewal or by `token exchange pat`', async () => {
    const analyst = fx.emu.state.userByName(ANALYST.name)!;
    const pat = fx.emu.state.issueToken(analyst.id, 'pat', 86_400_000, {
      patId: 'p-sec',
      label: 'sec',
    }).token;
    const got = await fx.run(['token', 'exchange', 'pat', '--subject-token-stdin'], { input: pat });
    expect(got.code, got.stderr).toBe(0);
    await expire();
    fx.emu.log.clear();

    const r = await fx.run(['catalog', 'ls'], { env: { DLAKE_AUTH_URL: other.url } });
    expectFailure(r, 3, `not logged in with the token endpoint ${other.url}`);
    const again = await fx.run(['token', 'exchange', 'pat'], { env: { DLAKE_AUTH_URL: other.url } });
    expectFailure(again, 3, 'not logged in to this service URL and token endpoint');
    const flag = await fx.run(['--auth-url', other.url, 'token', 'exchange', 'pat']);
    expectFailure(flag, 3, 'not logged in');
    expect(other.log.entries).toEqual([]);
    expect(fx.emu.log.entries).toEqual([]);

    // Where it was stored, the stored PAT renews the expired token as before.
    const home = await fx.run(['catalog', 'ls']);
    expect(home.code, home.stderr).toBe(0);
    expect(fx.emu.log.find('POST', '/oauth/token').length).toBe(1);
  });

  it('a token endpoint given once with --auth-url stays the profile’s, as a URL given once does', async () => {
    const got = await fx.run(
      [
        ...['-p', 'idp', '--auth-url', other.url, 'token', 'exchange', 'client-credentials'],
        ...['--client-id', SERVICE_USER.clientId, '--client-secret-stdin'],
      ],
      { input: SERVICE_USER.clientSecret },
    );
    expect(got.code, got.stderr).toBe(0);
    expect(other.log.find('POST', '/oauth/token').map((e) => e.grant)).toEqual(['client_credentials']);
    expect(fx.readJson('config.json').profiles.idp).toMatchObject({ url: fx.emu.url, authUrl: other.url });
    expect(fx.readJson('credentials.json').tokens.idp).toMatchObject({ url: fx.emu.url, authUrl: other.url });
    const who = await fx.run(['whoami', '-p', 'idp', '-o', 'json']);
    expect(JSON.parse(who.stdout)['auth-url']).toMatchObject({ value: other.url, source: 'profile' });
  });

  it('a stored token that no header can carry makes the credentials file not valid: logged out, nothing sent', async () => {
    expect((await fx.login()).code).toBe(0);
    await writeCreds((c) => {
      c.tokens.default.token = 'abc\r\nX-Injected: 1';
    });
    fx.emu.log.clear();
    const r = await fx.run(['catalog', 'ls']);
    expectFailure(r, 3, 'the credentials file is not valid');
    expect(r.stderr).toContain('not printable ASCII');
    expect(fx.emu.log.entries).toEqual([]);
  });

  it('a token stored before the endpoint was recorded belongs to the profile’s auth URL, else its service URL', async () => {
    expect((await fx.login()).code).toBe(0);
    await writeCreds((c) => {
      delete c.tokens.default.authUrl;
    });
    const r = await fx.run(['catalog', 'ls'], { env: { DLAKE_AUTH_URL: other.url } });
    expectFailure(r, 3, 'not logged in with the token endpoint');
    const ok = await fx.run(['catalog', 'ls']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(other.log.entries).toEqual([]);
  });
});
