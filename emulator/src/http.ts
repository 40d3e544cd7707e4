// The emulator's small HTTP toolkit: a router, request/response shapes and the service's error body.
import type { IncomingHttpHeaders } from 'node:http';

export interface EmuRequest {
  method: string;
  /** The decoded-once path without the query, e.g. `/api/v3/catalog/by-path/a%2Fb` stays raw here. */
  rawPath: string;
  /** Raw path segments (still percent-encoded) after the matched route prefix is removed. */
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  /** Set by the server once the Authorization header is checked (null when absent or invalid). */
  principal: Principal | null;
}

export interface Principal {
  userId: string;
  userName: string;
  admin: boolean;
  tokenKind: 'session' | 'pat' | 'oauth';
  token: string;
}

export interface EmuResponse {
  status: number;
  /** Serialized as JSON with `Content-Type: application/json`. */
  json?: unknown;
  /** Sent as is, with `contentType` (default text/plain). */
  text?: string;
  /** Bytes sent as they are, with `contentType` (default application/octet-stream). */
  bytes?: Buffer;
  contentType?: string;
  headers?: Record<string, string>;
}

export type Handler = (req: EmuRequest) => EmuResponse | Promise<EmuResponse>;

/** Thrown by handlers; the server turns it into the service's error body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errorMessage: string,
    /** Extra fields of the error body (`moreInfo`, `stackTrace`, `validationErrorMessages`, …). */
    readonly extra: Record<string, unknown> = { moreInfo: '' },
    /** An empty body, as real servers send for 401. */
    readonly emptyBody = false,
  ) {
    super(errorMessage);
  }
}

export const unauthorized = (): ApiError => new ApiError(401, '', {}, true);
export const forbidden = (msg = 'User not authorized.'): ApiError => new ApiError(403, msg);
export const notFound = (msg: string): ApiError => new ApiError(404, msg);
export const badRequest = (msg: string, extra?: Record<string, unknown>): ApiError =>
  new ApiError(400, msg, { moreInfo: '', ...extra });
/** Conflicts carry no moreInfo on the real service (its ConflictException leaves it null). */
export const conflict = (msg: string): ApiError => new ApiError(409, msg, {});

export const ok = (json: unknown): EmuResponse => ({ status: 200, json });
export const noContent = (): EmuResponse => ({ status: 204 });

/** Parses a JSON request body; a malformed body gets the service's text/plain 400, as Jackson does. */
export function jsonBody<T = Record<string, unknown>>(req: EmuRequest): T {
  try {
    return JSON.parse(req.body) as T;
  } catch (e) {
    throw new PlainTextError(400, `Unexpected character in JSON body: ${(e as Error).message}`);
  }
}

export function formBody(req: EmuRequest): URLSearchParams {
  return new URLSearchParams(req.body);
}

/** A non-JSON error answer (the service's malformed-JSON 400 is text/plain). */
export class PlainTextError extends Error {
  constructor(
    readonly status: number,
    readonly text: string,
  ) {
    super(text);
  }
}

interface Route {
  method: string;
  parts: string[];
  /** A trailing `*name` part captures the rest of the path. */
  rest?: string;
  handler: Handler;
}

/**
 * Routes like `/api/v3/user/:id` and `/api/v3/catalog/by-path/*path`. Literal parts win over `:params`,
 * so `/user/by-name/:name` and `/user/:id` can coexist regardless of registration order.
 */
export class Router {
  private routes: Route[] = [];

  /** `serves`: which routes to serve (default all); the others are not registered, so they answer 404. */
  constructor(private readonly serves: (method: string, pattern: string) => boolean = () => true) {}

  add(method: string, pattern: string, handler: Handler): this {
    if (!this.serves(method, pattern)) return this;
    const parts = pattern.split('/').filter(Boolean);
    const last = parts.at(-1);
    const route: Route = { method, parts, handler };
    if (last?.startsWith('*')) {
      route.rest = last.slice(1);
      route.parts = parts.slice(0, -1);
    }
    this.routes.push(route);
    this.routes.sort((a, b) => score(b) - score(a));
    return this;
  }

  get(p: string, h: Handler): this {
    return this.add('GET', p, h);
  }
  post(p: string, h: Handler): this {
    return this.add('POST', p, h);
  }
  put(p: string, h: Handler): this {
    return this.add('PUT', p, h);
  }
  delete(p: string, h: Handler): this {
    return this.add('DELETE', p, h);
  }
  patch(p: string, h: Handler): this {
    return this.add('PATCH', p, h);
  }

  /** Finds the handler; `allowed` lists the methods of a matching path for a 405. */
  match(
    method: string,
    rawPath: string,
  ): { handler: Handler; params: Record<string, string> } | { allowed: string[] } | null {
    const segs = rawPath.split('/').filter(Boolean);
    const allowed: string[] = [];
    for (const r of this.routes) {
      const params = matchParts(r, segs);
      if (!params) continue;
      if (r.method === method) return { handler: r.handler, params };
      allowed.push(r.method);
    }
    return allowed.length ? { allowed } : null;
  }
}

function score(r: Route): number {
  // More literal parts first, then longer patterns, then no rest capture.
  const literals = r.parts.filter((p) => !p.startsWith(':')).length;
  return literals * 100 + r.parts.length * 10 + (r.rest ? 0 : 1);
}

function matchParts(r: Route, segs: string[]): Record<string, string> | null {
  if (r.rest === undefined ? segs.length !== r.parts.length : segs.length <= r.parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < r.parts.length; i++) {
    const p = r.parts[i]!;
    const s = segs[i]!;
    if (p.startsWith(':')) params[p.slice(1)] = decodeURIComponent(s);
    else if (p !== s) return null;
  }
  if (r.rest !== undefined) params[r.rest] = segs.slice(r.parts.length).join('/');
  return params;
}
