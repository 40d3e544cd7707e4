// Each layer of the request pipeline (docs/architecture.md "The request pipeline") alone, over undici's
// MockAgent: composed with nothing but the transport, so that a failure names the layer at fault.
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { below, literal, organisationResource, type Target, v3 } from '../../src/api/endpoint.js';
import { Pacer, paceLimits } from '../../src/api/pacing.js';
import { authorize } from '../../src/api/pipeline/authorize.js';
import { deadline } from '../../src/api/pipeline/deadline.js';
import { decode, failure } from '../../src/api/pipeline/decode.js';
import { pace } from '../../src/api/pipeline/pace.js';
import { redirect } from '../../src/api/pipeline/redirect.js';
import { DEFAULT_RETRY, retry, retryAfterMs } from '../../src/api/pipeline/retry.js';
import { route } from '../../src/api/pipeline/route.js';
import { transport } from '../../src/api/pipeline/transport.js';
import { type AnySpec, compose, type Layer, type RawResponse } from '../../src/api/pipeline/types.js';
import { InterruptedError, NotFoundError, ServiceError, UsageError } from '../../src/errors.js';
import { useMockAgent } from '../helpers/mock-agent.js';

const BASE = 'http://svc.test';
const mockAgent = useMockAgent();
const pool = () => mockAgent().get(BASE);
const json = { headers: { 'content-type': 'application/json' } };
const PID = '11111111-2222-4333-8444-555555555555';
const hosted = { edition: 'cloud' as const, projectId: PID };

/** `layers` over the MockAgent's transport; the request starts at the base URL, as the client's does. */
function through(layers: Layer[], spec: Partial<AnySpec> & { at?: Target } = {}): Promise<RawResponse> {
  const send = compose(layers, transport({ dispatcher: mockAgent(), timeoutMs: 5000 }));
  const full = { method: 'GET', at: literal('raw', '/x'), ...spec } as AnySpec;
  return send({
    spec: full,
    url: new URL(`${BASE}${full.at.software}`),
    endpoint: `GET ${full.at.software}`,
    headers: {},
    signal: full.signal,
  });
}

const routed = (root: Parameters<typeof route>[0]['root'], memory?: Parameters<typeof route>[0]['memory']) =>
  route({ baseUrl: BASE, authUrl: 'http://login.test', root, memory });

describe('route', () => {
  it('sends a target to its path on the edition in force, below the project root on the hosted one', async () => {
    pool().intercept({ path: '/api/v3/catalog/c1', method: 'GET' }).reply(200, {});
    pool()
      .intercept({ path: `/v0/projects/${PID}/catalog/c1`, method: 'GET' })
      .reply(200, {});
    const at = v3('catalog', 'catalog/c1', { key: { id: 'c1' } });
    expect((await through([routed({ edition: 'software' })], { at })).endpoint).toBe(
      'GET /api/v3/catalog/c1',
    );
    expect((await through([routed(hosted)], { at })).endpoint).toBe(`GET /v0/projects/${PID}/catalog/c1`);
  });

  it('refuses what the edition lacks before anything is sent, as Advice for the command line to word', async () => {
    const err = await through([routed(hosted)], { at: v3('queue', 'wlm/queue', { gap: 'queues' }) }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe('the hosted edition has no workload queues');
    expect(err.hint).toEqual({ kind: 'not-on-hosted', gap: 'queues' });
  });

  it('on a "no such path" 404 tries the next known form once, and remembers the one that answered', async () => {
    const remembered: Array<[string, number]> = [];
    const memory = {
      recall: () => undefined,
      remember: (f: string, n: number) => void remembered.push([f, n]),
    };
    pool()
      .intercept({ path: '/v0/users/u1', method: 'GET' })
      .reply(404, { errorMessage: 'HTTP 404 Not Found' }, json);
    pool().intercept({ path: '/v1/users/u1', method: 'GET' }).reply(200, { id: 'u1' }, json);
    const raw = await through([routed(hosted, memory)], {
      at: organisationResource('user', { id: 'u1' }, 'u1'),
    });
    expect(raw.status).toBe(200);
    expect(remembered).toEqual([['users', 1]]);
  });

  it('goes straight to the remembered form; a 404 that names the entity tries nothing else', async () => {
    const memory = { recall: () => 1, remember: () => {} };
    pool()
      .intercept({ path: '/v1/users/u1', method: 'GET' })
      .reply(404, { errorMessage: "User 'u1' not found" }, json);
    const raw = await through([routed(hosted, memory)], {
      at: organisationResource('user', { id: 'u1' }, 'u1'),
    });
    expect(raw.status).toBe(404);
  });

  it('answers a lookup by name with the item of that name, or a 404 that names it', async () => {
    const at = organisationResource('user', { name: 'bob' }, 'bob');
    pool()
      .intercept({ path: '/v0/users?filter=name+%3D%3D+%22bob%22', method: 'GET' })
      .reply(200, { data: [{ id: 'u1', name: 'bob' }] }, json);
    expect(JSON.parse((await through([routed(hosted)], { at })).text)).toEqual({ id: 'u1', name: 'bob' });
    pool()
      .intercept({ path: '/v0/users?filter=name+%3D%3D+%22bob%22', method: 'GET' })
      .reply(200, { data: [] }, json);
    const missing = await through([routed(hosted)], { at });
    expect(failure(missing, { at })).toEqual(expect.objectContaining({ message: 'not found: user "bob"' }));
    expect(failure(missing, { at })).toBeInstanceOf(NotFoundError);
  });
});

describe('retry', () => {
  const slept: number[] = [];
  const retrying = (paced = false) =>
    retry({ policy: DEFAULT_RETRY, paced, timeoutMs: 5000, sleep: async (ms) => void slept.push(ms) });

  it("honours Retry-After as an HTTP date, counted from the answer's own Date header", async () => {
    slept.length = 0;
    const served = new Date('2026-11-27T09:00:00Z');
    const later = new Date(served.getTime() + 7_000);
    pool()
      .intercept({ path: '/x', method: 'GET' })
      .reply(503, '', { headers: { 'retry-after': later.toUTCString(), date: served.toUTCString() } });
    pool().intercept({ path: '/x', method: 'GET' }).reply(200, '');
    expect((await through([retrying()])).status).toBe(200);
    expect(slept).toHaveLength(1);
    expect(slept[0]).toBeGreaterThanOrEqual(7_000);
    expect(retryAfterMs({ headers: { 'retry-after': '3' } })).toBe(3_000);
    expect(retryAfterMs({ headers: { 'retry-after': 'soon' } })).toBeUndefined();
  });

  it('does not wait for a Retry-After beyond its bound, and the error says what the server asked for', async () => {
    slept.length = 0;
    pool()
      .intercept({ path: '/x', method: 'GET' })
      .reply(503, { errorMessage: 'maintenance' }, { headers: { 'retry-after': '3600', ...json.headers } });
    const raw = await through([retrying()]);
    expect(slept).toEqual([]);
    const err = failure(raw, { at: literal('raw', '/x') });
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.message).toBe(
      'the service failed (503): maintenance; the service asked to retry after 1h (Retry-After), longer than dlake waits (30s)',
    );
  });

  it('a signal ends a backoff (here a Retry-After of 20s, waited for in earnest) with an interruption', async () => {
    const stop = new AbortController();
    pool()
      .intercept({ path: '/x', method: 'GET' })
      .reply(503, '', { headers: { 'retry-after': '20' } });
    const pending = through([retry({ policy: DEFAULT_RETRY, paced: false, timeoutMs: 5000 })], {
      signal: stop.signal,
    });
    setTimeout(() => stop.abort(), 20);
    const err = await pending.catch((e) => e);
    expect(err).toBeInstanceOf(InterruptedError);
    expect(err.exitCode).toBe(130);
  });

  it('repeats a POST only after a 429 of the paced hosted limits, never after a 503', async () => {
    slept.length = 0;
    pool().intercept({ path: '/x', method: 'POST' }).reply(503, '');
    expect((await through([retrying()], { method: 'POST' })).status).toBe(503);
    pool()
      .intercept({ path: '/x', method: 'POST' })
      .reply(429, '', { headers: { 'retry-after': '1' } });
    pool().intercept({ path: '/x', method: 'POST' }).reply(200, '');
    expect((await through([retrying(true)], { method: 'POST' })).status).toBe(200);
    expect(slept[0]).toBeGreaterThanOrEqual(1000);
  });
});

describe('pace', () => {
  it("takes a slot of the target's own limit class, and holds that limit after a 429 for at most 90s", async () => {
    const taken: string[] = [];
    const held: Array<[string, number]> = [];
    const pacer = new Pacer(paceLimits({}));
    pacer.take = async (limit) => void taken.push(limit);
    pacer.hold = (limit, ms) => void held.push([limit, ms]);
    const results = below(v3('job', 'job/j', { key: { id: 'j' }, limit: 'status' }), 'results', {
      limit: 'results',
    });
    pool()
      .intercept({ path: '/api/v3/job/j/results', method: 'GET' })
      .reply(429, '', { headers: { 'retry-after': '86400' } });
    await through([pace(pacer)], { at: results });
    expect(taken).toEqual(['results']);
    expect(held).toEqual([['results', 90_000]]);
    pool().intercept({ path: '/oauth/token', method: 'POST' }).reply(200, '');
    await through([pace(pacer)], { method: 'POST', at: literal('token', '/oauth/token', 'auth') });
    expect(taken).toEqual(['results']);
  });

  it('a signal during a wait for a limit ends it with an interruption, and nothing is sent', async () => {
    const pacer = new Pacer(paceLimits({ DLAKE_RATE_LIMITS: 'status=1,per=60s' }));
    await pacer.take('status');
    const stop = new AbortController();
    const pending = through([pace(pacer)], {
      at: v3('job', 'job/j', { limit: 'status' }),
      signal: stop.signal,
    });
    stop.abort();
    expect(await pending.catch((e) => e)).toBeInstanceOf(InterruptedError);
  });
});

describe('authorize', () => {
  it('sends the header, renews once after a 401 and sends again; a request without auth gets none', async () => {
    let renewals = 0;
    const auth = { header: async () => `Bearer t${renewals}`, renew: async () => ++renewals === 1 };
    pool()
      .intercept({ path: '/x', method: 'GET', headers: { authorization: 'Bearer t0' } })
      .reply(401, '');
    pool()
      .intercept({ path: '/x', method: 'GET', headers: { authorization: 'Bearer t1' } })
      .reply(200, '');
    expect((await through([authorize(auth)])).status).toBe(200);
    expect(renewals).toBe(1);
    pool()
      .intercept({ path: '/x', method: 'GET', headers: (h) => !('authorization' in h) })
      .reply(200, '');
    expect((await through([authorize(auth)], { auth: false })).status).toBe(200);
  });
});

describe('redirect', () => {
  it('follows a same-origin redirect of a GET, and refuses one to another origin naming it', async () => {
    pool()
      .intercept({ path: '/x', method: 'GET' })
      .reply(302, '', { headers: { location: '/y' } });
    pool().intercept({ path: '/y', method: 'GET' }).reply(200, 'moved');
    expect((await through([redirect()])).text).toBe('moved');
    pool()
      .intercept({ path: '/x', method: 'GET' })
      .reply(302, '', { headers: { location: 'http://other.test/y' } });
    const err = await through([redirect()]).catch((e) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.message).toBe('GET /x was redirected to http://other.test/y (302)');
  });
});

describe('deadline', () => {
  it('bounds an attempt by --timeout: an answer that does not come ends as a headers timeout', async () => {
    pool().intercept({ path: '/x', method: 'GET' }).reply(200, 'late').delay(2_000);
    const err = await through([deadline(50)]).catch((e) => e);
    expect(err?.code).toBe('UND_ERR_HEADERS_TIMEOUT');
  });

  it("the caller's signal aborts the attempt", async () => {
    const stop = new AbortController();
    pool().intercept({ path: '/x', method: 'GET' }).reply(200, 'late').delay(2_000);
    const pending = through([deadline(5_000)], { signal: stop.signal });
    stop.abort();
    const err = await pending.catch((e) => e);
    expect(err?.name).toBe('AbortError');
  });
});

describe('decode', () => {
  it('names the endpoint as sent in a body that breaks the schema', () => {
    const raw: RawResponse = {
      status: 200,
      headers: {},
      contentType: 'application/json',
      text: '{"id": 1}',
      attempts: 1,
      endpoint: `GET /v0/projects/${PID}/catalog/c1`,
    };
    const schema = z.looseObject({ id: z.string() });
    expect(() => decode({ method: 'GET', at: literal('raw', '/'), schema }, raw)).toThrow(
      `unexpected answer from GET /v0/projects/${PID}/catalog/c1: id:`,
    );
  });
});
