// The hosted edition against the emulator's `--edition cloud`: the edition and project settings, login with a
// PAT proved by a project-scoped call, every command on the hosted roots, and what that edition lacks refused
// before anything is sent (docs/cli-contract.md "The hosted edition").
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectFailure, type Fixture, startFixture } from '../helpers/fixture.js';

const PID = '11111111-2222-4333-8444-555555555555';
const OTHER = '99999999-2222-4333-8444-555555555555';
let fx: Fixture;
let adminPat: string;

const pat = (name: string): string =>
  fx.emu.state.issueToken(fx.emu.state.userByName(name)!.id, 'pat', 3_600_000).token;
const hosted = { DLAKE_EDITION: 'cloud', DLAKE_PROJECT_ID: PID };

beforeAll(async () => {
  fx = await startFixture({ edition: 'cloud', cloud: { projectId: PID } });
  adminPat = pat('admin');
});
afterAll(() => fx.close());
beforeEach(() => fx.emu.log.clear());

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
    expect(JSON.parse(r.stdout).name).toBe('analyst');
    expect(fx.emu.log.entries.map((e) => e.path)).toContain('/v0/user/by-name/analyst');
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
      expectFailure(r, 2, 'the hosted edition (--edition cloud) has no');
    }
    expect(fx.emu.log.entries).toEqual([]);
  });
});
