// The catalog and source API layer against undici's MockAgent: URLs of ids and awkward paths, children paging,
// the stale-tag conflict, the bounded tree walk, and the secret merge of source updates.

import { describe, expect, it } from 'vitest';
import * as catalog from '../../src/api/catalog.js';
import type { Target } from '../../src/api/endpoint.js';
import type { ApiClient } from '../../src/api/http.js';
import type { CatalogSummary } from '../../src/api/schemas/catalog.js';
import { getSourceType } from '../../src/api/source-types.js';
import { mergeSourceConfig as mergeConfig, sourceUpdateBody } from '../../src/api/sources.js';
import { ConflictError, type DlakeError, ServiceError, UsageError } from '../../src/errors.js';
import { applySetPairs } from '../../src/util/config-pairs.js';
import { mockClient, useMockAgent } from '../helpers/mock-agent.js';

/** `source update`'s merge: the file's fields, then the --set pairs. */
const mergeSourceConfig = (
  type: string,
  current: Record<string, unknown>,
  patch: Record<string, unknown>,
  sets: string[] = [],
) => {
  const kept = mergeConfig(type, current, patch);
  return applySetPairs(getSourceType(type), kept, sets);
};

const BASE = 'http://svc.test';
const PLACEHOLDER = '$SERVICE_EXISTING_VALUE$';
const json = { headers: { 'content-type': 'application/json' } };

const mockAgent = useMockAgent();

const client = (): ApiClient => mockClient(mockAgent(), BASE, '_servicetoken');

const pool = () => mockAgent().get(BASE);

async function fails(p: Promise<unknown>): Promise<DlakeError> {
  try {
    await p;
  } catch (e) {
    return e as DlakeError;
  }
  throw new Error('expected a failure');
}

const folder = (path: string[], extra: Record<string, unknown> = {}) => ({
  entityType: 'folder',
  id: `id-${path.join('-')}`,
  path,
  tag: 't1',
  ...extra,
});
const item = (path: string[], type = 'DATASET'): CatalogSummary => ({
  id: `id-${path.join('-')}`,
  path,
  type,
  ...(type === 'CONTAINER' ? { containerType: 'FOLDER' } : { datasetType: 'VIRTUAL' }),
});

describe('URLs', () => {
  it('escapes each by-path component on its own: slashes, quotes, dots, %, #, ? and non-ASCII survive', async () => {
    const path = ['Sales', 'a/b', 'top "best".v2', '50% off', '#1?', 'Zürich ü'];
    pool()
      .intercept({
        method: 'GET',
        path: '/api/v3/catalog/by-path/Sales/a%2Fb/top%20%22best%22.v2/50%25%20off/%231%3F/Z%C3%BCrich%20%C3%BC',
      })
      .reply(200, { entityType: 'dataset', id: 'x', path }, json);
    const e = await catalog.resolveRef(client(), { kind: 'path', path });
    expect(e.path).toEqual(path);
  });

  it('sends an internal id as one URL segment, with include and exclude repeated', async () => {
    pool()
      .intercept({
        method: 'GET',
        path: '/api/v3/catalog/service%3A%2FSamples%2Fa%20b?include=permissions&exclude=children&exclude=fields',
      })
      .reply(200, { entityType: 'file', id: 'service:/Samples/a b', path: ['Samples', 'a b'] }, json);
    const e = await catalog.getById(client(), 'service:/Samples/a b', {
      include: ['permissions'],
      exclude: ['children', 'fields'],
    });
    expect(e.id).toBe('service:/Samples/a b');
  });

  it('deletes with the tag as a query parameter, escaped', async () => {
    pool().intercept({ method: 'DELETE', path: '/api/v3/catalog/abc?tag=a%2Bb%2Fc%3D' }).reply(204, '');
    await catalog.remove(client(), 'abc', 'a+b/c=');
  });
});

describe('children paging', () => {
  it('follows nextPageToken through every page, keeping maxChildren, and asks later pages by id', async () => {
    const parent = ['Big', 'f'];
    pool()
      .intercept({ method: 'GET', path: '/api/v3/catalog/by-path/Big/f?maxChildren=2' })
      .reply(
        200,
        {
          ...folder(parent),
          children: [item([...parent, 'a']), item([...parent, 'b'])],
          nextPageToken: 'p2',
        },
        json,
      );
    pool()
      .intercept({ method: 'GET', path: '/api/v3/catalog/id-Big-f?maxChildren=2&pageToken=p2' })
      .reply(
        200,
        {
          ...folder(parent),
          children: [item([...parent, 'c']), item([...parent, 'd'])],
          nextPageToken: 'p3',
        },
        json,
      );
    pool()
      .intercept({ method: 'GET', path: '/api/v3/catalog/id-Big-f?maxChildren=2&pageToken=p3' })
      .reply(200, { ...folder(parent), children: [item([...parent, 'e'])] }, json);
    const { entity, children } = await catalog.listChildren(
      client(),
      { kind: 'path', path: parent },
      { pageSize: 2 },
    );
    expect(children.map((c) => c.path.at(-1))).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(entity.children).toHaveLength(5);
    expect(entity).not.toHaveProperty('nextPageToken');
  });

  it('a nextPageToken handed out twice is exit 7, in a listing and in a walk, after one repeat', async () => {
    const parent = ['Big', 'f'];
    let asked = 0;
    const again = () => {
      asked++;
      return { ...folder(parent), children: [item([...parent, 'a'])], nextPageToken: 'same' };
    };
    pool()
      .intercept({ method: 'GET', path: /^\/api\/v3\/catalog\// })
      .reply(200, again, json)
      .persist();
    const listing = await catalog
      .listChildren(client(), { kind: 'path', path: parent })
      .catch((e: DlakeError) => e);
    expect(listing).toBeInstanceOf(ServiceError);
    expect((listing as DlakeError).exitCode).toBe(7);
    expect((listing as Error).message).toBe(
      'the service sent the same nextPageToken twice while listing the children of id-Big-f: the listing would never end',
    );
    expect(asked).toBe(2);
    asked = 0;
    const walk = await catalog
      .walkTree(client(), { id: 'id-Big-f' }, { concurrency: 2 })
      .catch((e: DlakeError) => e);
    expect(walk).toBeInstanceOf(ServiceError);
    expect((walk as Error).message).toMatch(
      /same nextPageToken twice while listing the children of id-Big-f/,
    );
    expect(asked).toBe(2);
  });
});

describe('stale tags', () => {
  it('a 409 on update names the current tag in the hint', async () => {
    pool()
      .intercept({ method: 'PUT', path: '/api/v3/catalog/v1' })
      .reply(409, { errorMessage: 'Tried to update version old, found tag new' }, json);
    pool()
      .intercept({ method: 'GET', path: '/api/v3/catalog/v1?exclude=children' })
      .reply(200, { entityType: 'dataset', id: 'v1', tag: 'new' }, json);
    const err = await fails(catalog.update(client(), 'v1', { entityType: 'dataset', id: 'v1', tag: 'old' }));
    expect(err).toBeInstanceOf(ConflictError);
    expect(err.exitCode).toBe(5);
    expect(err.message).toBe('Tried to update version old, found tag new');
    expect(err.hint).toContain('its current tag is new');
  });

  it('a 409 whose tag is still current (a path that exists) is passed on as it came', async () => {
    pool()
      .intercept({ method: 'PUT', path: '/api/v3/catalog/v1' })
      .reply(409, { errorMessage: 'There already exists an entity' }, json);
    pool()
      .intercept({ method: 'GET', path: '/api/v3/catalog/v1?exclude=children' })
      .reply(200, { entityType: 'dataset', id: 'v1', tag: 'same' }, json);
    const err = await fails(catalog.update(client(), 'v1', { entityType: 'dataset', id: 'v1', tag: 'same' }));
    expect(err).toBeInstanceOf(ConflictError);
    expect(err.hint).toBeUndefined();
  });
});

describe('collaboration', () => {
  it('reads "no tags" (404) as undefined and writes tags with the current version', async () => {
    pool().intercept({ method: 'GET', path: '/api/v3/catalog/d/collaboration/tag' }).reply(404, {
      errorMessage: 'No tags found',
    });
    expect(await catalog.getTags(client(), 'd')).toBeUndefined();
    pool()
      .intercept({
        method: 'POST',
        path: '/api/v3/catalog/d/collaboration/tag',
        body: JSON.stringify({ tags: ['a', 'b'], version: 'v7' }),
      })
      .reply(200, { tags: ['a', 'b'], version: 'v8' }, json);
    expect(await catalog.setTags(client(), 'd', ['a', 'b'], 'v7')).toEqual({
      tags: ['a', 'b'],
      version: 'v8',
    });
  });

  it('writes the first wiki text without a version', async () => {
    pool()
      .intercept({
        method: 'POST',
        path: '/api/v3/catalog/d/collaboration/wiki',
        body: JSON.stringify({ text: '# hi' }),
      })
      .reply(200, { text: '# hi', version: 0 }, json);
    expect(await catalog.setWiki(client(), 'd', '# hi')).toEqual({ text: '# hi', version: 0 });
  });
});

describe('entities from files', () => {
  it('accepts each kind of new entity and names every wrong field', () => {
    expect(catalog.checkNewEntity({ entityType: 'space', name: 'S' }, 'f')).toEqual({
      entityType: 'space',
      name: 'S',
    });
    const err = (() => {
      try {
        catalog.checkNewEntity(
          { entityType: 'dataset', type: 'VIRTUAL_DATASET', path: ['S'] },
          '--file (v.json)',
        );
      } catch (e) {
        return e as DlakeError;
      }
    })();
    expect(err).toBeInstanceOf(UsageError);
    expect(err?.message).toBe('--file (v.json) is not a catalog entity');
    expect(err?.details).toEqual(['path: must name the container and the dataset', 'sql: is required']);
    expect(() => catalog.checkNewEntity([1], 'f')).toThrow(
      'f is not a catalog entity: expected a JSON object',
    );
    expect(() => catalog.checkNewEntity({ name: 'x' }, 'f')).toThrow(UsageError);
  });
});

describe('tree walk', () => {
  it('lists every container with at most `concurrency` requests in flight, keeping the order', async () => {
    // A fake client: each folder has three sub-folders down to level 3, each listing takes a few ms.
    let inFlight = 0;
    let peak = 0;
    const requested: string[] = [];
    const fake = {
      request: async (spec: { at: Target }) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        const id = (spec.at.key as { id: string }).id;
        requested.push(id);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        const path = id.split('/');
        const kids = path.length < 3 ? ['x', 'y', 'z'].map((n) => [...path, n]) : [];
        return {
          entityType: 'folder',
          id,
          path,
          children: kids.map((p) => ({
            id: p.join('/'),
            path: p,
            type: 'CONTAINER',
            containerType: 'FOLDER',
          })),
        };
      },
    } as unknown as ApiClient;
    const roots: CatalogSummary[] = [{ id: 'r', path: ['r'], type: 'CONTAINER', containerType: 'SPACE' }];
    const tree = await catalog.walkTree(fake, { roots }, { concurrency: 4 });
    expect(requested).toHaveLength(1 + 3 + 9);
    expect(peak).toBe(4);
    expect(tree[0]!.children!.map((c) => c.id)).toEqual(['r/x', 'r/y', 'r/z']);
    expect(tree[0]!.children![2]!.children!.map((c) => c.id)).toEqual(['r/z/x', 'r/z/y', 'r/z/z']);

    requested.length = 0;
    const shallow = await catalog.walkTree(fake, { roots }, { concurrency: 4, depth: 2 });
    expect(requested).toEqual(['r']);
    expect(shallow[0]!.children![0]).not.toHaveProperty('children');
  });

  it('stops at the first failing listing', async () => {
    let calls = 0;
    const fake = {
      request: async () => {
        calls++;
        throw new UsageError('boom');
      },
    } as unknown as ApiClient;
    const roots = ['a', 'b', 'c'].map((n) => ({ id: n, path: [n], type: 'CONTAINER' }));
    await expect(catalog.walkTree(fake, { roots }, { concurrency: 1 })).rejects.toThrow('boom');
    await new Promise((r) => setTimeout(r, 10));
    expect(calls).toBe(1);
  });

  it('the limiter never runs more than its bound, even when tasks finish and start at once', async () => {
    const limit = catalog.limiter(2);
    let running = 0;
    let peak = 0;
    const task = async () => {
      running++;
      peak = Math.max(peak, running);
      await Promise.resolve();
      running--;
    };
    await Promise.all(Array.from({ length: 50 }, () => limit(task)));
    expect(peak).toBe(2);
  });
});

describe('source update', () => {
  const current = {
    username: 'u',
    password: PLACEHOLDER,
    hostname: 'db',
    port: 5432,
    databaseName: 'x',
    authenticationType: 'MASTER',
  };

  it('sends every secret the user did not change back exactly as the service showed it, and merges the rest', () => {
    const merged = mergeSourceConfig('POSTGRES', current, { hostname: 'db2' }, ['fetchSize=100']);
    expect(merged).toEqual({ ...current, hostname: 'db2', fetchSize: 100, password: PLACEHOLDER });
    // Real servers mask with other texts, or show a reference (a vault URI): whatever it is goes back as it
    // came. Sending the spec's constant instead would make such a server store that constant as the password.
    for (const shown of ['$DREMIO_EXISTING_VALUE$', '********', 'vault://x']) {
      const kept = mergeSourceConfig('POSTGRES', { ...current, password: shown }, {}, ['fetchSize=100']);
      expect(kept.password).toBe(shown);
    }
  });

  it('reads the spec constant in a file as "keep it", whatever the server masks with', () => {
    const kept = mergeSourceConfig(
      'POSTGRES',
      { ...current, password: '$DREMIO_EXISTING_VALUE$' },
      {
        password: PLACEHOLDER,
      },
    );
    expect(kept.password).toBe('$DREMIO_EXISTING_VALUE$');
  });

  it('sends a new secret given in the file, drops fields set to null, and leaves unset secrets unset', () => {
    expect(mergeSourceConfig('POSTGRES', current, { password: 'new-pw', databaseName: null })).toEqual({
      username: 'u',
      password: 'new-pw',
      hostname: 'db',
      port: 5432,
      authenticationType: 'MASTER',
    });
    const s3 = mergeSourceConfig('S3', { accessKey: 'AK' }, {}, ['secure=true']);
    expect(s3).toEqual({ accessKey: 'AK', secure: true });
  });

  it('PUTs the source as read with the merged config and its tag, without children or state', async () => {
    const source = {
      entityType: 'source',
      id: 's1',
      tag: 'tag-1',
      name: 'pg',
      type: 'POSTGRES',
      config: current,
      state: { status: 'good', messages: [] },
      metadataPolicy: { authTTLMs: 86400000 },
      children: [],
    };
    const body = sourceUpdateBody(source, mergeSourceConfig('POSTGRES', current, {}, ['fetchSize=10']));
    pool()
      .intercept({
        method: 'PUT',
        path: '/api/v3/catalog/s1',
        body: (text) => {
          const b = JSON.parse(text);
          return (
            b.tag === 'tag-1' &&
            b.config.password === PLACEHOLDER &&
            b.config.fetchSize === 10 &&
            b.metadataPolicy.authTTLMs === 86400000 &&
            !('children' in b) &&
            !('state' in b)
          );
        },
      })
      .reply(200, { ...source, tag: 'tag-2' }, json);
    const updated = await catalog.update(client(), 's1', body, ['password']);
    expect(updated.tag).toBe('tag-2');
  });
});
