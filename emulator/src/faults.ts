// Fault injection: tests arm faults on chosen routes for a chosen number of requests.

export type FaultKind =
  /** Wait `latencyMs` before answering normally. */
  | 'latency'
  /** Answer `status` (429, 502, 503, 504, …) with an error body and, if given, `Retry-After`. */
  | 'status'
  /** Send the headers and part of the body, then reset the connection. */
  | 'reset'
  /** Promise a longer body in Content-Length than is sent, then close. */
  | 'truncate'
  /** Answer 200 with an HTML page instead of JSON (a proxy's error page). */
  | 'html'
  /** Answer 200 with JSON that breaks the endpoint's schema (the fault's `body`, or the real body mangled). */
  | 'schema'
  /** Answer 200 with a body that is not JSON at all. */
  | 'malformed';

export interface FaultSpec {
  kind: FaultKind;
  /** Matches the request path: a string is a prefix, a RegExp is tested against the raw path. */
  path: string | RegExp;
  method?: string;
  /** How many matching requests the fault hits; default: every one. */
  times?: number;
  status?: number;
  /** Seconds, sent as `Retry-After` with `status`. */
  retryAfter?: number;
  latencyMs?: number;
  body?: unknown;
}

interface ArmedFault extends FaultSpec {
  remaining: number;
}

export class Faults {
  private armed: ArmedFault[] = [];

  add(spec: FaultSpec): void {
    this.armed.push({ ...spec, remaining: spec.times ?? Number.POSITIVE_INFINITY });
  }

  clear(): void {
    this.armed = [];
  }

  /** The fault for this request, if one is armed (and counts it as used). */
  take(method: string, rawPath: string): FaultSpec | undefined {
    const f = this.armed.find(
      (a) =>
        a.remaining > 0 &&
        (!a.method || a.method === method) &&
        (typeof a.path === 'string' ? rawPath.startsWith(a.path) : a.path.test(rawPath)),
    );
    if (f) f.remaining--;
    return f;
  }
}

/** Turns a valid body into one of the same shape with every value of the wrong type. */
export function breakSchema(value: unknown): unknown {
  if (Array.isArray(value)) return 'not-an-array';
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        typeof v === 'string' ? 12345 : typeof v === 'number' ? 'not-a-number' : 'not-an-object',
      ]),
    );
  }
  return { unexpected: value };
}
