// A 404 for a missing entity reads alike whatever the endpoint, the edition and the server's words: the wording
// comes from the request's target (api/endpoint.ts), never from its path. A 404 that says something else (a
// refused change, an endpoint this server lacks) keeps its own words.
import { describe, expect, it } from 'vitest';
import { entityById, entityByPath } from '../../src/api/catalog.js';
import { below, organisationResource, type Target, v3 } from '../../src/api/endpoint.js';
import { errorFromResponse } from '../../src/api/errors.js';
import { NotFoundError } from '../../src/errors.js';

const answer = (target: Target, endpoint: string, errorMessage?: string) =>
  errorFromResponse({
    status: 404,
    endpoint,
    target,
    contentType: 'application/json',
    text: errorMessage === undefined ? '' : JSON.stringify({ errorMessage, moreInfo: '' }),
  });

const userByName = (name: string) => organisationResource('user', { name }, encodeURIComponent(name));
const job = (id: string) => v3('job', `job/${id}`, { key: { id }, limit: 'status' });

describe('a 404', () => {
  it('for a missing entity: "not found: …", the service words as moreInfo, and where to look', () => {
    const err = answer(
      entityByPath(['Sales', 'a/b', 'x']),
      'GET /api/v3/catalog/by-path/Sales/a%2Fb/x',
      'Could not find entity',
    );
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.message).toBe('not found: Sales/"a/b"/x');
    expect(err.moreInfo).toBe('Could not find entity');
    expect(err.hint).toEqual({ kind: 'list-entities', list: 'catalog', parent: ['Sales', 'a/b'] });
    expect(answer(userByName('bob'), 'DELETE /api/v3/user/by-name/bob', "User 'bob' not found").message).toBe(
      'not found: user "bob"',
    );
    const queue = v3('queue', 'wlm/queue/q-1', { key: { id: 'q-1' } });
    expect(answer(queue, 'GET /api/v3/wlm/queue/q-1', 'Queue [q-1] not found.').message).toBe(
      'not found: queue q-1',
    );
    const cancel = below(job('j-1'), 'cancel', { key: { id: 'j-1' }, limit: 'cancel' });
    expect(answer(cancel, 'POST /api/v3/job/j-1/cancel', 'Could not find a job with id [j-1]').message).toBe(
      'not found: job j-1',
    );
  });

  it('reads the same on the hosted edition, whose paths the wording never looks at', () => {
    const selfHosted = answer(userByName('bob'), 'GET /api/v3/user/by-name/bob', "User 'bob' not found");
    const hosted = answer(userByName('bob'), 'GET /v0/users', 'user "bob" not found');
    expect(hosted.message).toBe(selfHosted.message);
    expect(hosted.hint).toEqual(selfHosted.hint);
    const entity = answer(
      entityById('abc'),
      'GET /v0/projects/p/catalog/abc',
      'Could not find entity with id [abc]',
    );
    expect(entity.message).toBe('not found: catalog entity abc');
  });

  it('that refuses a change, or names something under the entity, keeps the service words', () => {
    expect(answer(entityById('abc'), 'PUT /api/v3/catalog/abc', 'Space name is immutable.').message).toBe(
      'Space name is immutable.',
    );
    const token = v3('pat', 'user/u-1/token/t-1', { scope: 'organisation' });
    expect(answer(token, 'DELETE /api/v3/user/u-1/token/t-1', 'Token not found').message).toBe(
      'Token not found',
    );
  });

  it('of an endpoint this server lacks keeps the generic words the edition check reads', () => {
    const role = organisationResource('role', { name: 'x' }, 'x');
    expect(answer(role, 'GET /api/v3/role/by-name/x', 'HTTP 404 Not Found').message).toBe(
      'HTTP 404 Not Found',
    );
    expect(answer(role, 'GET /api/v3/role/by-name/x').message).toBe(
      'not found (404): GET /api/v3/role/by-name/x',
    );
  });
});
