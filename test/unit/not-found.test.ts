// A 404 for a missing entity reads alike whatever the endpoint and the server's words; a 404 that says
// something else (a refused change, an endpoint this server lacks) keeps its own words.
import { describe, expect, it } from 'vitest';
import { errorFromResponse } from '../../src/api/errors.js';
import { NotFoundError } from '../../src/errors.js';

const answer = (method: string, path: string, errorMessage?: string) =>
  errorFromResponse({
    status: 404,
    method,
    path,
    contentType: 'application/json',
    text: errorMessage === undefined ? '' : JSON.stringify({ errorMessage, moreInfo: '' }),
  });

describe('a 404', () => {
  it('for a missing entity: "not found: …", the service words as moreInfo, and where to look', () => {
    const err = answer(
      'GET',
      '/api/v3/catalog/by-path/Sales/a%2Fb/x?exclude=children',
      'Could not find entity',
    );
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.message).toBe('not found: Sales/"a/b"/x');
    expect(err.moreInfo).toBe('Could not find entity');
    expect(err.hint).toEqual({ kind: 'list-entities', list: 'catalog', parent: ['Sales', 'a/b'] });
    expect(answer('DELETE', '/api/v3/user/by-name/bob', "User 'bob' not found").message).toBe(
      'not found: user "bob"',
    );
    expect(answer('GET', '/api/v3/wlm/queue/q-1', 'Queue [q-1] not found.').message).toBe(
      'not found: queue q-1',
    );
    expect(answer('POST', '/api/v3/job/j-1/cancel', 'Could not find a job with id [j-1]').message).toBe(
      'not found: job j-1',
    );
  });

  it('that refuses a change, or names something under the entity, keeps the service words', () => {
    expect(answer('PUT', '/api/v3/catalog/abc', 'Space name is immutable.').message).toBe(
      'Space name is immutable.',
    );
    expect(answer('DELETE', '/api/v3/user/u-1/token/t-1', 'Token not found').message).toBe('Token not found');
  });

  it('of an endpoint this server lacks keeps the generic words the edition check reads', () => {
    expect(answer('GET', '/api/v3/role/by-name/x', 'HTTP 404 Not Found').message).toBe('HTTP 404 Not Found');
    expect(answer('GET', '/api/v3/role/by-name/x').message).toBe(
      'not found (404): GET /api/v3/role/by-name/x',
    );
  });
});
