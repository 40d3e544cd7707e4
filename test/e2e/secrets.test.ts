// Secret hygiene: every command of the foundation runs with --debug and -v while known secrets are in
// play; none may appear in stdout, stderr or config.json, and only tokens may be in credentials.json.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunResult } from '../helpers/dlake.js';
import { ADMIN, type Fixture, SERVICE_USER, startFixture } from '../helpers/fixture.js';

let fx: Fixture;
let jwt: string;
beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  fx = await startFixture({ jwtPublicKeyPem: await exportSPKI(pair.publicKey) });
  jwt = await new SignJWT({})
    .setProtectedHeader({ alg: 'RS256' })
    .setSubject('analyst')
    .setExpirationTime('10m')
    .sign(pair.privateKey);
});
afterAll(() => fx.close());

it('no password, token, client secret or JWT leaks into output or config.json', async () => {
  const admin = fx.emu.state.userByName('admin')!;
  const pat = fx.emu.state.issueToken(admin.id, 'pat', 86_400_000).token;
  const jwtFile = join(fx.configDir, 'subject.jwt');
  writeFileSync(jwtFile, jwt);
  const outputs: RunResult[] = [];
  // Every token the service ever issued, including those that logout ends later.
  const issued = new Set<string>();
  const run = async (args: string[], input?: string, env?: Record<string, string>) => {
    const r = await fx.run([...args, '--debug', '-v'], { input, env });
    outputs.push(r);
    for (const t of fx.emu.state.tokens.keys()) issued.add(t);
    return r;
  };

  await run(['login', '-u', ADMIN.name, '--password-stdin'], ADMIN.password);
  await run(['whoami', '--check']);
  await run(['api', 'GET', '/api/v3/catalog']);
  await run(['api', 'POST', '/api/v3/sql', '--data', '{"sql": "SELECT 1"}']);
  await run(['profile', 'list']);
  await run(['profile', 'show']);
  await run(['profile', 'set', 'other', '--url', fx.emu.url]);
  await run(['login', '-p', 'other', '--token-stdin'], pat);
  await run(['token', 'exchange', 'pat', '-p', 'other']);
  await run(
    [
      'token',
      'exchange',
      'client-credentials',
      '-p',
      'other',
      '--client-id',
      SERVICE_USER.clientId,
      '--client-secret-stdin',
    ],
    SERVICE_USER.clientSecret,
  );
  await run(['token', 'exchange', 'jwt', '-p', 'other', '--subject-token-file', jwtFile]);
  await run(['token', 'exchange', 'jwt', '-p', 'other', '--subject-token-stdin'], jwt);
  await run(['api', 'GET', '/api/v3/catalog', '-p', 'other'], undefined, {
    DLAKE_CLIENT_ID: SERVICE_USER.clientId,
    DLAKE_CLIENT_SECRET: SERVICE_USER.clientSecret,
  });
  await run(['login', '-u', ADMIN.name, '--password-stdin'], 'wrong-password-xyz');
  await run(['logout', '-p', 'other']);
  await run(['logout']);

  // Every command ran, and --debug did trace HTTP exchanges.
  expect(outputs.filter((r) => r.code === 0)).toHaveLength(outputs.length - 1);
  const text = outputs.map((r) => r.stdout + r.stderr).join('\n');
  expect(text).toContain('debug: > POST');
  expect(text).toContain('authorization: [redacted]');

  expect(issued.size).toBeGreaterThanOrEqual(6);
  const secrets = [ADMIN.password, 'wrong-password-xyz', SERVICE_USER.clientSecret, jwt, pat, ...issued];
  const config = readFileSync(join(fx.configDir, 'config.json'), 'utf8');
  const credentials = readFileSync(join(fx.configDir, 'credentials.json'), 'utf8');
  for (const secret of secrets) {
    expect(text.includes(secret), `a secret leaked into the output: ${secret.slice(0, 4)}…`).toBe(false);
    expect(config.includes(secret)).toBe(false);
  }
  for (const never of [ADMIN.password, SERVICE_USER.clientSecret, jwt])
    expect(credentials.includes(never)).toBe(false);
});
