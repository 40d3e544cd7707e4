// The emulator's administration area: users, roles, PATs, queues and rules, the reflection summary, and what
// the community edition answers instead.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ROLE_ID, PUBLIC_ROLE_ID } from '../src/admin.js';
import { type Emulator, startEmulator } from '../src/server.js';
import { type Reply, call as request } from './call.js';

const DAY_MS = 24 * 3_600_000;

const call = (emu: Emulator, method: string, path: string, auth?: string, json?: unknown): Promise<Reply> =>
  request(emu, method, path, { auth, json });

async function loginAs(emu: Emulator, userName: string, password: string): Promise<string> {
  const r = await call(emu, 'POST', '/apiv2/login', undefined, { userName, password });
  expect(r.status).toBe(200);
  return `_service${r.json.token}`;
}

let emu: Emulator;
let admin: string;
let analyst: string;
const id = (name: string): string => emu.state.userByName(name)!.id;

beforeAll(async () => {
  emu = await startEmulator();
  admin = await loginAs(emu, 'admin', 'admin-pass-1');
  analyst = await loginAs(emu, 'analyst', 'analyst-pass-1');
});
afterAll(async () => {
  await emu.close();
});

describe('users', () => {
  it('creates a user with PUBLIC plus the requested roles', async () => {
    const r = await call(emu, 'POST', '/api/v3/user', admin, {
      name: 'alice',
      firstName: 'Alice',
      email: 'alice@example.com',
      roles: [{ name: 'analysts' }, { id: ADMIN_ROLE_ID }],
      password: 'alice-pass-1',
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      '@type': 'EnterpriseUser',
      name: 'alice',
      firstName: 'Alice',
      source: 'local',
      active: true,
      identityType: 'REGULAR_USER',
    });
    expect(r.json.lastName).toBeUndefined();
    expect(r.json.roles.map((x: { name: string }) => x.name)).toEqual(['PUBLIC', 'analysts', 'ADMIN']);
    expect(r.json.roles[0]).toEqual({ id: PUBLIC_ROLE_ID, name: 'PUBLIC', type: 'SYSTEM' });
    expect(r.json.roles[1].type).toBe('INTERNAL');
    // The new user can log in and, holding ADMIN, is an admin.
    const login = await call(emu, 'POST', '/apiv2/login', undefined, {
      userName: 'alice',
      password: 'alice-pass-1',
    });
    expect(login.json.admin).toBe(true);
  });

  it('refuses duplicates, unknown roles, bad bodies and non-admins', async () => {
    const dup = await call(emu, 'POST', '/api/v3/user', admin, { name: 'ANALYST' });
    expect(dup.status).toBe(409);
    expect(dup.json.errorMessage).toBe("User 'ANALYST' already exists");
    const role = await call(emu, 'POST', '/api/v3/user', admin, { name: 'bob', roles: [{ name: 'nope' }] });
    expect(role.status).toBe(400);
    expect((await call(emu, 'POST', '/api/v3/user', admin, { firstName: 'x' })).status).toBe(400);
    const forbidden = await call(emu, 'POST', '/api/v3/user', analyst, { name: 'bob' });
    expect(forbidden.status).toBe(403);
    expect(forbidden.json).toEqual({ errorMessage: 'User not authorized.', moreInfo: '' });
    const anonymous = await call(emu, 'POST', '/api/v3/user', undefined, { name: 'bob' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.text).toBe('');
  });

  it('creates service users with an OAuth client id', async () => {
    const r = await call(emu, 'POST', '/api/v3/user', admin, {
      name: 'svc-etl',
      identityType: 'SERVICE_USER',
    });
    expect(r.status).toBe(200);
    expect(r.json.identityType).toBe('SERVICE_USER');
    expect(typeof r.json.oauthClientId).toBe('string');
  });

  it('gets users by id and by name', async () => {
    const byId = await call(emu, 'GET', `/api/v3/user/${id('analyst')}`, analyst);
    expect(byId.status).toBe(200);
    expect(byId.json.name).toBe('analyst');
    const missing = await call(emu, 'GET', '/api/v3/user/0000', analyst);
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ errorMessage: "User with given id '0000' not found", moreInfo: '' });

    const byName = await call(emu, 'GET', '/api/v3/user/by-name/ADMIN', analyst);
    expect(byName.status).toBe(200);
    expect(Object.keys(byName.json).sort()).toEqual([
      'active',
      'email',
      'firstName',
      'id',
      'lastName',
      'name',
      'tag',
    ]);
    const noName = await call(emu, 'GET', '/api/v3/user/by-name/no%20body', analyst);
    expect(noName.status).toBe(404);
    expect(noName.json).toEqual({ errorMessage: "User 'no body' not found", moreInfo: '', stackTrace: [] });
  });

  it('lists users with a filter', async () => {
    const all = await call(emu, 'GET', '/api/v3/user', admin);
    expect(all.json.totalResults).toBe(all.json.data.length);
    const one = await call(emu, 'GET', `/api/v3/user?filter=${encodeURIComponent("name=='analyst'")}`, admin);
    expect(one.json).toMatchObject({ totalResults: 1, data: [{ name: 'analyst' }] });
    expect((await call(emu, 'GET', '/api/v3/user?filter=garbage', admin)).status).toBe(400);
  });

  it('updates with tag checks, keeps PUBLIC and refuses renames', async () => {
    const created = await call(emu, 'POST', '/api/v3/user', admin, {
      name: 'carol',
      roles: [{ name: 'analysts' }],
    });
    const u = created.json;
    const rename = await call(emu, 'PUT', `/api/v3/user/${u.id}`, admin, {
      id: u.id,
      tag: u.tag,
      name: 'caroline',
    });
    expect(rename.status).toBe(415);
    expect(rename.json.errorMessage).toBe('Changing of user name is not supported');

    const r = await call(emu, 'PUT', `/api/v3/user/${u.id}`, admin, {
      id: u.id,
      tag: u.tag,
      name: 'carol',
      lastName: 'C',
    });
    expect(r.status).toBe(200);
    expect(r.json.tag).not.toBe(u.tag);
    expect(r.json.lastName).toBe('C');
    expect(r.json.roles.map((x: { name: string }) => x.name)).toEqual(['PUBLIC']);

    const stale = await call(emu, 'PUT', `/api/v3/user/${u.id}`, admin, {
      id: u.id,
      tag: u.tag,
      name: 'carol',
    });
    expect(stale.status).toBe(409);
    expect(stale.json).toEqual({ errorMessage: `Tried to update version ${u.tag}, found tag ${r.json.tag}` });
    expect((await call(emu, 'PUT', `/api/v3/user/${u.id}`, admin, { id: u.id, name: 'carol' })).status).toBe(
      400,
    );
  });

  it('deletes with version checks, never a logged-in user', async () => {
    const u = (await call(emu, 'POST', '/api/v3/user', admin, { name: 'dave', password: 'dave-pass-1' }))
      .json;
    const path = `/api/v3/user/${u.id}`;
    const noVersion = await call(emu, 'DELETE', path, admin);
    expect(noVersion.status).toBe(400);
    expect(noVersion.json.errorMessage).toBe('Missing Version Parameter');
    const stale = await call(emu, 'DELETE', `${path}?version=old`, admin);
    expect(stale.status).toBe(409);
    expect(stale.json.errorMessage).toBe(
      `Cannot delete user "dave", version provided "old" is different from version found "${u.tag}"`,
    );
    const self = await call(emu, 'DELETE', `/api/v3/user/${id('admin')}?version=x`, admin);
    expect(self.status).toBe(403);
    expect(self.json.errorMessage).toBe(
      'Deletion of the user account of currently logged in user is not allowed.',
    );

    const session = await loginAs(emu, 'dave', 'dave-pass-1');
    expect((await call(emu, 'DELETE', `${path}?version=${encodeURIComponent(u.tag)}`, admin)).status).toBe(
      403,
    );
    await call(emu, 'DELETE', '/apiv2/login', session);

    expect((await call(emu, 'DELETE', `${path}?version=${encodeURIComponent(u.tag)}`, analyst)).status).toBe(
      403,
    );
    const done = await call(emu, 'DELETE', `${path}?version=${encodeURIComponent(u.tag)}`, admin);
    expect(done.status).toBe(204);
    expect((await call(emu, 'GET', path, admin)).status).toBe(404);
  });
});

describe('roles', () => {
  it('lists, finds and creates roles', async () => {
    const list = await call(emu, 'GET', '/api/v3/role', analyst);
    expect(list.status).toBe(200);
    expect(list.json.data.map((r: { name: string }) => r.name)).toEqual(
      expect.arrayContaining(['PUBLIC', 'ADMIN', 'analysts']),
    );
    const byName = await call(emu, 'GET', '/api/v3/role/by-name/admin', analyst);
    expect(byName.json).toMatchObject({ id: ADMIN_ROLE_ID, name: 'ADMIN', type: 'SYSTEM' });
    expect((await call(emu, 'GET', `/api/v3/role/${PUBLIC_ROLE_ID}`, analyst)).json.name).toBe('PUBLIC');
    expect((await call(emu, 'GET', '/api/v3/role/nope', analyst)).status).toBe(404);

    const created = await call(emu, 'POST', '/api/v3/role', admin, { name: 'engineers', description: 'Eng' });
    expect(created.json).toMatchObject({
      name: 'engineers',
      type: 'INTERNAL',
      description: 'Eng',
      memberCount: 0,
    });
    expect((await call(emu, 'POST', '/api/v3/role', admin, { name: 'Engineers' })).status).toBe(400);
    expect((await call(emu, 'POST', '/api/v3/role', analyst, { name: 'x' })).status).toBe(403);
  });
});

describe('personal access tokens', () => {
  it('creates a PAT as text/plain that works as a Bearer token', async () => {
    const r = await call(emu, 'POST', `/api/v3/user/${id('analyst')}/token`, admin, {
      label: 'ci',
      millisecondsToExpire: 7 * DAY_MS,
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(r.text.length).toBeGreaterThan(20);
    const info = await call(emu, 'GET', '/api/v3/info', `Bearer ${r.text}`);
    expect(info.status).toBe(200);
    expect(emu.log.entries.at(-1)).toMatchObject({ user: 'analyst', tokenKind: 'pat', authScheme: 'Bearer' });

    // The owner lists it; ISO timestamps with milliseconds, a week apart.
    const list = await call(emu, 'GET', `/api/v3/user/${id('analyst')}/token`, analyst);
    expect(list.status).toBe(200);
    const pat = list.json.data.find((p: { label: string }) => p.label === 'ci');
    expect(pat).toMatchObject({ uid: id('analyst'), tid: expect.any(String) });
    expect(pat.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(pat.expiresAt) - Date.parse(pat.createdAt)).toBe(7 * DAY_MS);

    const del = await call(emu, 'DELETE', `/api/v3/user/${id('analyst')}/token/${pat.tid}`, analyst);
    expect(del.status).toBe(204);
    expect((await call(emu, 'GET', '/api/v3/info', `Bearer ${r.text}`)).status).toBe(401);
  });

  it('enforces who may list and create, and the lifetime bounds', async () => {
    const path = `/api/v3/user/${id('admin')}/token`;
    expect((await call(emu, 'GET', path, analyst)).status).toBe(403);
    expect((await call(emu, 'GET', path, admin)).status).toBe(200);
    expect((await call(emu, 'GET', '/api/v3/user/missing/token', admin)).status).toBe(404);
    const own = `/api/v3/user/${id('analyst')}/token`;
    expect((await call(emu, 'POST', own, analyst, { label: 'x', millisecondsToExpire: DAY_MS })).status).toBe(
      403,
    );
    expect(
      (await call(emu, 'POST', '/api/v3/user/missing/token', admin, { label: 'x', millisecondsToExpire: 1 }))
        .status,
    ).toBe(404);
    for (const ms of [181 * DAY_MS, 0, -5, '1000']) {
      expect((await call(emu, 'POST', path, admin, { label: 'x', millisecondsToExpire: ms })).status).toBe(
        400,
      );
    }
    expect(
      (await call(emu, 'POST', path, admin, { label: 'max', millisecondsToExpire: 180 * DAY_MS })).status,
    ).toBe(200);
  });

  it('answers 403 when PATs are disabled', async () => {
    const off = await startEmulator({ patsEnabled: false });
    try {
      const token = await loginAs(off, 'admin', 'admin-pass-1');
      const r = await call(off, 'GET', `/api/v3/user/${off.state.userByName('admin')!.id}/token`, token);
      expect(r.status).toBe(403);
      expect(r.json.errorMessage).toBe('Personal access tokens are disabled.');
    } finally {
      await off.close();
    }
  });
});

describe('workload queues and rules', () => {
  it('seeds a default queue and is admin-only', async () => {
    const list = await call(emu, 'GET', '/api/v3/wlm/queue', admin);
    expect(list.json.data).toEqual([
      expect.objectContaining({ name: 'default', cpuTier: 'MEDIUM', tag: '0' }),
    ]);
    const forbidden = await call(emu, 'GET', '/api/v3/wlm/queue', analyst);
    expect(forbidden.status).toBe(403);
    expect((await call(emu, 'GET', '/api/v3/wlm/queue')).text).toBe('');
  });

  it('creates, updates (full replace) and checks tags and names', async () => {
    const created = await call(emu, 'POST', '/api/v3/wlm/queue', admin, {
      name: 'etl',
      cpuTier: 'HIGH',
      maxAllowedRunningJobs: 5,
      maxRunTimeoutMs: 60_000,
    });
    expect(created.status).toBe(200);
    const q = created.json;
    expect(q).toMatchObject({ name: 'etl', tag: '0', cpuTier: 'HIGH', maxAllowedRunningJobs: 5 });
    expect((await call(emu, 'GET', `/api/v3/wlm/queue/by-name/etl`, admin)).json.id).toBe(q.id);

    const dup = await call(emu, 'POST', '/api/v3/wlm/queue', admin, { name: 'etl' });
    expect(dup.status).toBe(409);
    expect(dup.json.errorMessage).toBe('Queue with name [etl] already exists.');
    for (const bad of [
      { name: 'x', cpuTier: 'TURBO' },
      { name: 'x', maxRunTimeoutMs: -1 },
      { name: 'x', id: 'a' },
      {},
    ]) {
      expect((await call(emu, 'POST', '/api/v3/wlm/queue', admin, bad)).status).toBe(400);
    }
    const neg = await call(emu, 'POST', '/api/v3/wlm/queue', admin, {
      name: 'x',
      maxAllowedRunningJobs: 'many',
    });
    expect(neg.json.errorMessage).toBe('Invalid value found at: maxAllowedRunningJobs');

    const updated = await call(emu, 'PUT', `/api/v3/wlm/queue/${q.id}`, admin, {
      id: q.id,
      tag: '0',
      name: 'etl-2',
    });
    expect(updated.status).toBe(200);
    expect(updated.json).toEqual({ id: q.id, tag: '1', name: 'etl-2', cpuTier: 'MEDIUM' });
    const stale = await call(emu, 'PUT', `/api/v3/wlm/queue/${q.id}`, admin, { tag: '0', name: 'etl-2' });
    expect(stale.status).toBe(409);
    expect(stale.json.errorMessage).toBe('Queue [etl-2] has been modified (current tag: 1, given: 0)');
    const clash = await call(emu, 'PUT', `/api/v3/wlm/queue/${q.id}`, admin, { tag: '1', name: 'default' });
    expect(clash.status).toBe(409);
    expect((await call(emu, 'PUT', '/api/v3/wlm/queue/nope', admin, { tag: '0', name: 'z' })).status).toBe(
      404,
    );
  });

  it('refuses to delete a queue that rules use, then deletes with 200 and no body', async () => {
    const q = (await call(emu, 'POST', '/api/v3/wlm/queue', admin, { name: 'adhoc' })).json;
    const rules = (await call(emu, 'GET', '/api/v3/wlm/rule', admin)).json;
    expect(rules.defaultRule).toMatchObject({ action: 'PLACE', acceptName: 'default' });

    const put = await call(emu, 'PUT', '/api/v3/wlm/rule', admin, {
      tag: rules.tag,
      rules: [
        { name: 'adhoc users', conditions: "USER in ('analyst')", action: 'PLACE', acceptName: 'adhoc' },
      ],
      defaultRule: rules.defaultRule,
    });
    expect(put.status).toBe(200);
    expect(put.json.tag).not.toBe(rules.tag);
    expect(put.json.rules[0]).toMatchObject({ id: expect.any(String), acceptId: q.id, acceptName: 'adhoc' });
    const stale = await call(emu, 'PUT', '/api/v3/wlm/rule', admin, { ...rules, rules: [] });
    expect(stale.status).toBe(409);

    const refused = await call(emu, 'DELETE', `/api/v3/wlm/queue/${q.id}`, admin);
    expect(refused.status).toBe(400);
    expect(refused.json.errorMessage).toBe('Queue [adhoc] still has rules referencing it.');

    await call(emu, 'PUT', '/api/v3/wlm/rule', admin, {
      tag: put.json.tag,
      rules: [],
      defaultRule: rules.defaultRule,
    });
    const done = await call(emu, 'DELETE', `/api/v3/wlm/queue/${q.id}`, admin);
    expect(done.status).toBe(200);
    expect(done.text).toBe('');
    expect((await call(emu, 'DELETE', `/api/v3/wlm/queue/${q.id}`, admin)).status).toBe(404);
  });
});

describe('reflection summary', () => {
  const summary = (query: string) => call(emu, 'GET', `/api/v3/reflection-summary${query}`, analyst);

  it('pages 50 at a time through all reflections', async () => {
    const ids = new Set<string>();
    let token: string | undefined;
    let pages = 0;
    do {
      const r = await summary(token ? `?pageToken=${token}` : '');
      expect(r.status).toBe(200);
      expect(r.json.canAlterReflections).toBe(true);
      expect(r.json.data.length).toBeLessThanOrEqual(50);
      for (const item of r.json.data) ids.add(item.id);
      token = r.json.nextPageToken;
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(ids.size).toBe(120);
  });

  it('filters, orders and remembers the filter in the page token', async () => {
    const filter = encodeURIComponent(JSON.stringify({ reflectionType: ['AGGREGATION'] }));
    const first = await summary(`?maxResults=30&filter=${filter}&orderBy=-reflectionName`);
    expect(first.json.data).toHaveLength(30);
    expect(first.json.data.every((r: { reflectionType: string }) => r.reflectionType === 'AGGREGATION')).toBe(
      true,
    );
    const names = first.json.data.map((r: { name: string }) => r.name);
    expect(names).toEqual([...names].sort().reverse());
    const second = await summary(`?maxResults=30&pageToken=${first.json.nextPageToken}`);
    expect(second.json.data).toHaveLength(10);
    expect(second.json.nextPageToken).toBeUndefined();

    const other = encodeURIComponent(JSON.stringify({ reflectionType: ['RAW'] }));
    const changed = await summary(`?filter=${other}&pageToken=${first.json.nextPageToken}`);
    expect(changed.status).toBe(400);
    expect(changed.json.errorMessage).toBe('Invalid page token');

    const search = encodeURIComponent(
      JSON.stringify({ reflectionNameOrDatasetPath: 'MARKETING.CURATED', enabledFlag: true }),
    );
    const found = await summary(`?filter=${search}&maxResults=100`);
    expect(found.json.data.length).toBeGreaterThan(0);
    for (const r of found.json.data) {
      expect(r.datasetPath.join('.')).toMatch(/^Marketing\.curated/);
      expect(r.isEnabled).toBe(true);
    }
  });

  it('refuses bad parameters', async () => {
    expect((await summary('?maxResults=101')).status).toBe(400);
    expect((await summary('?maxResults=0')).status).toBe(400);
    expect((await summary('?orderBy=size')).status).toBe(400);
    expect((await summary('?filter=%7Bnot-json')).status).toBe(400);
    expect((await summary('?pageToken=garbage')).status).toBe(400);
    expect((await call(emu, 'GET', '/api/v3/reflection-summary')).status).toBe(401);
  });
});

describe('community edition', () => {
  let community: Emulator;
  let token: string;
  beforeAll(async () => {
    community = await startEmulator({ edition: 'community' });
    token = await loginAs(community, 'admin', 'admin-pass-1');
  });
  afterAll(async () => {
    await community.close();
  });

  it('serves users the OSS way', async () => {
    const adminId = community.state.userByName('admin')!.id;
    const u = await call(community, 'GET', `/api/v3/user/${adminId}`, token);
    expect(u.status).toBe(200);
    expect(u.json['@type']).toBe('User');
    expect(u.json.roles).toBeUndefined();
    expect((await call(community, 'GET', '/api/v3/user/by-name/analyst', token)).status).toBe(200);
    const dup = await call(community, 'POST', '/api/v3/user', token, {
      name: 'analyst',
      password: 'abcdefg1',
    });
    expect(dup.status).toBe(400);
    expect(dup.json.errorMessage).toBe("User 'analyst' already exists");
    expect((await call(community, 'POST', '/api/v3/user', token, { name: 'nopass' })).status).toBe(400);
    const del = await call(community, 'DELETE', `/api/v3/user/${adminId}?version=x`, token);
    expect(del.status).toBe(405);
    expect(del.json).toEqual({ errorMessage: 'HTTP 405 Method Not Allowed', moreInfo: '' });
  });

  it('has no PAT, role, queue, rule or reflection-summary endpoints', async () => {
    const adminId = community.state.userByName('admin')!.id;
    for (const path of [
      `/api/v3/user/${adminId}/token`,
      '/api/v3/role',
      '/api/v3/wlm/queue',
      '/api/v3/wlm/rule',
      '/api/v3/reflection-summary',
    ]) {
      const r = await call(community, 'GET', path, token);
      expect(r.status, path).toBe(404);
      expect(r.json).toEqual({ errorMessage: 'HTTP 404 Not Found', moreInfo: '' });
    }
  });
});
