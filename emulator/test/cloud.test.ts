// The hosted edition (docs/api-facts.md §13): its roots, Bearer-only auth, projects, engines and engine rules,
// and the published per-IP limits, lowered here so that the 429 comes after a few requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../src/server.js';
import { call } from './call.js';

const PID = '11111111-2222-4333-8444-555555555555';
let emu: Emulator;
let admin: string;
let analyst: string;

const pat = (name: string): string => {
  const user = emu.state.userByName(name)!;
  return `Bearer ${emu.state.issueToken(user.id, 'pat', 3_600_000).token}`;
};

beforeAll(async () => {
  emu = await startEmulator({
    edition: 'cloud',
    cloud: { projectId: PID, rateLimits: { status: 3 }, rateWindowMs: 60_000 },
  });
  admin = pat('admin');
  analyst = pat('analyst');
});
afterAll(() => emu.close());

describe('roots', () => {
  it('serves the project catalog below /v0/projects/{id} and 404s the self-hosted roots', async () => {
    const r = await call(emu, 'GET', `/v0/projects/${PID}/catalog`, { auth: admin });
    expect(r.status).toBe(200);
    expect(r.json.data.some((e: { path: string[] }) => e.path[0] === 'Samples' || e.path[0])).toBe(true);
    expect((await call(emu, 'GET', '/api/v3/catalog', { auth: admin })).status).toBe(404);
    expect((await call(emu, 'POST', '/apiv2/login', { json: { userName: 'admin' } })).status).toBe(404);
    expect((await call(emu, 'GET', `/v0/projects/${PID}/wlm/queue`, { auth: admin })).status).toBe(404);
  });

  it('names an unknown project', async () => {
    const r = await call(emu, 'GET', '/v0/projects/99999999-2222-4333-8444-555555555555/catalog', {
      auth: admin,
    });
    expect(r.status).toBe(404);
    expect(r.json.errorMessage).toBe('Project [99999999-2222-4333-8444-555555555555] not found.');
  });

  it('takes Bearer only: no token, or the _service form, is 401', async () => {
    expect((await call(emu, 'GET', '/v0/projects')).status).toBe(401);
    const token = admin.slice('Bearer '.length);
    expect((await call(emu, 'GET', '/v0/projects', { auth: `_service${token}` })).status).toBe(401);
  });

  it('lists projects and serves users and roles at the organisation level', async () => {
    const projects = await call(emu, 'GET', '/v0/projects', { auth: analyst });
    expect(projects.json).toEqual([expect.objectContaining({ id: PID, state: 'ACTIVE' })]);
    // The documented organisation paths (docs/api-facts.md §13.7), and the vendor CLI's lookup by name.
    const users = await call(emu, 'GET', '/v0/users', { auth: admin });
    expect(users.json.data.map((u: { name: string }) => u.name)).toContain('analyst');
    const user = await call(emu, 'GET', '/v1/users/name/analyst', { auth: admin });
    expect(user.json.name).toBe('analyst');
    expect((await call(emu, 'GET', '/v0/roles', { auth: admin })).status).toBe(200);
    // The self-hosted API's singular forms are not the hosted edition's.
    expect((await call(emu, 'GET', '/v0/user/by-name/analyst', { auth: admin })).status).toBe(404);
  });

  it('has no spaces', async () => {
    const r = await call(emu, 'POST', `/v0/projects/${PID}/catalog`, {
      auth: admin,
      json: { entityType: 'space', name: 'Sales' },
    });
    expect(r.status).toBe(400);
  });
});

describe('engines and rules', () => {
  const base = `/v0/projects/${PID}`;
  it('creates, updates, disables and deletes an engine; analysts cannot', async () => {
    expect(
      (await call(emu, 'POST', `${base}/engines`, { auth: analyst, json: { name: 'etl' } })).status,
    ).toBe(403);
    const created = await call(emu, 'POST', `${base}/engines`, {
      auth: admin,
      json: { name: 'etl', size: 'MEDIUM_V1', maxReplicas: 4 },
    });
    expect(created.status).toBe(200);
    const id = created.json.id as string;
    const put = await call(emu, 'PUT', `${base}/engines/${id}`, { auth: admin, json: { maxConcurrency: 8 } });
    expect(put.json).toMatchObject({ name: 'etl', size: 'MEDIUM_V1', maxReplicas: 4, maxConcurrency: 8 });
    await call(emu, 'PUT', `${base}/engines/${id}/disable`, { auth: admin });
    expect(emu.cloud!.engines.get(id)!.state).toBe('DISABLED');
    expect((await call(emu, 'DELETE', `${base}/engines/${id}`, { auth: admin })).status).toBe(204);
    expect(emu.cloud!.engines.has(id)).toBe(false);
  });

  it('replaces the rule set, checking its tag and the engines it routes to', async () => {
    const { ruleSet } = (await call(emu, 'GET', `${base}/rules`, { auth: admin })).json;
    const bad = await call(emu, 'PUT', `${base}/rules`, {
      auth: admin,
      json: { ruleSet: { ...ruleSet, ruleInfos: [{ name: 'x', condition: '1=1', engineName: 'nope' }] } },
    });
    expect(bad.status).toBe(400);
    const good = await call(emu, 'PUT', `${base}/rules`, {
      auth: admin,
      json: {
        ruleSet: {
          ...ruleSet,
          ruleInfos: [
            { name: 'ui', condition: "query_type() = 'UI Run'", engineName: 'default', action: 'ROUTE' },
          ],
        },
      },
    });
    expect(good.status).toBe(200);
    const stale = await call(emu, 'PUT', `${base}/rules`, { auth: admin, json: { ruleSet } });
    expect(stale.status).toBe(409);
  });
});

describe('rate limits', () => {
  it('answers 429 with Retry-After past the job-status limit, and counts it', async () => {
    const job = await call(emu, 'POST', `/v0/projects/${PID}/sql`, {
      auth: admin,
      json: { sql: 'SELECT 1' },
    });
    const path = `/v0/projects/${PID}/job/${job.json.id}`;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await call(emu, 'GET', path, { auth: admin })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const last = await call(emu, 'GET', path, { auth: admin });
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(emu.cloud!.limiter.refused.status).toBe(2);
  });
});
