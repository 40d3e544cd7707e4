// Every listing that follows nextPageToken stops with exit 7 when the service hands out a token it handed
// out before (again, or in a cycle), or the same page again under a fresh token, after one repeated page and
// with nothing printed twice; an empty page ends it whatever its token says: `user list`, `role list`,
// `reflection summary` and `api --paginate` (the catalog's listings: test/unit/catalog-api.test.ts).
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, expectFailure, useFixture } from '../helpers/fixture.js';
import { type HostileServer, startHostileServer } from '../helpers/hostile/server.js';
import { runInProcess } from '../helpers/in-process.js';

const fx = useFixture();
beforeEach(() => {
  fx.emu.faults.clear();
});

const ROUND = 'the listing would never end';
const REAL_SUMMARY = join(import.meta.dirname, '..', 'fixtures', 'real', 'docs-reflection-summary.json');

describe('a nextPageToken handed out twice', () => {
  it.each([
    {
      args: ['user', 'list'],
      path: '/api/v3/user',
      body: { data: [{ id: 'u-1', name: 'alice', tag: 't' }], nextPageToken: 'again' },
    },
    {
      args: ['role', 'list'],
      path: '/api/v3/role',
      body: { data: [{ id: 'r-1', name: 'team', type: 'INTERNAL' }], nextPageToken: 'again' },
    },
    {
      args: ['api', 'GET', '/api/v3/reflection-summary', '--paginate'],
      path: '/api/v3/reflection-summary',
      body: { data: [{ id: 'x' }], nextPageToken: 'again' },
    },
  ])('$args.0 $args.1: exit 7 after the repeated page, nothing printed', async ({ args, path, body }) => {
    fx.emu.fault({ kind: 'schema', method: 'GET', path: new RegExp(`^${path}(\\?|$)`), body });
    const r = await fx.run(args);
    expectFailure(r, 7, `the service sent the same nextPageToken twice while listing GET ${path}: ${ROUND}`);
    expect(fx.emu.log.find('GET', path)).toHaveLength(2);
  });

  it('reflection summary: exit 7 after the repeated page', async () => {
    fx.emu.fault({
      kind: 'schema',
      method: 'GET',
      path: /^\/api\/v3\/reflection-summary(\?|$)/,
      body: { data: [], nextPageToken: 'again' },
    });
    // An empty page ends a listing whatever its token says; one with rows and the same token does not.
    expect((await fx.run(['reflection', 'summary'])).code).toBe(0);
    fx.emu.faults.clear();
    // A summary as a real service sends it.
    const one = JSON.parse(readFileSync(REAL_SUMMARY, 'utf8')).data[0];
    fx.emu.fault({
      kind: 'schema',
      method: 'GET',
      path: /^\/api\/v3\/reflection-summary(\?|$)/,
      body: { data: [one], nextPageToken: 'again' },
    });
    fx.emu.log.clear();
    const r = await fx.run(['reflection', 'summary', '-o', 'json']);
    expectFailure(r, 7, `the service sent the same nextPageToken twice while listing the reflection summary`);
    expect(fx.emu.log.find('GET', '/api/v3/reflection-summary')).toHaveLength(2);
  });
});

describe('a server that ignores the token (test/helpers/hostile/server.ts answers the follow-up pages)', () => {
  let hostile: HostileServer;
  beforeAll(async () => {
    hostile = await startHostileServer(fx.emu.url);
    const login = await fx.run(
      ['login', '-u', ADMIN.name, '--password-stdin', '-p', 'hostile', '--url', hostile.url],
      {
        input: `${ADMIN.password}\n`,
      },
    );
    expect(login.code).toBe(0);
  });
  afterAll(() => hostile.close());

  it.each([
    ['identical-pages', 'the service sent the same page twice while listing GET /api/v3/user'],
    // Its cycle comes round with the same page: the page is refused first.
    ['cycle-tokens', 'the service sent the same page twice while listing GET /api/v3/user'],
    ['repeat-token', 'the service sent the same nextPageToken twice while listing GET /api/v3/user'],
  ] as const)('%s: exit 7 after one repeat, nothing printed', async (how, message) => {
    hostile.reset({ rule: { kind: 'pages', how }, reach: { from: 0, times: 'all' } });
    const r = await fx.run(['user', 'list', '-p', 'hostile'], { url: false });
    expectFailure(r, 7, message);
    expect(hostile.exchanges.filter((e) => e.path.startsWith('/api/v3/user')).length).toBeLessThanOrEqual(3);
  });

  it('a results page that repeats the one before (the server ignores offset): exit 7, no file', async () => {
    hostile.reset();
    const id = (
      await fx.run(['sql', 'SELECT * FROM big', '--no-wait', '-p', 'hostile'], { url: false })
    ).stdout.trim();
    expect((await fx.run(['job', 'wait', id, '-p', 'hostile'], { url: false })).code).toBe(0);
    hostile.reset({ rule: { kind: 'pages', how: 'ignore-offset' }, reach: { from: 0, times: 'all' } });
    const out = join(mkdtempSync(join(tmpdir(), 'dlake-offset-')), 'rows.csv');
    for (const args of [
      ['job', 'export', id, '--out', out],
      ['job', 'export', id, '--out', `${out}.json`],
    ]) {
      const r = await fx.run([...args, '-p', 'hostile'], { url: false });
      expectFailure(r, 7, 'with the rows of offset 0: it ignores offset');
    }
    expect(existsSync(out)).toBe(false);
  });

  it('a constant result (every row alike) repeats its page by nature: taken whole', async () => {
    hostile.reset();
    const id = (
      await fx.run(['sql', 'SELECT 1 AS one FROM big', '--no-wait', '-p', 'hostile'], { url: false })
    ).stdout.trim();
    expect((await fx.run(['job', 'wait', id, '-p', 'hostile'], { url: false })).code).toBe(0);
    hostile.reset({ rule: { kind: 'pages', how: 'ignore-offset' }, reach: { from: 0, times: 'all' } });
    const r = await fx.run(['job', 'results', id, '--all', '-o', 'csv', '-p', 'hostile'], { url: false });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(1001);
  });

  it('api --paginate of an answer nested 200,000 deep: exit 7 naming the depth, never a crash', async () => {
    hostile.reset({ rule: { kind: 'nesting', depth: 200_000 }, reach: { from: 0, times: 'all' } });
    const r = await fx.run(['api', 'GET', '/api/v3/user', '--paginate', '-p', 'hostile'], { url: false });
    expectFailure(r, 7, 'the answer to GET /api/v3/user is nested 200,001 levels deep');
  });

  it("api's answer that is not JSON, on a terminal: its control characters shown, never acted on", async () => {
    hostile.reset({ rule: { kind: 'garbage', what: 'bytes' }, reach: { from: 0, times: 'all' } });
    const env = { DLAKE_CONFIG_DIR: fx.configDir };
    const r = await runInProcess(['api', 'GET', '/api/v3/catalog', '-p', 'hostile'], { env, tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(r.stdout).toContain('␇');
  });

  it('an empty page ends the listing, whatever token it carries', async () => {
    hostile.reset({ rule: { kind: 'pages', how: 'empty-with-token' }, reach: { from: 0, times: 'all' } });
    const r = await fx.run(['user', 'list', '-p', 'hostile', '-o', 'json'], { url: false });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
    expect(hostile.exchanges).toHaveLength(1);
  });
});
