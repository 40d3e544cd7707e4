// The shapes every layer of the request pipeline shares (docs/architecture.md "The request pipeline"): a
// layer takes the next one's `Send` and returns its own, like gh's RoundTripper chain.
import type * as z from 'zod/mini';
import type { BufferPool } from '../../util/buffer-pool.js';
import type { Target } from '../endpoint.js';

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
export type QueryValue = string | number | boolean | undefined | readonly string[];

/** A request as an area module describes it: what it asks for, never a URL. */
export interface RequestSpec<S extends z.ZodMiniType | undefined = undefined> {
  method: Method;
  /** Where it goes, as data (api/endpoint.ts). */
  at: Target;
  query?: Record<string, QueryValue>;
  json?: unknown;
  form?: Record<string, string>;
  /** Send the Authorization header (default true). */
  auth?: boolean;
  /**
   * May repeat: GET and HEAD always may; a PUT or DELETE only when it carries a tag or version, so the caller
   * says so. Anything else is sent once, and sent again only if it never reached the server.
   */
  idempotent?: boolean;
  /** Validates the JSON body; unknown fields are kept by the schemas themselves. */
  schema?: S;
  /**
   * `text`: the body as a string; `bytes`: as a Buffer, undecoded; `none`: ignore the body. Default: JSON
   * parsed by `schema`.
   */
  responseType?: 'json' | 'text' | 'bytes' | 'none';
  /** With `bytes`: the buffers the body is read into (the caller gives the returned one back); else new. */
  bodyBuffers?: BufferPool;
  /**
   * With `bytes`: a download. A success's body is handed here a piece at a time as it arrives (the next piece
   * waits for the promise), whatever its size, bounded by --timeout between pieces only; the bytes returned
   * are then empty.
   */
  bodyInto?: (piece: Buffer) => Promise<void>;
  /**
   * A results page: its body has bounds of its own (RESULTS_PAGE_TIMEOUTS × --timeout, RESULTS_PAGE_MAX_BYTES)
   * instead of --timeout and MAX_BODY_BYTES.
   */
  resultsPage?: boolean;
  /**
   * Sent at once, ahead of dlake's own pacing of the hosted edition's limits (api/pipeline/pace.ts): a cancel
   * after a signal must not wait behind the requests of the job it stops. It still counts against the limits,
   * and a 429 the service answers is the service's word.
   */
  urgent?: boolean;
  /** The Accept header (default application/json): a download endpoint produces only its own type. */
  accept?: string;
  /** Extra body field names to hide from traces (e.g. a source type's secret fields). */
  secretFields?: readonly string[];
  signal?: AbortSignal;
  /**
   * A 404 is an answer, not a failure: `request` returns undefined without building an error (an entity with
   * no wiki or no tags; a plan of 10,000 entities meets thousands of them).
   */
  notFoundIsUndefined?: boolean;
}

export type AnySpec = RequestSpec<z.ZodMiniType | undefined>;

/** A request on its way in: the caller's spec, and what the outer layers made of it. */
export interface Outgoing {
  spec: AnySpec;
  /** Where it goes: set by the route layer, changed by a followed redirect. */
  url: URL;
  /** `METHOD /path` as sent (no query), to name the request in errors. */
  endpoint: string;
  headers: Record<string, string>;
  /** What aborts this attempt (the caller's signal, or the deadline layer's). */
  signal?: AbortSignal;
  /** Called by the transport once the answer's headers are in (the deadline layer's cue). */
  onHeaders?: () => void;
  /** The bound of this attempt's body, set by the deadline layer (a results page has its own). */
  maxBodyBytes?: number;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  contentType: string;
  text: string;
  /** The body undecoded, of a success asked for as `bytes` (`text` is then empty). */
  bytes?: Buffer;
  /** How many times the request was sent (more than 1 after retries). */
  attempts: number;
  /** `METHOD /path` as it was sent last. */
  endpoint: string;
  /** A Retry-After longer than dlake waits, which is why it was not retried (api/pipeline/retry.ts). */
  waitRefused?: { askedMs: number; longestMs: number };
}

export type Send = (req: Outgoing) => Promise<RawResponse>;
export type Layer = (next: Send) => Send;

/** The layers in order, outermost first: `compose([a, b], t)` is a(b(t)). */
export function compose(layers: readonly Layer[], transport: Send): Send {
  return layers.reduceRight<Send>((next, layer) => layer(next), transport);
}

/** A header's first value. */
export function header(res: Pick<RawResponse, 'headers'>, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
