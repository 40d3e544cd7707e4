import { getEventListeners } from 'node:events';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { literal } from '../../src/api/endpoint.js';
import { errorFromResponse } from '../../src/api/errors.js';
import { ApiClient, MAX_BODY_BYTES } from '../../src/api/http.js';
import {
  AuthError,
  ConflictError,
  type DlakeError,
  InterruptedError,
  NotFoundError,
  ServiceError,
  UsageError,
} from '../../src/errors.js';
import { BufferPool } from '../../src/util/buffer-pool.js';
import { useMockAgent } from '../helpers/mock-agent.js';

const BASE = 'http://svc.test';
let delays: number[];
let trace: string[];

const mockAgent = useMockAgent();

function client(extra: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}): ApiClient {
  return new ApiClient({
    baseUrl: BASE,
    timeoutMs: 5000,
    env: {},
    dispatcher: mockAgent(),
    sleep: async (ms) => {
      delays.push(ms);
    },
    trace: (l) => trace.push(l),
    auth: { header: async () => '_servicesecret-token' },
    ...extra,
  });
}

beforeEach(() => {
  delays = [];
  trace = [];
});

const pool = () => mockAgent().get(BASE);
const json = { headers: { 'content-type': 'application/json' } };
const Thing = z.looseObject({ id: z.string() });
/** A request's target: the path as written (routing is api/pipeline/route.ts's, tested on its own). */
const raw = (path: string) => literal('raw', path);
/**
 * A real server on loopback, for what MockAgent cannot show (answers that never come, bodies that stall or
 * arrive in chunks), and a client of it; both closed after `run`.
 */
async function withServer(
  handler: RequestListener,
  run: (real: ApiClient, port: number) => Promise<void>,
  extra: Partial<ConstructorParameters<typeof ApiClient>[0]> = {},
): Promise<void> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const real = new ApiClient({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 5000, env: {}, ...extra });
  try {
    await run(real, port);
  } finally {
    await real.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

/** A pool that records the buffers given back to it. */
function watchedPool(): { buffers: BufferPool; given: Uint8Array[] } {
  const buffers = new BufferPool(8);
  const given: Uint8Array[] = [];
  const give = buffers.give.bind(buffers);
  buffers.give = (view) => {
    given.push(view);
    give(view);
  };
  return { buffers, given };
}

async function fails(p: Promise<unknown>): Promise<DlakeError> {
  try {
    await p;
  } catch (e) {
    return e as DlakeError;
  }
  throw new Error('expected the request to fail');
}

describe('ApiClient', () => {
  it('sends the Authorization header and parses the body with its schema, keeping extra fields', async () => {
    pool()
      .intercept({ path: '/api/v3/thing', method: 'GET', headers: { authorization: '_servicesecret-token' } })
      .reply(200, { id: 'a', extra: 1 }, json);
    expect(await client().request({ method: 'GET', at: raw('/api/v3/thing'), schema: Thing })).toEqual({
      id: 'a',
      extra: 1,
    });
  });

  it('retries a GET on 503 and honours Retry-After', async () => {
    pool()
      .intercept({ path: '/x', method: 'GET' })
      .reply(503, '', { headers: { 'retry-after': '2' } });
    pool()
      .intercept({ path: '/x', method: 'GET' })
      .reply(429, '', { headers: { 'retry-after': '1' } });
    pool().intercept({ path: '/x', method: 'GET' }).reply(200, { id: 'ok' }, json);
    await client().request({ method: 'GET', at: raw('/x'), schema: Thing });
    expect(delays).toHaveLength(2);
    expect(delays[0]).toBeGreaterThanOrEqual(2000);
    expect(delays[1]).toBeGreaterThanOrEqual(1000);
  });

  it('gives up after the retry budget with a service error (exit 7)', async () => {
    pool()
      .intercept({ path: '/x', method: 'GET' })
      .reply(502, { errorMessage: 'bad gateway' }, json)
      .times(4);
    const err = await fails(client().request({ method: 'GET', at: raw('/x') }));
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.message).toContain('502');
    expect(err.message).toContain('gave up after 4 attempts');
    expect(delays).toHaveLength(3);
  });

  it('never repeats a POST that reached the server', async () => {
    pool().intercept({ path: '/api/v3/sql', method: 'POST' }).reply(503, { errorMessage: 'busy' }, json);
    const err = await fails(
      client().request({ method: 'POST', at: raw('/api/v3/sql'), json: { sql: 'SELECT 1' } }),
    );
    expect(err).toBeInstanceOf(ServiceError);
    expect(delays).toHaveLength(0);
  });

  it('retries a PUT only when the caller marks it idempotent (it carries a tag)', async () => {
    pool().intercept({ path: '/q', method: 'PUT' }).reply(503, '').times(2);
    pool().intercept({ path: '/q', method: 'PUT' }).reply(200, { id: 'q' }, json);
    await expect(client().request({ method: 'PUT', at: raw('/q'), json: {} })).rejects.toBeInstanceOf(
      ServiceError,
    );
    await client().request({ method: 'PUT', at: raw('/q'), json: { tag: '1' }, idempotent: true });
    expect(delays).toHaveLength(1);
  });

  it('maps status codes to typed errors with the service message', async () => {
    pool()
      .intercept({ path: '/a', method: 'GET' })
      .reply(404, { errorMessage: 'Could not find entity', moreInfo: 'm' }, json);
    pool().intercept({ path: '/b', method: 'GET' }).reply(409, { errorMessage: 'stale tag' }, json);
    pool()
      .intercept({ path: '/c', method: 'GET' })
      .reply(403, { errorMessage: 'User not authorized.', moreInfo: '' }, json);
    const c = client();
    const a = await fails(c.request({ method: 'GET', at: raw('/a') }));
    expect(a).toBeInstanceOf(NotFoundError);
    expect(a.message).toBe('Could not find entity');
    expect(a.moreInfo).toBe('m');
    await expect(c.request({ method: 'GET', at: raw('/b') })).rejects.toBeInstanceOf(ConflictError);
    await expect(c.request({ method: 'GET', at: raw('/c') })).rejects.toBeInstanceOf(AuthError);
  });

  it('handles an empty 401, a text/plain 400 and validation messages', async () => {
    pool().intercept({ path: '/a', method: 'GET' }).reply(401, '');
    pool()
      .intercept({ path: '/b', method: 'POST' })
      .reply(400, "Unexpected character ('}')\n at [Source: …]", {
        headers: { 'content-type': 'text/plain' },
      });
    pool()
      .intercept({ path: '/c', method: 'POST' })
      .reply(
        400,
        {
          errorMessage: 'Invalid input \nname: must not contain periods',
          validationErrorMessages: {
            fieldErrorMessages: { name: ['must not contain periods'] },
            globalErrorMessages: [],
          },
        },
        json,
      );
    const c = client({ auth: undefined });
    const a = await fails(c.request({ method: 'GET', at: raw('/a') }));
    expect(a).toBeInstanceOf(AuthError);
    expect(a.hint).toEqual({ kind: 'log-in-again' });
    const b = await fails(c.request({ method: 'POST', at: raw('/b'), json: {} }));
    expect(b).toBeInstanceOf(UsageError);
    expect(b.message).toBe("Unexpected character ('}')");
    const v = await fails(c.request({ method: 'POST', at: raw('/c'), json: {} }));
    // The message's own copy of the field line is not repeated: one error line, one line per field.
    expect(v.message).toBe('Invalid input');
    expect(v.details).toEqual(['name: must not contain periods']);
  });

  it("a plain-text or broken JSON answer: its first line, cut at 300 characters; a JSON errorMessage's whole", () => {
    const answer = (contentType: string, text: string) =>
      errorFromResponse({ status: 400, endpoint: 'POST /api/v3/sql', contentType, text }).message;
    const long = 'y'.repeat(1000);
    expect(answer('text/plain', `\n${long}\nat [Source: …]`)).toBe(`${'y'.repeat(300)}…`);
    expect(answer('application/json', `{ ${long}\n}`)).toBe(`{ ${'y'.repeat(298)}…`);
    expect(answer('application/json', JSON.stringify({ errorMessage: long }))).toBe(long);
  });

  it('token-endpoint refusals say which case it is: client secret, expired JWT, no external provider', () => {
    const refusal = (error: string, description: string) =>
      errorFromResponse({
        status: 401,
        endpoint: 'POST /oauth/token',
        contentType: 'application/json',
        text: JSON.stringify({ error, error_description: description }),
      });
    // src/api says which case it is (an Advice), never the words; the command line words it (test/unit/hints.test.ts).
    expect(refusal('invalid_client', 'Invalid client credentials').hint).toEqual({
      kind: 'wrong-client-secret',
    });
    expect(refusal('invalid_grant', 'Invalid JWT: "exp" claim timestamp check failed').hint).toEqual({
      kind: 'jwt-expired',
    });
    expect(refusal('invalid_grant', 'No external token provider is configured').hint).toEqual({
      kind: 'no-external-token-provider',
    });
    expect(typeof refusal('invalid_client', 'Invalid client credentials').hint).toBe('object');
  });

  it('renews once after a 401 and sends the request again', async () => {
    let header = 'Bearer old';
    pool()
      .intercept({ path: '/x', method: 'GET', headers: { authorization: 'Bearer old' } })
      .reply(401, '');
    pool()
      .intercept({ path: '/x', method: 'GET', headers: { authorization: 'Bearer new' } })
      .reply(200, { id: 'n' }, json);
    const c = client({
      auth: {
        header: async () => header,
        renew: async () => {
          header = 'Bearer new';
          return true;
        },
      },
    });
    expect(await c.request({ method: 'GET', at: raw('/x'), schema: Thing })).toEqual({ id: 'n' });
  });

  it('reports an HTML page or a body that breaks the schema as a service error naming the endpoint', async () => {
    pool()
      .intercept({ path: '/h', method: 'GET' })
      .reply(200, '<html>login</html>', { headers: { 'content-type': 'text/html' } });
    pool().intercept({ path: '/s', method: 'GET' }).reply(200, { id: 42 }, json);
    const c = client();
    const h = await fails(c.request({ method: 'GET', at: raw('/h'), schema: Thing }));
    expect(h).toBeInstanceOf(ServiceError);
    expect(h.message).toBe('the service answered GET /h with an HTML page (text/html)');
    const s = await fails(c.request({ method: 'GET', at: raw('/s'), schema: Thing }));
    expect(s).toBeInstanceOf(ServiceError);
    expect(s.message).toMatch(/^unexpected answer from GET \/s: id: /);
  });

  it('traces exchanges without any secret', async () => {
    pool()
      .intercept({ path: '/oauth/token', method: 'POST' })
      .reply(200, { access_token: 'AT', token_type: 'Bearer' }, json);
    await client().request({
      method: 'POST',
      at: raw('/oauth/token'),
      form: { grant_type: 'client_credentials', client_id: 'ci', client_secret: 'very-secret' },
    });
    const all = trace.join('\n');
    expect(all).toContain('> POST http://svc.test/oauth/token');
    expect(all).toContain('client_id=ci');
    expect(all).not.toContain('very-secret');
    expect(all).not.toContain('secret-token');
    expect(all).toMatch(/< 200 POST/);
  });

  // Both ways a body is read: parsed as JSON (undici's `request`), and as bytes (its handler interface).
  const READS = [{ responseType: 'json' as const }, { responseType: 'bytes' as const }];

  it.each(READS)(
    'a server that never answers ($responseType): each attempt ends at --timeout, and the error says how many were made',
    async ({ responseType }) => {
      const requests: unknown[] = [];
      let arrived = (): void => {};
      // Accepts every request and never answers it.
      const neverAnswers: RequestListener = (req) => {
        requests.push(req.url);
        arrived();
      };
      const sleep = async (ms: number) => {
        delays.push(ms);
      };
      await withServer(
        neverAnswers,
        async (real, port) => {
          // The per-request timer is moved on only once the server holds the attempt's request: on a loaded
          // machine a real 100 ms can pass before the request is even sent, and the attempt would never
          // reach the server.
          vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
          let err: DlakeError;
          try {
            const pending = fails(real.request({ method: 'GET', at: raw('/api/v3/catalog'), responseType }));
            for (let n = 1; n <= 4; n++) {
              if (requests.length < n) await new Promise<void>((r) => (arrived = r));
              vi.advanceTimersByTime(100);
            }
            err = await pending;
          } finally {
            vi.useRealTimers();
          }
          expect(err).toBeInstanceOf(ServiceError);
          expect(err.message).toBe(
            `cannot reach http://127.0.0.1:${port}/api/v3/catalog: no answer within the per-request timeout of 100ms; gave up after 4 attempts`,
          );
          expect(requests).toHaveLength(4);
          // The documented worst case: 4 × --timeout plus at most 0.25 + 0.5 + 1 s of backoff.
          expect(delays).toHaveLength(3);
          delays.forEach((d, i) => {
            expect(d).toBeLessThanOrEqual(250 * 2 ** i);
          });
        },
        { timeoutMs: 100, sleep },
      );
    },
  );

  it("leaves nothing behind on the caller's signal, however many requests it served", async () => {
    for (let i = 0; i < 3; i++)
      pool()
        .intercept({ path: '/api/v3/thing', method: 'GET' })
        .reply(200, { id: `${i}` }, json);
    const controller = new AbortController();
    const c = client();
    for (let i = 0; i < 3; i++)
      await c.request({ method: 'GET', at: raw('/api/v3/thing'), schema: Thing, signal: controller.signal });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('many requests at once on one signal (pull reads 16 at a time): no leak warning on stderr, nothing left', async () => {
    for (let i = 0; i < 24; i++)
      pool()
        .intercept({ path: '/api/v3/thing', method: 'GET' })
        .reply(200, { id: `${i}` }, json);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const controller = new AbortController();
    const c = client();
    try {
      const got = await Promise.all(
        Array.from({ length: 24 }, () =>
          c.request({ method: 'GET', at: raw('/api/v3/thing'), schema: Thing, signal: controller.signal }),
        ),
      );
      expect(got).toHaveLength(24);
      // Node emits a warning on a later tick.
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it.each(READS)(
    "the caller's signal aborts a request waiting for its answer ($responseType, exit 130), and is let go",
    async ({ responseType }) => {
      const controller = new AbortController();
      await withServer(
        () => {},
        async (real) => {
          const pending = fails(
            real.request({ method: 'GET', at: raw('/slow'), responseType, signal: controller.signal }),
          );
          setTimeout(() => controller.abort(), 50);
          const err = await pending;
          expect(err).toBeInstanceOf(InterruptedError);
          expect(err.exitCode).toBe(130);
          expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
        },
      );
    },
  );

  it("the caller's signal aborts a body being read as bytes (exit 130); its buffer goes back to the pool", async () => {
    // Headers and the first part of the body, then nothing.
    const stalls: RequestListener = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"rows":[');
    };
    const { buffers, given } = watchedPool();
    // The signal comes once the body is being read (its first buffer taken from the pool), not after a time.
    const reading = new Promise<void>((resolve) => {
      const take = buffers.take.bind(buffers);
      buffers.take = (n) => {
        resolve();
        return take(n);
      };
    });
    const controller = new AbortController();
    await withServer(stalls, async (real) => {
      const pending = fails(
        real.request({
          method: 'GET',
          at: raw('/page'),
          responseType: 'bytes',
          bodyBuffers: buffers,
          signal: controller.signal,
        }),
      );
      await reading;
      controller.abort();
      const err = await pending;
      expect(err).toBeInstanceOf(InterruptedError);
      expect(err.exitCode).toBe(130);
      expect(given).toHaveLength(1);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    });
  });

  it('reads a body as bytes into pooled buffers, across chunks and past the first buffer, and gives back the ones it outgrew', async () => {
    // 200 KiB in three chunks and no Content-Length: more than the first 64 KiB buffer holds.
    const body = Buffer.alloc(200 * 1024, 'é');
    const chunked: RequestListener = (req, res) => {
      if (req.url?.startsWith('/missing')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"errorMessage":"no such job"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(body.subarray(0, 1000));
      res.write(body.subarray(1000, 150_000));
      res.end(body.subarray(150_000));
    };
    const { buffers, given } = watchedPool();
    await withServer(chunked, async (real) => {
      const bytes = (await real.request({
        method: 'GET',
        at: raw('/page'),
        responseType: 'bytes',
        bodyBuffers: buffers,
      })) as Buffer;
      expect(bytes.equals(body)).toBe(true);
      // Outgrown on the way: 64 KiB, then 128 KiB; the one returned is the caller's to give back.
      expect(given.map((view) => view.buffer.byteLength)).toEqual([64 * 1024, 128 * 1024]);
      expect(bytes.buffer.byteLength).toBe(256 * 1024);
      const err = await fails(
        real.request({ method: 'GET', at: raw('/missing'), responseType: 'bytes', bodyBuffers: buffers }),
      );
      expect(err).toBeInstanceOf(NotFoundError);
      expect(err.message).toMatch(/no such job/);
    });
  });
});

describe('BufferPool', () => {
  it('reuses what is given back, in sizes rounded up to 64 KiB, and never hands one buffer to two takers', () => {
    const pool = new BufferPool(2);
    const a = pool.take(10);
    expect(a.length).toBe(64 * 1024);
    expect(pool.take(100_000).length).toBe(128 * 1024);
    a.fill(7);
    pool.give(a.subarray(5, 20));
    pool.give(a);
    const b = pool.take(1000);
    expect(b.buffer).toBe(a.buffer);
    // Given twice, kept once: the next take is a new buffer.
    expect(pool.take(1000).buffer).not.toBe(a.buffer);
    // Too small for what is asked: a new one.
    pool.give(b);
    expect(pool.take(70_000).buffer).not.toBe(a.buffer);
  });

  it('keeps at most `keep` free buffers', () => {
    const pool = new BufferPool(1);
    const [a, b] = [pool.take(1), pool.take(1)];
    pool.give(a);
    pool.give(b);
    expect(pool.take(1).buffer).toBe(a.buffer);
    expect(pool.take(1).buffer).not.toBe(b.buffer);
  });
});

describe('the bounds of a body', () => {
  const sleep = async (ms: number) => {
    delays.push(ms);
  };

  it.each([{ responseType: 'json' as const }, { responseType: 'text' as const }])(
    'a body trickled a byte at a time ($responseType) ends at --timeout, each attempt whole, and is retried',
    async ({ responseType }) => {
      const requests: unknown[] = [];
      const trickles: RequestListener = (req, res) => {
        requests.push(req.url);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '72' });
        res.write('{');
        const tick = setInterval(() => (res.writableEnded ? clearInterval(tick) : res.write(' ')), 40);
        res.on('close', () => clearInterval(tick));
      };
      await withServer(
        trickles,
        async (real, port) => {
          const err = await fails(real.request({ method: 'GET', at: raw('/api/v3/catalog'), responseType }));
          expect(err).toBeInstanceOf(ServiceError);
          expect(err.exitCode).toBe(7);
          expect(err.message).toBe(
            `cannot reach http://127.0.0.1:${port}/api/v3/catalog: the answer did not arrive whole within the per-request timeout of 300ms; gave up after 4 attempts`,
          );
          expect(requests).toHaveLength(4);
          expect(err.hint).toEqual({ kind: 'timed-out' });
        },
        { timeoutMs: 300, sleep },
      );
    },
  );

  it('a body not wanted (`none`): the status is the answer, and a body that never ends is not waited for', async () => {
    const requests: unknown[] = [];
    const stalls: RequestListener = (req, res) => {
      requests.push(req.url);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '72' });
      res.write('{');
    };
    // Were the body read, the request would end only at the per-request timeout, as an error.
    await withServer(stalls, async (real) => {
      await real.request({ method: 'DELETE', at: raw('/api/v3/thing'), responseType: 'none' });
      expect(requests).toEqual(['/api/v3/thing']);
    });
  });

  it('a body that never ends is cut at 64 MiB (exit 7), read once, never retried', async () => {
    let requests = 0;
    let sent = 0;
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    const endless: RequestListener = (_req, res) => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/json' });
      const more = (): void => {
        while (!res.destroyed && res.write(chunk)) sent += chunk.length;
        if (!res.destroyed) res.once('drain', more);
      };
      more();
    };
    await withServer(
      endless,
      async (real) => {
        const err = await fails(real.request({ method: 'GET', at: raw('/api/v3/catalog') }));
        expect(err).toBeInstanceOf(ServiceError);
        expect(err.message).toBe(
          'the answer to GET /api/v3/catalog is larger than 64 MiB, the most dlake reads of it; it was not read',
        );
        expect(requests).toBe(1);
        expect(sent).toBeLessThan(MAX_BODY_BYTES + 16 * 1024 * 1024);
      },
      { timeoutMs: 60_000, sleep },
    );
  });

  it('a Content-Length past the cap is refused before the body is read, as text and as bytes', async () => {
    const huge: RequestListener = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 ** 40) });
      res.write('{');
    };
    await withServer(huge, async (real) => {
      const text = await fails(real.request({ method: 'GET', at: raw('/a') }));
      expect(text.message).toMatch(/^the answer to GET \/a is larger than 64 MiB/);
      const page = await fails(
        real.request({ method: 'GET', at: raw('/page'), responseType: 'bytes', resultsPage: true }),
      );
      expect(page.message).toMatch(/^the answer to GET \/page is larger than 256 MiB/);
    });
  });

  it('a results page has its own bound: 4 × --timeout for the whole page, --timeout for each pause', async () => {
    // Ten pieces 60 ms apart: longer than --timeout (300 ms) in all, well within a page's bound (1.2 s).
    const slowPage: RequestListener = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      let left = req.url?.startsWith('/endless') ? Number.POSITIVE_INFINITY : 10;
      const tick = setInterval(() => {
        if (--left <= 0) {
          clearInterval(tick);
          res.end(' ');
        } else res.write(' ');
      }, 60);
      res.on('close', () => clearInterval(tick));
    };
    await withServer(
      slowPage,
      async (real, port) => {
        const bytes = (await real.request({
          method: 'GET',
          at: raw('/page'),
          responseType: 'bytes',
          resultsPage: true,
        })) as Buffer;
        expect(bytes.length).toBe(10);
        const err = await fails(
          real.request({ method: 'GET', at: raw('/endless'), responseType: 'bytes', resultsPage: true }),
        );
        expect(err.message).toBe(
          `cannot reach http://127.0.0.1:${port}/endless: the answer did not arrive whole within 1s 200ms (4 × the per-request timeout), a results page's bound`,
        );
        // Any other request is bounded by --timeout itself.
        const other = await fails(real.request({ method: 'GET', at: raw('/page'), responseType: 'text' }));
        expect(other.message).toMatch(/within the per-request timeout of 300ms/);
      },
      { timeoutMs: 300, sleep, retry: { retries: 0 } },
    );
  });
});

describe('redirects', () => {
  it('a same-origin redirect of a GET is followed, with its credentials; the answer is the new one', async () => {
    pool()
      .intercept({ path: '/api/v3/catalog', method: 'GET' })
      .reply(302, '', { headers: { location: '/api/v3/catalog/?x=1' } });
    pool()
      .intercept({
        path: '/api/v3/catalog/?x=1',
        method: 'GET',
        headers: { authorization: '_servicesecret-token' },
      })
      .reply(200, { id: 'root' }, json);
    const got = await client().request({ method: 'GET', at: raw('/api/v3/catalog'), schema: Thing });
    expect(got).toEqual({ id: 'root' });
    expect(trace).toContain('following the redirect (302) to /api/v3/catalog/?x=1');
  });

  it('a redirect to another origin is exit 7 naming where it points, and nothing is sent there', async () => {
    const elsewhere: string[] = [];
    await withServer(
      (req, res) => {
        elsewhere.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
        res.end('{}');
      },
      async (_other, otherPort) => {
        const to = `http://user:pw@127.0.0.1:${otherPort}/login?next=%2F`;
        await withServer(
          (_req, res) => {
            res.writeHead(302, { location: to });
            res.end();
          },
          async (real) => {
            const err = await fails(
              real.request({ method: 'GET', at: raw('/api/v3/catalog'), schema: Thing }),
            );
            expect(err).toBeInstanceOf(ServiceError);
            expect(err.exitCode).toBe(7);
            expect(err.message).toBe(
              `GET /api/v3/catalog was redirected to http://127.0.0.1:${otherPort}/login?next=%2F (302)`,
            );
            expect(err.message).not.toContain('empty answer');
            expect(err.hint).toMatch(/only within the service URL's origin/);
          },
          { auth: { header: async () => 'Bearer secret-pat' } },
        );
      },
    );
    expect(elsewhere).toEqual([]);
  });

  it('a POST is never sent again on a redirect, not even to the same origin; a loop ends', async () => {
    pool()
      .intercept({ path: '/api/v3/sql', method: 'POST' })
      .reply(307, '', { headers: { location: '/api/v3/sql2' } });
    const post = await fails(
      client().request({ method: 'POST', at: raw('/api/v3/sql'), json: { sql: 'x' } }),
    );
    expect(post.message).toBe(`POST /api/v3/sql was redirected to ${BASE}/api/v3/sql2 (307)`);
    pool()
      .intercept({ path: '/loop', method: 'GET' })
      .reply(301, '', { headers: { location: '/loop' } })
      .times(6);
    const loop = await fails(client().request({ method: 'GET', at: raw('/loop') }));
    expect(loop.message).toBe(`GET /loop was redirected to ${BASE}/loop (301, after 5 redirects)`);
  });
});
