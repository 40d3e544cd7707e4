// The hosted edition against the emulator's `--edition cloud`: the edition and project settings, login with a
// PAT proved by a project-scoped call, every command on the hosted roots, and what that edition lacks refused
// before anything is sent (docs/cli-contract.md "The hosted edition").
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFailure, useFixture } from '../helpers/fixture.js';

const SAMPLES = resolve(import.meta.dirname, '../fixtures/samples');
const PID = '11111111-2222-4333-8444-555555555555';
const OTHER = '99999999-2222-4333-8444-555555555555';
let adminPat: string;

const pat = (name: string): string =>
  fx.emu.state.issueToken(fx.emu.state.userByName(name)!.id, 'pat', 3_600_000).token;
const hosted = { DLAKE_EDITION: 'cloud', DLAKE_PROJECT_ID: PID };

// The project's sample source, as a hosted project has one from the start.
const fx = useFixture({ edition: 'cloud', samplesDir: SAMPLES, cloud: { projectId: PID } }, { login: false });
beforeAll(() => {
  adminPat = pat('admin');
});

describe('login on the hosted edition', () => {
  it('refuses a password with exit 2 before asking for it, and sends nothing', async () => {
    const r = await fx.run(['login', '-u', 'admin', '--password-stdin'], { input: 'x\n', env: hosted });
    expectFailure(r, 2, 'the hosted edition (--edition cloud) takes a personal access token or OAuth');
    expect(fx.emu.log.entries).toEqual([]);
  });

  it('names an unknown project with exit 4 and stores nothing', async () => {
    const r = await fx.run(
      ['--edition', 'cloud', '--project-id', OTHER, 'login', '-p', 'x', '--token-stdin'],
      {
        input: `${adminPat}\n`,
      },
    );
    expectFailure(r, 4, `project ${OTHER} not found`);
    expect(fx.emu.log.entries.map((e) => e.path)).toEqual([`/v0/projects/${OTHER}/catalog`]);
    expect(() => fx.readJson('credentials.json')).toThrow();
  });

  it('needs a project', async () => {
    const r = await fx.run(['--edition', 'cloud', 'login', '--token-stdin'], { input: `${adminPat}\n` });
    expectFailure(r, 2, 'the hosted edition needs a project');
    expect(fx.emu.log.entries).toEqual([]);
  });

  it('verifies a PAT with a project-scoped call and stores edition and project in the profile', async () => {
    const r = await fx.run(
      ['--edition', 'cloud', '--project-id', PID, 'login', '-p', 'cloud', '--token-stdin'],
      {
        input: `${adminPat}\n`,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`project ${PID}`);
    expect(fx.emu.log.entries.map((e) => `${e.method} ${e.path} ${e.authScheme}`)).toEqual([
      `GET /v0/projects/${PID}/catalog Bearer`,
    ]);
    expect(fx.readJson('config.json').profiles.cloud).toMatchObject({
      edition: 'cloud',
      projectId: PID,
      authMethod: 'pat',
    });
    expect(fx.readJson('credentials.json').tokens.cloud).toMatchObject({ edition: 'cloud', projectId: PID });
  });

  it('whoami shows the edition and project with where they came from', async () => {
    const r = await fx.run(['whoami', '-p', 'cloud', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const data = JSON.parse(r.stdout);
    expect(data.edition).toEqual({ value: 'cloud', source: 'profile' });
    expect(data['project-id']).toEqual({ value: PID, source: 'profile' });
    const env = await fx.run(['whoami', '-o', 'json'], { env: hosted });
    expect(JSON.parse(env.stdout).edition).toEqual({ value: 'cloud', source: 'environment (DLAKE_EDITION)' });
  });

  it('takes the edition and the login service from the published host, without a request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dlake-hosted-cfg-'));
    try {
      const r = await fx.run(['whoami', '-o', 'json'], {
        url: false,
        env: { DLAKE_CONFIG_DIR: dir, DLAKE_URL: 'https://api.dremio.cloud', DLAKE_PROJECT_ID: PID },
      });
      expect(r.code, r.stderr).toBe(0);
      const data = JSON.parse(r.stdout);
      expect(data.edition).toEqual({ value: 'cloud', source: 'default' });
      expect(data['project-id']).toEqual({ value: PID, source: 'environment (DLAKE_PROJECT_ID)' });
      expect(data['auth-url']).toEqual({ value: 'https://login.dremio.cloud', source: 'default' });
      const other = await fx.run(['whoami', '-o', 'json', '--edition', 'nonsense'], {
        env: { DLAKE_CONFIG_DIR: dir },
      });
      expect(other.code).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('never uses the token on another project or edition', async () => {
    const other = await fx.run(['catalog', 'ls', '-p', 'cloud'], { env: { DLAKE_PROJECT_ID: OTHER } });
    // An explicit --profile wins over the environment: the stored project is used.
    expect(other.code, other.stderr).toBe(0);
    const r = await fx.run(['catalog', 'ls'], { env: { DLAKE_PROFILE: 'cloud', DLAKE_PROJECT_ID: OTHER } });
    expectFailure(r, 3, `not logged in to project ${OTHER}`);
    const s = await fx.run(['catalog', 'ls', '--edition', 'software'], { env: { DLAKE_PROFILE: 'cloud' } });
    expectFailure(s, 3, 'not logged in on the software edition');
  });
});

describe('OAuth on the hosted edition', () => {
  it('exchanges the stored PAT at the login service and uses the access token on the hosted roots', async () => {
    const other = 'oauth';
    const token = pat('analyst');
    const login = await fx.run(
      ['--edition', 'cloud', '--project-id', PID, 'login', '-p', other, '--token-stdin'],
      {
        input: `${token}\n`,
      },
    );
    expect(login.code, login.stderr).toBe(0);
    fx.emu.log.clear();
    const r = await fx.run(['token', 'exchange', 'pat', '-p', other]);
    expect(r.code, r.stderr).toBe(0);
    const grant = fx.emu.log.entries.find((e) => e.path === '/oauth/token');
    expect(grant?.grant).toBe('urn:ietf:params:oauth:grant-type:token-exchange');
    expect(fx.readJson('credentials.json').tokens[other]).toMatchObject({
      obtainedVia: 'pat-exchange',
      edition: 'cloud',
      projectId: PID,
    });
    fx.emu.log.clear();
    const ls = await fx.run(['catalog', 'ls', '-p', other]);
    expect(ls.code, ls.stderr).toBe(0);
    expect(fx.emu.log.entries.map((e) => `${e.path} ${e.tokenKind}`)).toEqual([
      `/v0/projects/${PID}/catalog oauth`,
    ]);
  });
});

describe('commands on the hosted roots', () => {
  const run = (args: string[]) => fx.run(['-p', 'cloud', ...args]);

  it('lists the catalog and runs SQL below the project', async () => {
    const ls = await run(['catalog', 'ls', '-o', 'json']);
    expect(ls.code, ls.stderr).toBe(0);
    const sql = await run(['sql', 'SELECT 1 AS one', '-o', 'json']);
    expect(sql.code, sql.stderr).toBe(0);
    expect(JSON.parse(sql.stdout)).toEqual([{ one: 1 }]);
    const paths = fx.emu.log.entries.map((e) => e.path);
    expect(paths.every((p) => p.startsWith(`/v0/projects/${PID}/`))).toBe(true);
    expect(paths).toContain(`/v0/projects/${PID}/sql`);
  });

  it('sends users and roles to the organisation root', async () => {
    const r = await run(['user', 'get', 'analyst', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const { id } = JSON.parse(r.stdout);
    expect(JSON.parse(r.stdout).name).toBe('analyst');
    // The documented forms (docs/api-facts.md §13.4): a name is looked up with the list's CEL filter.
    expect(fx.emu.log.entries.map((e) => e.path)).toEqual(['/v0/users', `/v0/users/${id}`]);
    expect(fx.emu.log.entries[0]!.query.filter).toBe('name == "analyst"');
  });

  it('a missing user reads as on the self-hosted edition, with the same hint', async () => {
    const r = await run(['user', 'get', 'nobody']);
    expectFailure(r, 4, 'not found: user "nobody"');
    expect(r.stderr).toContain('hint: list the users with: dlake user list');
    const entity = await run(['catalog', 'get', 'Samples/nothing-here']);
    expectFailure(entity, 4, 'not found: Samples/nothing-here');
    expect(entity.stderr).toContain('hint: see what Samples holds with: dlake catalog ls Samples');
  });

  it('falls back once to the vendor CLI form of users and roles, and remembers it in the profile', async () => {
    fx.emu.cloud!.vendorFormsOnly = true;
    try {
      const first = await run(['user', 'list', '-o', 'json']);
      expect(first.code, first.stderr).toBe(0);
      expect(JSON.parse(first.stdout).some((u: { name: string }) => u.name === 'analyst')).toBe(true);
      expect(fx.emu.log.entries.map((e) => `${e.status} ${e.path}`)).toEqual([
        '404 /v0/users',
        '200 /v1/users',
      ]);
      expect(fx.readJson('config.json').profiles.cloud.routes).toEqual({ users: 1 });
      fx.emu.log.clear();
      const again = await run(['user', 'get', 'analyst', '-o', 'json']);
      expect(again.code, again.stderr).toBe(0);
      expect(fx.emu.log.entries.map((e) => e.path)).toEqual([
        '/v1/users',
        `/v1/users/${JSON.parse(again.stdout).id}`,
      ]);
    } finally {
      fx.emu.cloud!.vendorFormsOnly = false;
    }
  });

  it('the emulator pages /v0/users as documented: maxResults 1..1000, pageToken, orderBy', async () => {
    const page = await run(['api', 'GET', '/v0/users?maxResults=1&orderBy=name']);
    expect(page.code, page.stderr).toBe(0);
    const body = JSON.parse(page.stdout);
    expect(body.data).toHaveLength(1);
    expect(body.nextPageToken).toEqual(expect.any(String));
    const all = await run(['api', 'GET', '/v0/users?maxResults=1&orderBy=name', '--paginate']);
    const names = JSON.parse(all.stdout).data.map((u: { name: string }) => u.name);
    expect(names.length).toBeGreaterThan(1);
    expect(names).toEqual([...names].sort());
    expectFailure(
      await run(['api', 'GET', '/v0/users?maxResults=1001']),
      2,
      'maxResults must be between 1 and 1000',
    );
  });

  it('a refused token: the login hint keeps the edition and project the command ran with', async () => {
    const r = await fx.run(['--edition', 'cloud', '--project-id', PID, 'catalog', 'ls'], {
      env: { DLAKE_TOKEN: 'not-a-token-of-this-service' },
    });
    expectFailure(r, 3, '');
    expect(r.stderr).toContain(`dlake login --edition cloud --project-id ${PID}`);
  });

  it('`api` takes a relative path below the project and a /v0 path as written', async () => {
    const rel = await run(['api', 'GET', 'catalog']);
    expect(rel.code, rel.stderr).toBe(0);
    const abs = await run(['api', 'GET', '/v0/projects']);
    expect(abs.code, abs.stderr).toBe(0);
    expect(JSON.parse(abs.stdout)[0].id).toBe(PID);
    expect(fx.emu.log.entries.map((e) => e.path)).toEqual([`/v0/projects/${PID}/catalog`, '/v0/projects']);
  });

  it('refuses queues and queue rules with exit 2 naming the hosted edition, sending nothing', async () => {
    for (const args of [
      ['queue', 'list'],
      ['queue', 'rules'],
    ]) {
      const r = await run(args);
      expectFailure(r, 2, 'the hosted edition has no');
      expect(r.stderr).toMatch(/hint: use `dlake engine( rules)?`/);
    }
    expect(fx.emu.log.entries).toEqual([]);
  });
});

describe('the commands of both editions, on the hosted one', () => {
  const run = (args: string[], input?: string) => fx.run(['-p', 'cloud', ...args], { input });
  const onHostedRoots = () =>
    fx.emu.log.entries.every(
      (e) => e.path.startsWith(`/v0/projects/${PID}/`) || /^\/v0\/(user|role)/.test(e.path),
    );

  it('promotes a dataset and creates, lists and summarises a reflection on it', async () => {
    const promote = await run(
      ['catalog', 'create', '--file', '-'],
      JSON.stringify({
        entityType: 'dataset',
        type: 'PHYSICAL_DATASET',
        path: ['Samples', 'sales', '2024.csv'],
        format: { type: 'Text', extractHeader: true },
      }),
    );
    expect(promote.code, promote.stderr).toBe(0);
    const create = await run([
      'reflection',
      'create',
      'Samples/sales/2024.csv',
      '--type',
      'raw',
      '--display',
      'region,units',
      '--name',
      'by_region',
    ]);
    expect(create.code, create.stderr).toBe(0);
    const list = await run(['reflection', 'list', 'Samples/sales/2024.csv', '-o', 'json']);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).map((r: { name: string }) => r.name)).toEqual(['by_region']);
    const summary = await run(['reflection', 'summary', '-o', 'json']);
    expect(summary.code, summary.stderr).toBe(0);
    expect(onHostedRoots()).toBe(true);
  });

  it('--dry-run prints the request as routed on the hosted edition, and sends nothing', async () => {
    const r = await run(['role', 'create', 'loaders', '--dry-run', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      dryRun: true,
      method: 'POST',
      url: `${fx.emu.url}/v0/roles`,
      body: { name: 'loaders' },
    });
    expect(fx.emu.log.entries).toEqual([]);
  });

  it('creates and lists roles at the organisation root', async () => {
    const create = await run(['role', 'create', 'loaders', '--description', 'Nightly ETL']);
    expect(create.code, create.stderr).toBe(0);
    const list = await run(['role', 'list', '-o', 'json']);
    expect(JSON.parse(list.stdout).some((r: { name: string }) => r.name === 'loaders')).toBe(true);
    expect(fx.emu.log.entries.filter((e) => e.method === 'POST').map((e) => e.path)).toEqual(['/v0/roles']);
  });

  it('exports a job to a file, and waits for it, below the project', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dlake-hosted-'));
    try {
      const out = join(dir, 'rows.csv');
      const r = await run(['sql', 'SELECT * FROM big ORDER BY id LIMIT 1000', '--out', out]);
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(out, 'utf8').split('\n')[0]).toBe('id,name,amount,flag,note');
      expect(fx.emu.log.entries.filter((e) => e.path.endsWith('/results'))).toHaveLength(2);
      expect(onHostedRoots()).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
