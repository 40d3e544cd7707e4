// The stateful service emulator: an HTTP(S) server that follows the service's specification and
// docs/api-facts.md to the letter. Start in-process with `startEmulator(options)`; from the shell with `npm
// run emulator`.
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { type QueueStore, type ReflectionStore, registerAdmin, registerReflectionArea } from './admin.js';
import type { AreaContext, EmulatorOptions } from './area.js';
import { registerAuth } from './auth.js';
import { type CatalogArea, registerCatalog } from './catalog.js';
import { CloudEdition } from './cloud.js';
import { breakSchema, type FaultSpec, Faults } from './faults.js';
import type { FlightServer } from './flight/server.js';
import {
  ApiError,
  type EmuRequest,
  type EmuResponse,
  PlainTextError,
  type Principal,
  Router,
} from './http.js';
import { type JobsTestApi, type RunEngineQuery, registerJobs } from './jobs.js';
import { RequestLog, type RequestLogEntry } from './log.js';
import { registerSearch } from './search.js';
import { isSpecEndpoint } from './spec-endpoints.js';
import { DEFAULT_USERS, EmuState } from './state.js';

export interface Emulator {
  url: string;
  state: EmuState;
  options: EmulatorOptions;
  log: RequestLog;
  faults: Faults;
  /** Shorthand for `faults.add`. */
  fault(spec: FaultSpec): void;
  /** The catalog: its entity tree (`catalog.store.sourceConfig('pg')` reads a source's unmasked config). */
  catalog: CatalogArea;
  /** The submitted jobs, for tests to assert how often (and how) queries were submitted. */
  jobs: JobsTestApi;
  /** The rows the SQL engine returns for a query, encoded as the results endpoint does. */
  runEngineQuery: RunEngineQuery;
  /** The workload queues and rules; undefined on the community edition, which has none. */
  queues: QueueStore | undefined;
  /** The reflections; `nextRefresh` says how the next refreshes end ('succeed', 'fail' or 'hang'). */
  reflections: ReflectionStore;
  /** The hosted edition's projects, engines, rules and rate limiter; undefined on the self-hosted ones. */
  cloud: CloudEdition | undefined;
  /** The Arrow Flight endpoint (its URL, calls and faults), when `flightPort` was given. */
  flight?: FlightServer;
  close(): Promise<void>;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const state = new EmuState(options.users ?? DEFAULT_USERS);
  const router = new Router(options.strictSpec ? isSpecEndpoint : undefined);
  const log = new RequestLog();
  const faults = new Faults();
  for (const spec of options.faults ?? []) faults.add(spec);
  const closers: Array<() => Promise<void> | void> = [];
  const area: AreaContext = { router, state, options, onClose: (fn) => closers.push(fn) };
  registerAuth(area);
  const admin = registerAdmin(area);
  const catalog = await registerCatalog(area);
  const reflections = registerReflectionArea(area, catalog, admin);
  const jobs = await registerJobs(area, catalog);
  registerSearch(area, catalog.store, jobs.searchable);
  const cloud = options.edition === 'cloud' ? new CloudEdition(options.cloud) : undefined;

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res, { router, state, log, faults, cloud }).catch((err) => {
      if (!res.headersSent) send(res, { status: 500, json: { errorMessage: String(err), moreInfo: '' } });
      else res.destroy();
    });
  };
  const server: Server = options.tls
    ? createHttpsServer(options.tls, onRequest)
    : createHttpServer(onRequest);
  // Keep-alive like the real Jetty server, but let close() end idle sockets at once.
  server.keepAliveTimeout = 30_000;
  try {
    // A port in use (EADDRINUSE) or refused (EACCES) is an error of the listen, not an event nobody hears.
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    for (const fn of closers) await fn();
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  // gRPC and Arrow are loaded only when Flight is served.
  const flight =
    options.flightPort === undefined
      ? undefined
      : await (await import('./flight/server.js')).startFlightServer({
          port: options.flightPort,
          host,
          tls: options.tls,
          state,
          source: jobs.flight,
          faults: options.flightFaults,
          batchRows: options.flightBatchRows,
          encoding: options.flightEncoding,
          cloud: cloud ? { projectId: cloud.projectId } : undefined,
        });

  return {
    url: `${options.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`,
    state,
    options,
    log,
    faults,
    fault: (spec) => faults.add(spec),
    catalog,
    jobs: jobs.jobs,
    runEngineQuery: jobs.runEngineQuery,
    queues: admin.queues,
    reflections,
    cloud,
    flight,
    async close() {
      await flight?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const fn of closers) await fn();
    },
  };
}

interface ServerParts {
  router: Router;
  state: EmuState;
  log: RequestLog;
  faults: Faults;
  cloud?: CloudEdition;
}

async function handle(req: IncomingMessage, res: ServerResponse, parts: ServerParts): Promise<void> {
  const { router, state, log, faults, cloud } = parts;
  const url = new URL(req.url ?? '/', 'http://emulator');
  const method = req.method ?? 'GET';
  const body = await readBody(req);
  const auth = authenticate(req.headers.authorization, state);
  const entry: RequestLogEntry = {
    seq: log.entries.length + 1,
    method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    authScheme: auth.scheme,
    user: auth.principal?.userName,
    tokenKind: auth.principal?.tokenKind,
    status: 0,
  };
  if (url.pathname.endsWith('/oauth/token') && method === 'POST') {
    const form = new URLSearchParams(body);
    entry.grant = form.get('grant_type') ?? undefined;
    entry.clientId = form.get('client_id') ?? undefined;
  }
  log.add(entry);
  res.once('close', () => {
    if (!res.writableEnded) entry.abandoned = true;
  });

  const fault = faults.take(method, url.pathname);
  if (fault) {
    entry.fault = fault.kind;
    if (fault.kind === 'latency') {
      // A caller that left during the wait gets no answer, and its request is not carried out.
      if (await callerLeft(fault.latencyMs ?? 1000, res)) return;
    } else if (fault.kind !== 'schema') return sendFault(res, fault, entry);
  }

  let response: EmuResponse;
  let path = url.pathname;
  if (cloud) {
    const routed = await cloud.route(method, path, auth.principal, auth.scheme, body, url.searchParams);
    if ('response' in routed) {
      entry.status = routed.response.status;
      return send(res, routed.response);
    }
    path = routed.path;
  }
  try {
    const match = router.match(method, path);
    if (!match) throw new ApiError(404, 'HTTP 404 Not Found');
    if ('allowed' in match) {
      response = {
        status: 405,
        json: { errorMessage: 'HTTP 405 Method Not Allowed', moreInfo: '' },
        headers: { Allow: match.allowed.join(',') },
      };
    } else {
      const emuReq: EmuRequest = {
        method,
        rawPath: path,
        params: match.params,
        query: url.searchParams,
        headers: req.headers,
        body,
        principal: auth.principal,
      };
      response = await match.handler(emuReq);
    }
  } catch (err) {
    response = errorResponse(err);
  }
  if (fault?.kind === 'schema') {
    // A string is JSON text sent as it is: a body no JSON.stringify could write (nested 10,000 levels deep).
    response =
      typeof fault.body === 'string'
        ? { status: 200, json: fault.body, contentType: 'application/json' }
        : { status: 200, json: fault.body ?? breakSchema(response.json) };
  }
  entry.status = response.status;
  send(res, response);
}

function errorResponse(err: unknown): EmuResponse {
  if (err instanceof ApiError) {
    return err.emptyBody
      ? { status: err.status }
      : { status: err.status, json: { errorMessage: err.errorMessage, ...err.extra } };
  }
  if (err instanceof PlainTextError) return { status: err.status, text: err.text };
  return {
    status: 500,
    json: { errorMessage: (err as Error)?.message || 'Something went wrong.', moreInfo: '' },
  };
}

/**
 * The service's header rules (docs/api-facts.md §1.2): `Bearer <t>` (case-insensitive, exactly two parts),
 * else a value starting with `_service` (the rest, trimmed), else the whole trimmed value.
 */
function authenticate(
  header: string | undefined,
  state: EmuState,
): { scheme: RequestLogEntry['authScheme']; principal: Principal | null } {
  if (!header) return { scheme: 'none', principal: null };
  const parts = header.trim().split(/\s+/);
  let scheme: RequestLogEntry['authScheme'] = 'other';
  let token = header.trim();
  if (parts.length === 2 && parts[0]!.toLowerCase() === 'bearer') {
    scheme = 'Bearer';
    token = parts[1]!;
  } else if (header.startsWith('_service')) {
    scheme = '_service';
    token = header.slice('_service'.length).trim();
  }
  const found = state.lookupToken(token);
  if (!found) return { scheme, principal: null };
  return {
    scheme,
    principal: {
      userId: found.user.id,
      userName: found.user.name,
      admin: found.user.admin,
      tokenKind: found.issued.kind,
      token,
    },
  };
}

const COMMON_HEADERS = {
  'Cache-Control': 'no-cache, no-store',
  'x-content-type-options': 'nosniff',
  'x-xss-protection': '1; mode=block',
};

function send(res: ServerResponse, r: EmuResponse): void {
  const headers: Record<string, string | number> = { ...COMMON_HEADERS, ...r.headers };
  let payload: string | Buffer = '';
  if (r.bytes !== undefined) {
    payload = r.bytes;
    headers['Content-Type'] = r.contentType ?? 'application/octet-stream';
  } else if (r.json !== undefined) {
    payload = typeof r.json === 'string' && r.contentType ? r.json : JSON.stringify(r.json);
    headers['Content-Type'] = r.contentType ?? 'application/json';
  } else if (r.text !== undefined) {
    payload = r.text;
    headers['Content-Type'] = r.contentType ?? 'text/plain';
  }
  headers['Content-Length'] = Buffer.byteLength(payload);
  res.writeHead(r.status, headers);
  res.end(payload);
}

function sendFault(res: ServerResponse, f: FaultSpec, entry: RequestLogEntry): void {
  switch (f.kind) {
    case 'status': {
      const status = f.status ?? 503;
      entry.status = status;
      const headers = f.retryAfter === undefined ? undefined : { 'Retry-After': String(f.retryAfter) };
      send(res, { status, headers, json: { errorMessage: `Injected ${status}`, moreInfo: '' } });
      return;
    }
    case 'html':
      entry.status = 200;
      send(res, {
        status: 200,
        text: '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>',
        contentType: 'text/html',
      });
      return;
    case 'malformed':
      entry.status = 200;
      send(res, { status: 200, text: '{"data": [{"id": ', contentType: 'application/json' });
      return;
    case 'reset':
    case 'truncate': {
      entry.status = 200;
      const partial = '{"rowCount": 10, "schema": [], "rows": [{"a": 1},';
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': partial.length * 4 });
      res.write(partial);
      // A reset tears the socket down at once; a truncation closes it cleanly but early.
      if (f.kind === 'reset') setTimeout(() => res.socket?.resetAndDestroy(), 10);
      else setTimeout(() => res.socket?.end(), 10);
      return;
    }
    default:
      throw new Error(`unhandled fault ${f.kind}`);
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * A latency fault's wait, which ends early when the caller goes away (true then): a test can hold a request for
 * as long as it needs (a signal to arrive, a process to stop) without leaving a timer behind it.
 */
function callerLeft(ms: number, res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (left: boolean): void => {
      clearTimeout(timer);
      res.off('close', onClose);
      resolve(left);
    };
    const onClose = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    res.on('close', onClose);
  });
}
