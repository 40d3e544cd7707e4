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
  /** Of `schema`: the body to answer with; a string is sent as JSON text as it is. */
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
        // Strings become objects, not numbers: dlake accepts a number where the spec shows a string (ids,
        // tags, versions, times), as real servers send them.
        typeof v === 'string'
          ? { not: 'a string' }
          : typeof v === 'number'
            ? 'not-a-number'
            : 'not-an-object',
      ]),
    );
  }
  return { unexpected: value };
}

const NAMED_KINDS = ['latency', 'reset', 'truncate', 'html', 'schema', 'malformed'] as const;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/** The syntax of `dlake-emulator --fault`, for its help and its error messages. */
export const FAULT_FLAG_SYNTAX = 'WHAT:[METHOD:]PATH[:TIMES]';

/**
 * Parses a `--fault` value, so a user can rehearse failures from the command line:
 *
 *   503:/api/v3/job:3            the next 3 requests under /api/v3/job answer 503
 *   429@2:POST:/api/v3/sql:1     the next POST to /api/v3/sql answers 429 with `Retry-After: 2`
 *   latency@1500:/api/v3/catalog every catalog request waits 1.5 s first
 *   reset:/api/v3/job            every job request is cut off mid-body
 *
 * WHAT is an HTTP status (400–599, `@N` adds `Retry-After: N` seconds), `latency@MS`, or one of reset,
 * truncate, html, schema, malformed. PATH is a prefix of the request path (`/` matches every request);
 * without TIMES the fault hits every matching request.
 */
export function parseFaultFlag(text: string): FaultSpec {
  const bad = (why: string): Error =>
    new Error(`--fault "${text}": ${why} (expected ${FAULT_FLAG_SYNTAX}, e.g. 503:/api/v3/job:3)`);
  const parts = text.split(':');
  const what = parts.shift() ?? '';
  const method = parts[0] !== undefined && METHODS.includes(parts[0]) ? parts.shift() : undefined;
  const path = parts.shift();
  if (path === undefined || !path.startsWith('/')) throw bad('the path must start with "/"');
  const rawTimes = parts.shift();
  if (parts.length > 0) throw bad('too many ":"-separated parts');
  let times: number | undefined;
  if (rawTimes !== undefined) {
    if (!/^[1-9]\d{0,8}$/.test(rawTimes)) throw bad(`TIMES must be a positive integer, got "${rawTimes}"`);
    times = Number(rawTimes);
  }
  const spec: FaultSpec = { ...parseWhat(what, bad), path, ...(method ? { method } : {}) };
  return times === undefined ? spec : { ...spec, times };
}

function parseWhat(what: string, bad: (why: string) => Error): Omit<FaultSpec, 'path'> {
  const [name = '', arg, ...rest] = what.split('@');
  if (rest.length > 0) throw bad(`"${what}" has more than one "@"`);
  const number = (label: string, max: number): number => {
    if (arg === undefined || !/^\d{1,9}$/.test(arg) || Number(arg) > max)
      throw bad(`${label} must be an integer from 0 to ${max}, got "${arg ?? ''}"`);
    return Number(arg);
  };
  if (/^\d+$/.test(name)) {
    const status = Number(name);
    if (status < 400 || status > 599) throw bad(`the status must be from 400 to 599, got ${name}`);
    return arg === undefined
      ? { kind: 'status', status }
      : { kind: 'status', status, retryAfter: number('Retry-After seconds', 86_400) };
  }
  if (name === 'latency') return { kind: 'latency', latencyMs: number('latency@MS', 600_000) };
  if ((NAMED_KINDS as readonly string[]).includes(name)) {
    if (arg !== undefined) throw bad(`${name} takes no "@" value`);
    return { kind: name as FaultKind };
  }
  throw bad(
    `unknown fault "${name}": an HTTP status, latency@MS, or one of ${NAMED_KINDS.slice(1).join(', ')}`,
  );
}

/** One line describing an armed fault, for the emulator's start banner. */
export function describeFault(f: FaultSpec): string {
  const what =
    f.kind === 'status'
      ? `${f.status ?? 503}${f.retryAfter === undefined ? '' : ` (Retry-After: ${f.retryAfter})`}`
      : f.kind === 'latency'
        ? `latency ${f.latencyMs ?? 1000} ms`
        : f.kind;
  const where = `${f.method ? `${f.method} ` : ''}${String(f.path)}`;
  return `${what} on ${where}*, ${f.times === undefined ? 'every time' : `${f.times} time(s)`}`;
}
