// The emulator's grants on catalog entities: a user or role deleted takes its grants with it, as on the service
// (docs/api-facts.md §5.13), so the list a client reads and writes back (the PUT replaces them all) never names a
// grantee that is gone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../src/server.js';
import { type Reply, call as request } from './call.js';

const call = (method: string, path: string, json?: unknown): Promise<Reply> =>
  request(emu, method, path, { auth: admin, json });

let emu: Emulator;
let admin: string;

beforeAll(async () => {
  emu = await startEmulator();
  const r = await request(emu, 'POST', '/apiv2/login', {
    json: { userName: 'admin', password: 'admin-pass-1' },
  });
  admin = `_service${r.json.token}`;
});
afterAll(() => emu.close());

const newSpace = async (name: string): Promise<string> =>
  (await call('POST', '/api/v3/catalog', { entityType: 'space', name })).json.id;

const grantees = async (space: string): Promise<string[]> => {
  const r = await call('GET', `/api/v3/catalog/${space}/grants`);
  expect(r.status).toBe(200);
  return r.json.grants.map((g: { granteeType: string; name: string }) => `${g.granteeType}:${g.name}`);
};

describe('grants of a grantee deleted', () => {
  it('a deleted user holds none, and the list read back can be written again', async () => {
    const space = await newSpace('Sales');
    const user = (await call('POST', '/api/v3/user', { name: 'erin', password: 'erin-pass-1' })).json;
    const grant = (id: string, granteeType = 'USER') => ({ granteeType, id, privileges: ['SELECT'] });
    const analysts = (await call('GET', '/api/v3/role/by-name/analysts')).json.id;
    expect(
      (
        await call('PUT', `/api/v3/catalog/${space}/grants`, {
          grants: [grant(user.id), grant(analysts, 'ROLE')],
        })
      ).status,
    ).toBe(204);
    expect(await grantees(space)).toEqual(['USER:erin', 'ROLE:analysts']);

    const deleted = await call('DELETE', `/api/v3/user/${user.id}?version=${encodeURIComponent(user.tag)}`);
    expect(deleted.status).toBe(204);
    expect(await grantees(space)).toEqual(['ROLE:analysts']);
    // A client's read-merge-write: what it read, and one grant more.
    const read = (await call('GET', `/api/v3/catalog/${space}/grants`)).json.grants;
    const again = await call('PUT', `/api/v3/catalog/${space}/grants`, {
      grants: [...read, grant(emu.state.userByName('analyst')!.id)],
    });
    expect(again.status, again.text).toBe(204);
    expect(await grantees(space)).toEqual(['ROLE:analysts', 'USER:analyst']);
  });

  it('a deleted role holds none', async () => {
    const space = await newSpace('Finance');
    const role = (await call('POST', '/api/v3/role', { name: 'auditors' })).json;
    const put = await call('PUT', `/api/v3/catalog/${space}/grants`, {
      grants: [{ granteeType: 'ROLE', id: role.id, privileges: ['SELECT'] }],
    });
    expect(put.status).toBe(204);
    expect(await grantees(space)).toEqual(['ROLE:auditors']);
    expect((await call('DELETE', `/api/v3/role/${role.id}`)).status).toBe(204);
    expect(await grantees(space)).toEqual([]);
  });
});
