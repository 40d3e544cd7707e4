// `dlake token exchange …` against the emulator's token endpoint: all four grants.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { expectFailure, SERVICE_USER, useFixture } from '../helpers/fixture.js';

// The authentication tests run twice: against the full emulator, and against one that serves only the spec's
// endpoints (nothing dlake does to log in or check credentials may depend on an endpoint outside the spec).
describe.each([
  { mode: 'full emulator', strictSpec: false },
  { mode: '--strict-spec', strictSpec: true },
])('$mode', ({ strictSpec }) => {
  let privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  const fx = useFixture(
    async () => {
      const pair = await generateKeyPair('RS256');
      privateKey = pair.privateKey;
      return { jwtPublicKeyPem: await exportSPKI(pair.publicKey), strictSpec };
    },
    { login: false },
  );
  beforeEach(() => {
    for (const f of ['config.json', 'credentials.json']) writeFileSync(join(fx.configDir, f), '{}');
  });

  const signJwt = (sub: string, expiresIn: string) =>
    new SignJWT({})
      .setProtectedHeader({ alg: 'RS256' })
      .setSubject(sub)
      .setIssuedAt()
      .setExpirationTime(expiresIn)
      .sign(privateKey);

  describe('token exchange client-credentials', () => {
    it('stores the access token and refresh token; --print writes the token alone to stdout', async () => {
      const r = await fx.run(
        [
          'token',
          'exchange',
          'client-credentials',
          '--client-id',
          SERVICE_USER.clientId,
          '--client-secret-stdin',
          '--print',
        ],
        {
          input: SERVICE_USER.clientSecret,
        },
      );
      expect(r.code).toBe(0);
      const stored = fx.readJson('credentials.json').tokens.default;
      expect(stored).toMatchObject({ kind: 'bearer', obtainedVia: 'client-credentials' });
      expect(stored.refreshToken).toBeTruthy();
      expect(r.stdout).toBe(`${stored.token}\n`);
      expect(r.stderr).toContain('scope: service.all offline_access');
      expect(fx.readJson('config.json').profiles.default).toMatchObject({
        authMethod: 'client-credentials',
        clientId: 'ci-client',
      });
      expect(JSON.stringify(fx.readJson('credentials.json'))).not.toContain(SERVICE_USER.clientSecret);

      const api = await fx.run(['api', 'GET', '/api/v3/catalog']);
      expect(api.code).toBe(0);
      expect(fx.emu.log.entries.at(-1)).toMatchObject({
        authScheme: 'Bearer',
        tokenKind: 'oauth',
        user: 'svc-ci',
      });
    });

    it('takes the secret from DLAKE_CLIENT_SECRET', async () => {
      const r = await fx.run(
        ['token', 'exchange', 'client-credentials', '--client-id', SERVICE_USER.clientId],
        {
          env: { DLAKE_CLIENT_SECRET: SERVICE_USER.clientSecret },
        },
      );
      expect(r.code).toBe(0);
    });

    it('refuses a wrong secret with exit 3', async () => {
      const r = await fx.run(
        [
          'token',
          'exchange',
          'client-credentials',
          '--client-id',
          SERVICE_USER.clientId,
          '--client-secret-stdin',
        ],
        {
          input: 'wrong',
        },
      );
      expectFailure(r, 3, 'Invalid client credentials');
      expect(r.stderr).toContain('hint: the client id or its secret is wrong');
      expect(fx.readJson('credentials.json')).toEqual({});
    });

    it('refuses a client secret on the command line (exit 2)', async () => {
      const r = await fx.run([
        'token',
        'exchange',
        'client-credentials',
        '--client-id',
        'x',
        '--client-secret',
        's3cr3t-argv',
      ]);
      expectFailure(r, 2, '--client-secret is not accepted');
      expect(r.stderr).not.toContain('s3cr3t-argv');
    });
  });

  describe('token exchange jwt', () => {
    it('exchanges a JWT from a file; the lifetime is the JWT remaining time', async () => {
      const file = join(fx.configDir, '..', `jwt-${process.pid}.txt`);
      writeFileSync(file, await signJwt('analyst', '10m'));
      const r = await fx.run(['token', 'exchange', 'jwt', '--subject-token-file', file]);
      expect(r.code).toBe(0);
      const stored = fx.readJson('credentials.json').tokens.default;
      expect(stored.obtainedVia).toBe('jwt');
      const minutes = (Date.parse(stored.expiresAt) - Date.now()) / 60_000;
      expect(minutes).toBeGreaterThan(8);
      expect(minutes).toBeLessThanOrEqual(10);
      await fx.run(['api', 'GET', '/api/v3/catalog']);
      expect(fx.emu.log.entries.at(-1)).toMatchObject({ tokenKind: 'oauth', user: 'analyst' });
    });

    it('exchanges a JWT for a service user with --audience', async () => {
      const audience = `//idp.example/organizations/org1/clients/${SERVICE_USER.clientId}/credentials/cred1`;
      const r = await fx.run(['token', 'exchange', 'jwt', '--subject-token-stdin', '--audience', audience], {
        input: await signJwt('analyst', '10m'),
      });
      expect(r.code).toBe(0);
      await fx.run(['api', 'GET', '/api/v3/catalog']);
      expect(fx.emu.log.entries.at(-1)).toMatchObject({ user: 'svc-ci' });
    });

    it('refuses an expired JWT with exit 3', async () => {
      const r = await fx.run(['token', 'exchange', 'jwt', '--subject-token-stdin'], {
        input: await signJwt('analyst', '-1m'),
      });
      expectFailure(r, 3, 'Invalid JWT');
      expect(r.stderr).toContain('hint: the JWT has expired: get a fresh one');
    });

    it('needs exactly one source for the JWT (exit 2, nothing sent)', async () => {
      const r = await fx.run(['token', 'exchange', 'jwt']);
      expectFailure(r, 2, 'exactly one of --subject-token-file');
      const both = await fx.run(
        ['token', 'exchange', 'jwt', '--subject-token-file', 'jwt.txt', '--subject-token-stdin'],
        { input: 'not-read' },
      );
      expectFailure(
        both,
        2,
        "option '--subject-token-stdin' cannot be used with option '--subject-token-file <file>'",
      );
      expect(fx.emu.log.entries).toHaveLength(0);
    });
  });

  describe('token exchange pat', () => {
    it('exchanges a PAT from stdin and bounds nothing beyond one hour', async () => {
      const admin = fx.emu.state.userByName('admin')!;
      const pat = fx.emu.state.issueToken(admin.id, 'pat', 10 * 60_000).token;
      const r = await fx.run(['token', 'exchange', 'pat', '--subject-token-stdin', '--print'], {
        input: pat,
      });
      expect(r.code).toBe(0);
      const stored = fx.readJson('credentials.json').tokens.default;
      expect(stored).toMatchObject({ obtainedVia: 'pat-exchange', pat });
      // The PAT had ten minutes left: the access token cannot outlive it.
      expect(Date.parse(stored.expiresAt) - Date.now()).toBeLessThanOrEqual(10 * 60_000);
    });

    it('says how to get a PAT when the profile has none (exit 2)', async () => {
      const r = await fx.run(['token', 'exchange', 'pat']);
      expectFailure(r, 2, 'has no stored PAT');
    });
  });
});
