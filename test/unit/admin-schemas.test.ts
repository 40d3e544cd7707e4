// The admin surface's answers (roles, grants, lineage) follow the tolerance policy of the response schemas
// (docs/api-facts.md, "Response schemas: the tolerance policy"): numbers where the spec shows strings, counts
// written as strings, and null where the spec shows a value are all accepted.
import { describe, expect, it } from 'vitest';
import { getGrants, getLineage } from '../../src/api/grants.js';
import type { ApiClient } from '../../src/api/http.js';
import { listRoles } from '../../src/api/roles.js';
import { mockClient, useMockAgent } from '../helpers/mock-agent.js';

const BASE = 'http://svc.test';
const json = { headers: { 'content-type': 'application/json' } };
const mockAgent = useMockAgent();

const client = (): ApiClient => mockClient(mockAgent(), BASE, 'Bearer t');

describe('admin answers with the type variants real servers send', () => {
  it('roles: a numeric id, a count as text, null description and type', async () => {
    mockAgent()
      .get(BASE)
      .intercept({ path: '/api/v3/role', method: 'GET' })
      .reply(
        200,
        { data: [{ id: 42, name: 'analysts', type: null, description: null, memberCount: '3' }] },
        json,
      );
    const [role] = await listRoles(client());
    expect(role).toMatchObject({ id: '42', name: 'analysts', memberCount: 3 });
    expect(role!.description).toBeUndefined();
    expect(role!.type).toBeUndefined();
  });

  it('grants and lineage: numeric ids and null names', async () => {
    const id = 'c0a80101-0000-4000-8000-000000000001';
    mockAgent()
      .get(BASE)
      .intercept({ path: `/api/v3/catalog/${id}/grants`, method: 'GET' })
      .reply(
        200,
        { id: null, grants: [{ granteeType: 'USER', id: 7, name: null, privileges: ['SELECT'] }] },
        json,
      );
    const grants = await getGrants(client(), id);
    expect(grants.grants[0]).toMatchObject({ id: '7', privileges: ['SELECT'] });
    mockAgent()
      .get(BASE)
      .intercept({ path: `/api/v3/catalog/${id}/graph`, method: 'GET' })
      .reply(200, { parents: [{ id: 9, path: ['a', 'b'], type: null }], children: [] }, json);
    const lineage = await getLineage(client(), id);
    expect(lineage.parents?.[0]).toMatchObject({ id: '9', path: ['a', 'b'] });
  });
});
