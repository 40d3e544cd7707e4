// Secret hygiene: every command of the tree runs with --debug and -v while known secrets are in play (the
// password, PATs, a client secret, a JWT, a source's password); none may appear in stdout, stderr,
// config.json or an exported file, and only tokens may be in credentials.json.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { expect, it } from 'vitest';
import type { RunResult } from '../helpers/dlake.js';
import { ADMIN, SERVICE_USER, useFixture } from '../helpers/fixture.js';

let jwt: string;
const fx = useFixture(
  async () => {
    const pair = await generateKeyPair('RS256');
    jwt = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256' })
      .setSubject('analyst')
      .setExpirationTime('10m')
      .sign(pair.privateKey);
    return { jwtPublicKeyPem: await exportSPKI(pair.publicKey), bigRows: 1200, jobStepMs: 1 };
  },
  { login: false },
);

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

it('no secret leaks from the catalog, source, sql, job, user, pat, queue, reflection or pull commands', async () => {
  const sourcePassword = 'pg-secret-Zq81xV';
  const outputs: RunResult[] = [];
  const run = async (args: string[], input?: string) => {
    const r = await fx.run([...args, '--debug', '-v'], { input });
    outputs.push(r);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r;
  };
  await run(['login', '-u', ADMIN.name, '--password-stdin'], ADMIN.password);
  const pg = join(fx.configDir, 'pg.json');
  const pgConfig = {
    hostname: 'db.example.com',
    port: 5432,
    databaseName: 'sales',
    authenticationType: 'MASTER',
    username: 'etl',
    password: sourcePassword,
  };
  writeFileSync(pg, JSON.stringify(pgConfig));
  await run(['source', 'create', 'pg', '--type', 'POSTGRES', '--config-file', pg]);
  await run(['source', 'create', 'pg2', '--type', 'POSTGRES', '--config-file', pg, '--dry-run']);
  await run(['source', 'update', 'pg', '--set', 'fetchSize=500']);
  await run(['source', 'get', 'pg', '-o', 'json']);
  await run(['source', 'list']);
  await run(['catalog', 'ls']);
  await run(['catalog', 'get', 'pg', '-o', 'json']);
  await run(['catalog', 'tree', '--depth', '1']);
  await run(['catalog', 'create', '--file', '-'], JSON.stringify({ entityType: 'space', name: 'S' }));
  await run(['catalog', 'tags', 'S', '--set', 'gold']);
  await run(['catalog', 'wiki', 'S', '--set-file', '-'], '# S');
  const id = (await run(['sql', 'SELECT * FROM big', '--no-wait'])).stdout.trim();
  await run(['job', 'wait', id]);
  await run(['job', 'get', id]);
  await run(['job', 'results', id, '--limit', '5']);
  await run(['job', 'export', id, '--out', join(fx.configDir, 'rows.csv')]);
  await run(['sql', 'SELECT 1 AS one', '--out', join(fx.configDir, 'one.ndjson')]);
  await run(['reflection', 'summary']);
  await run(['user', 'create', 'eve', '--email', 'eve@example.com']);
  await run(['user', 'get', 'eve']);
  await run(['user', 'update', 'eve', '--first-name', 'Eve']);
  // stdout of `pat create` is the new token, by design; everything else about it is scanned.
  const created = await run(['pat', 'create', 'eve', '--label', 'ci', '--expires', '1d']);
  const newPat = created.stdout.trim();
  outputs.splice(outputs.indexOf(created), 1, { ...created, stdout: '' });
  await run(['pat', 'list', 'eve']);
  await run(['queue', 'create', '--name', 'etl', '--cpu-tier', 'HIGH']);
  await run(['queue', 'list']);
  await run(['catalog', 'grants', 'S', '--grant', 'user:eve:SELECT']);
  // Definitions as code, every kind: the source's password must be a ${env:…} reference in the files.
  const lake = join(fx.configDir, 'lake');
  await run(['pull', '--dir', lake, '--kinds', 'queue,rule,reflection,grant']);
  await run(['queue', 'delete', 'etl', '-y']);
  await run(['user', 'delete', 'eve', '-y']);
  await run(['source', 'delete', 'pg', '-y']);

  const text = outputs.map((r) => r.stdout + r.stderr).join('\n');
  expect(text).toContain('debug: > POST');
  expect(text).toContain('"password":"[redacted]"');
  // Every file dlake wrote: config.json and the exports (pg.json is the input; credentials hold tokens).
  const files = readdirSync(fx.configDir, { withFileTypes: true })
    .filter((f) => f.isFile() && f.name !== 'pg.json' && f.name !== 'credentials.json')
    .map((f) => readFileSync(join(fx.configDir, f.name), 'utf8'));
  expect(files.length).toBeGreaterThanOrEqual(3);
  const pulled = readdirSync(lake, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
  expect(pulled.map((f) => f.name)).toEqual(
    expect.arrayContaining(['pg.yaml', 'etl.yaml', '.rules.yaml', 'S.yaml']),
  );
  files.push(...pulled.map((f) => readFileSync(join(f.parentPath, f.name), 'utf8')));
  const secrets = [ADMIN.password, sourcePassword, newPat, ...fx.emu.state.tokens.keys()];
  for (const secret of secrets) {
    expect(text.includes(secret), `a secret leaked into the output: ${secret.slice(0, 4)}…`).toBe(false);
    for (const file of files)
      expect(file.includes(secret), `a secret in a file: ${secret.slice(0, 4)}…`).toBe(false);
  }
});
