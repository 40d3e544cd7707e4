// The one HTTP client of dlake: one undici dispatcher per client (keep-alive, explicit timeouts, CA and
// proxy settings), the Authorization header, the retry policy of docs/cli-contract.md "Retries", error
// mapping and zod parsing of every body, and --debug traces with secrets redacted. No printing, prompting or
// exiting here.
import type * as z from 'zod/mini';
import { type Advice, DlakeError, InterruptedError, ServiceError, UsageError } from '../errors.js';
import { BufferPool } from '../util/buffer-pool.js';
import { readTextFile } from '../util/files.js';
import { rememberReceived } from '../util/received.js';
import { redactForm, redactHeader, redactJson } from '../util/redact.js';
import { formatDuration, formatSize } from '../util/units.js';
import { errorFromResponse } from './errors.js';
import type { Pacer } from './pacing.js';
import {
  Agent,
  type DispatchController,
  type Dispatcher,
  type DispatchOptions,
  EnvHttpProxyAgent,
} from './undici-lite.js';

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
type QueryValue = string | number | boolean | undefined | readonly string[];

export interface AuthProvider {
  /** The Authorization header value to send. */
  header(): Promise<string>;
  /** Called once after a 401: renew the credentials if the means are at hand; true to retry. */
  renew?(): Promise<boolean>;
}

interface RetryPolicy {
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

interface ClientOptions {
  baseUrl: string;
  /** Base of the token endpoint; default the base URL. */
  authUrl?: string;
  timeoutMs: number;
  caFile?: string;
  insecure?: boolean;
  env: NodeJS.ProcessEnv;
  auth?: AuthProvider;
  /** --debug: receives one line per traced item. */
  trace?: (line: string) => void;
  retry?: Partial<RetryPolicy>;
  userAgent?: string;
  /** Replaceable in tests. */
  sleep?: (ms: number) => Promise<void>;
  /** A dispatcher of the caller's (a test's MockAgent): used as it is, and left open by close(). */
  dispatcher?: Dispatcher;
  /** Maps a self-hosted path to the edition's root (src/api/roots.ts); may refuse it before anything is sent. */
  route?: (path: string) => string;
  /** Keeps requests within the hosted edition's rate limits (src/api/pacing.ts). */
  pacer?: Pacer;
}

export interface RequestSpec<S extends z.ZodMiniType | undefined = undefined> {
  method: Method;
  /** Path below the base URL (e.g. `/api/v3/catalog`). */
  path: string;
  /** `auth`: the token endpoint's base. */
  base?: 'service' | 'auth';
  query?: Record<string, QueryValue>;
  json?: unknown;
  form?: Record<string, string>;
  /** Send the Authorization header (default true). */
  auth?: boolean;
  /**
   * Safe to repeat: GET and HEAD always are; a PUT or DELETE only when it carries a tag or version, so
   * the caller says so. Anything else is sent once, and retried only if it never reached the server.
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
   * A results page: its body has bounds of its own (RESULTS_PAGE_TIMEOUTS × --timeout, RESULTS_PAGE_MAX_BYTES)
   * instead of --timeout and MAX_BODY_BYTES.
   */
  resultsPage?: boolean;
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

type ResponseOf<S> = S extends z.ZodMiniType ? z.infer<S> : unknown;

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  contentType: string;
  text: string;
  /** The body undecoded, of a success asked for as `bytes` (`text` is then empty). */
  bytes?: Buffer;
  /** How many times the request was sent (more than 1 after retries). */
  attempts: number;
}

const DEFAULT_RETRY: RetryPolicy = { retries: 3, baseDelayMs: 250, maxDelayMs: 8_000 };
/**
 * The bounds of one exchange (docs/cli-contract.md "Retries"): --timeout bounds each attempt whole, from
 * the connection to the body's last byte, and a body larger than MAX_BODY_BYTES is refused (exit 7). A
 * results page (at most 500 rows, some of them wide) has RESULTS_PAGE_TIMEOUTS × --timeout and
 * RESULTS_PAGE_MAX_BYTES; each pause in its body is still bounded by --timeout.
 */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;
const RESULTS_PAGE_MAX_BYTES = 256 * 1024 * 1024;
const RESULTS_PAGE_TIMEOUTS = 4;
/** Same-origin redirects of a GET or HEAD followed in one exchange, at most. */
const MAX_REDIRECTS = 5;
/** A server asking for a longer wait than this is not waited for: the error is reported instead. */
const MAX_RETRY_AFTER_MS = 30_000;
const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
/** The longest Retry-After of a 429 waited for under the hosted edition's per-minute limits. */
const MAX_RATE_LIMIT_WAIT_MS = 90_000;
/** Attempts after a 429 of the hosted edition's limits (src/api/pacing.ts). */
const RATE_LIMIT_RETRIES = 8;
/** Errors that prove the request never reached the server, so even a POST may be sent again. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

export class ApiClient {
  readonly baseUrl: string;
  readonly authUrl: string;
  private readonly dispatcher: Dispatcher;
  private readonly retry: RetryPolicy;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly opts: ClientOptions) {
    this.baseUrl = trimSlash(opts.baseUrl);
    this.authUrl = trimSlash(opts.authUrl ?? opts.baseUrl);
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.dispatcher = opts.dispatcher ?? createDispatcher(opts);
  }

  /** Sends a request and returns its parsed body, or throws the typed error for its failure. */
  async request<S extends z.ZodMiniType | undefined = undefined>(
    spec: RequestSpec<S>,
  ): Promise<ResponseOf<S>> {
    const raw = await this.send(spec);
    if (raw.status === 404 && spec.notFoundIsUndefined) return undefined as ResponseOf<S>;
    if (raw.status >= 400) throw this.failure(raw, spec.method, this.routed(spec));
    return this.decode(spec, raw) as ResponseOf<S>;
  }

  /** Like `request`, but returns the raw response of any status (for `dlake api`). */
  async send(spec: RequestSpec<z.ZodMiniType | undefined>): Promise<RawResponse> {
    const idempotent = spec.idempotent ?? (spec.method === 'GET' || spec.method === 'HEAD');
    let renewed = false;
    /** Where a same-origin redirect sent the request (else the spec's own URL), and how many there were. */
    let at: URL | undefined;
    let redirects = 0;
    for (let attempt = 0; ; attempt++) {
      let raw: RawResponse;
      if (this.opts.pacer && spec.base !== 'auth') await this.opts.pacer.take(this.routed(spec), spec.signal);
      try {
        raw = { ...(await this.sendOnce(spec, at)), attempts: attempt + 1 };
      } catch (err) {
        const code = errorCode(err);
        const retryable = idempotent || NEVER_SENT.has(code ?? '');
        if (retryable && attempt < this.retry.retries && isTransient(err)) {
          await this.backoff(attempt, undefined, describeNetworkError(err, this.opts.timeoutMs));
          continue;
        }
        throw this.networkError(spec, err, attempt + 1);
      }
      if (isRedirect(raw.status)) {
        const from = at ?? this.url(spec);
        const to = this.redirectTarget(spec, raw, from, redirects);
        at = to;
        redirects++;
        // A redirect is not a failed attempt: the retries stay for failures.
        attempt--;
        continue;
      }
      if (raw.status === 401 && spec.auth !== false && !renewed && this.opts.auth?.renew) {
        // A 401 means the request was refused before it ran, so sending it again is safe.
        renewed = true;
        if (await this.opts.auth.renew()) continue;
      }
      // A 429 refused the request before it ran, so even a POST may be sent again; the hosted edition's limits
      // count per minute, so its waits may be longer (docs/api-facts.md §13.5).
      // The pacer then holds every request of that limit back until the answer's Retry-After, and a limit's
      // 429s get more attempts than other failures: a long export must not be throttled into failure.
      const limited = raw.status === 429 && this.opts.pacer !== undefined;
      const retryable = idempotent || limited;
      const retries = limited ? Math.max(this.retry.retries, RATE_LIMIT_RETRIES) : this.retry.retries;
      if (retryable && RETRYABLE_STATUS.has(raw.status) && attempt < retries) {
        const wait = retryAfterMs(raw.headers['retry-after']);
        const longest = limited ? MAX_RATE_LIMIT_WAIT_MS : MAX_RETRY_AFTER_MS;
        if (wait === undefined || wait <= longest) {
          if (limited)
            this.opts.pacer!.hold(this.routed(spec), wait ?? this.retry.baseDelayMs * 2 ** attempt);
          await this.backoff(attempt, wait, `${raw.status}`);
          continue;
        }
      }
      return raw;
    }
  }

  /**
   * Where a 3xx answer sends the request, if dlake follows it: only a GET or HEAD, only within the origin it
   * was sent to (so credentials never go elsewhere), at most MAX_REDIRECTS times. Otherwise the answer is
   * an error that names where it pointed (exit 7).
   */
  private redirectTarget(
    spec: RequestSpec<z.ZodMiniType | undefined>,
    raw: RawResponse,
    from: URL,
    redirects: number,
  ): URL {
    const header = raw.headers.location;
    const location = Array.isArray(header) ? header[0] : header;
    const endpoint = `${spec.method} ${spec.path}`;
    if (!location)
      return fail(
        new ServiceError(`the service answered ${endpoint} with a redirect (${raw.status}) to nowhere`),
      );
    let to: URL;
    try {
      to = new URL(location, from);
    } catch {
      return fail(new ServiceError(`${endpoint} was redirected to ${printable(location)} (${raw.status})`));
    }
    const safe = spec.method === 'GET' || spec.method === 'HEAD';
    if (safe && to.origin === from.origin && redirects < MAX_REDIRECTS) {
      this.opts.trace?.(`following the redirect (${raw.status}) to ${to.pathname}${to.search}`);
      return to;
    }
    // Userinfo in a Location is a credential of someone's: never printed.
    to.username = '';
    to.password = '';
    const why = redirects >= MAX_REDIRECTS ? `, after ${redirects} redirects` : '';
    return fail(
      new ServiceError(`${endpoint} was redirected to ${printable(to.toString())} (${raw.status}${why})`, {
        hint:
          to.origin === from.origin
            ? undefined
            : "dlake follows redirects only within the service URL's origin; if the service has moved, use its new URL",
      }),
    );
  }

  /** The typed error for an error answer; one that survived retries says how often it was tried. */
  failure(raw: RawResponse, method: string, path: string): DlakeError {
    const err = errorFromResponse({ ...raw, method, path });
    if (raw.attempts > 1) err.message += `; ${attemptsText(raw.attempts)}`;
    return err;
  }

  /**
   * Ends the connections once the command is done. Called only after every request has been answered, so
   * there is nothing to wait for: `destroy()` drops the idle keep-alive sockets at once, where `close()`
   * waits for each socket's orderly shutdown (measured: ~170 ms added to every command that made a request).
   */
  async close(): Promise<void> {
    if (!this.opts.dispatcher) await this.dispatcher.destroy();
  }

  urlFor(spec: Pick<RequestSpec, 'path' | 'query' | 'base'>): string {
    return this.url(spec).toString();
  }

  /** The path as sent: the token endpoint's as given, the service's on the edition's root. */
  private routed(spec: Pick<RequestSpec, 'path' | 'base'>): string {
    return spec.base === 'auth' || !this.opts.route ? spec.path : this.opts.route(spec.path);
  }

  private url(spec: Pick<RequestSpec, 'path' | 'query' | 'base'>): URL {
    const base = spec.base === 'auth' ? this.authUrl : this.baseUrl;
    const url = new URL(base + this.routed(spec));
    for (const [k, v] of Object.entries(spec.query ?? {})) {
      if (v === undefined) continue;
      if (Array.isArray(v)) for (const item of v) url.searchParams.append(k, item);
      else url.searchParams.set(k, String(v));
    }
    return url;
  }

  private async sendOnce(
    spec: RequestSpec<z.ZodMiniType | undefined>,
    /** Where a same-origin redirect sent the request, instead of the spec's URL. */
    at?: URL,
  ): Promise<Omit<RawResponse, 'attempts'>> {
    const target = at ?? this.url(spec);
    const url = target.toString();
    const headers: Record<string, string> = {
      accept: spec.accept ?? 'application/json',
      'user-agent': this.opts.userAgent ?? 'dlake',
    };
    let body: string | undefined;
    if (spec.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(spec.json);
    } else if (spec.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(spec.form).toString();
    }
    if (spec.auth !== false && this.opts.auth) headers.authorization = await this.opts.auth.header();
    const trace = this.opts.trace;
    const started = performance.now();
    if (trace) {
      trace(`> ${spec.method} ${url}`);
      for (const [k, v] of Object.entries(headers)) trace(`>   ${k}: ${redactHeader(k, v)}`);
      if (spec.json !== undefined)
        trace(`>   body: ${JSON.stringify(redactJson(spec.json, spec.secretFields))}`);
      if (spec.form) trace(`>   body: ${new URLSearchParams(redactForm(spec.form)).toString()}`);
    }
    // undici checks its own timeouts on a clock that ticks about once a second, so `--timeout 2s` used to
    // fire up to a second late on every attempt. A timer of our own bounds the whole exchange (connection,
    // headers and body) to --timeout itself, or a results page's body to its own bound; undici's bodyTimeout
    // still bounds each pause in a body. A body that trickles or never ends stops there.
    // The caller's signal aborts the same controller, through a listener removed once the body is read:
    // AbortSignal.any left a reference in the caller's signal for every request (a 1M-row export makes 2,000).
    const deadline = new AbortController();
    const timeoutMs = this.opts.timeoutMs;
    let timer = setTimeout(() => deadline.abort(headersTimeout()), timeoutMs);
    const outer = spec.signal;
    const relay = (): void => deadline.abort(outer?.reason);
    if (outer?.aborted) relay();
    else outer?.addEventListener('abort', relay, { once: true });
    try {
      const options: DispatchOptions = {
        origin: target.origin,
        path: target.pathname + target.search,
        method: spec.method,
        headers,
        body,
        headersTimeout: this.opts.timeoutMs,
        bodyTimeout: this.opts.timeoutMs,
      };
      const headersIn = (): void => {
        clearTimeout(timer);
        const bodyMs = spec.resultsPage
          ? timeoutMs * RESULTS_PAGE_TIMEOUTS
          : timeoutMs - (performance.now() - started);
        timer = setTimeout(
          () =>
            deadline.abort(
              bodyDeadline(
                spec.resultsPage ? timeoutMs * RESULTS_PAGE_TIMEOUTS : timeoutMs,
                !!spec.resultsPage,
              ),
            ),
          Math.max(0, bodyMs),
        );
      };
      let res: Answer;
      try {
        res =
          spec.responseType === 'bytes'
            ? await requestBytes(
                this.dispatcher,
                options,
                spec.bodyBuffers ?? new BufferPool(0),
                deadline,
                headersIn,
                spec.resultsPage ? RESULTS_PAGE_MAX_BYTES : MAX_BODY_BYTES,
                `${spec.method} ${spec.path}`,
              )
            : await requestText(
                this.dispatcher,
                options,
                deadline.signal,
                headersIn,
                spec.responseType === 'none',
                `${spec.method} ${spec.path}`,
              );
      } catch (err) {
        // undici may reject with its own abort error: the deadline's reason says what happened.
        if (deadline.signal.aborted && !outer?.aborted) throw deadline.signal.reason;
        throw err;
      } finally {
        clearTimeout(timer);
      }
      const contentType = String(res.headers['content-type'] ?? '');
      if (trace) {
        trace(`< ${res.statusCode} ${spec.method} ${url} (${Math.round(performance.now() - started)} ms)`);
        for (const [k, v] of Object.entries(res.headers)) trace(`<   ${k}: ${redactHeader(k, String(v))}`);
      }
      return { status: res.statusCode, headers: res.headers, contentType, text: res.text, bytes: res.bytes };
    } finally {
      outer?.removeEventListener('abort', relay);
    }
  }

  private decode(spec: RequestSpec<z.ZodMiniType | undefined>, raw: RawResponse): unknown {
    if (spec.responseType === 'none') return undefined;
    if (spec.responseType === 'text') return raw.text;
    if (spec.responseType === 'bytes') return raw.bytes;
    const endpoint = `${spec.method} ${spec.path}`;
    if (raw.status === 204 || raw.text === '') {
      if (!spec.schema) return undefined;
      throw new ServiceError(`the service sent an empty answer to ${endpoint}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(raw.text);
    } catch {
      const what =
        /html/i.test(raw.contentType) || /^\s*</.test(raw.text) ? 'an HTML page' : 'a body that is not JSON';
      throw new ServiceError(
        `the service answered ${endpoint} with ${what} (${raw.contentType || 'no content type'})`,
        { advice: { kind: 'not-the-service' } },
      );
    }
    if (!spec.schema) return json;
    const parsed = spec.schema.safeParse(json);
    if (parsed.success) {
      rememberReceived(parsed.data, json);
      return parsed.data;
    }
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length ? issue.path.join('.') : '(body)';
    throw new ServiceError(`unexpected answer from ${endpoint}: ${field}: ${issue.message}`, {
      details: parsed.error.issues.slice(1, 4).map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`),
    });
  }

  private async backoff(attempt: number, retryAfter: number | undefined, why: string): Promise<void> {
    const exp = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** attempt);
    // Full jitter spreads the retries of concurrent page fetches; Retry-After is a floor.
    const delay = Math.max(retryAfter ?? 0, Math.round(exp / 2 + (Math.random() * exp) / 2));
    this.opts.trace?.(
      `retrying in ${delay} ms after ${why} (attempt ${attempt + 2} of ${this.retry.retries + 1})`,
    );
    await this.sleep(delay);
  }

  private networkError(
    spec: RequestSpec<z.ZodMiniType | undefined>,
    err: unknown,
    attempts: number,
  ): DlakeError {
    if (err instanceof DlakeError) return err;
    const name = (err as Error)?.name;
    if (name === 'AbortError' || errorCode(err) === 'UND_ERR_ABORTED')
      return new InterruptedError('interrupted');
    const url = this.urlFor({ ...spec, query: undefined });
    const code = errorCode(err);
    const tries = attempts > 1 ? `; ${attemptsText(attempts)}` : '';
    const what = describeNetworkError(err, this.opts.timeoutMs);
    return new ServiceError(`cannot reach ${url}: ${what}${tries}`, {
      cause: err,
      advice: networkAdvice(code, err),
    });
  }
}

function createDispatcher(
  opts: Pick<ClientOptions, 'caFile' | 'insecure' | 'env' | 'timeoutMs'>,
): Dispatcher {
  let ca: string[] | undefined;
  if (opts.caFile) {
    try {
      // An extra CA adds to the system's roots; it does not replace them. node:tls (and with it all of
      // node:crypto) is loaded only here: a plain-http request does not need it at start.
      const { rootCertificates } = process.getBuiltinModule('node:tls');
      const pem = readTextFile(opts.caFile, 'the CA file');
      // Node would take a file without a certificate silently and then trust nothing extra.
      if (!/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.test(pem)) {
        throw new UsageError(`the CA file ${opts.caFile} holds no PEM certificate`, {
          advice: { kind: 'ca-file-without-certificate' },
        });
      }
      ca = [...rootCertificates, pem];
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(`cannot use the CA file ${opts.caFile}: ${(e as Error).message}`);
    }
  }
  const connect = { ca, rejectUnauthorized: !opts.insecure, timeout: opts.timeoutMs };
  const common = {
    connect,
    keepAliveTimeout: 10_000,
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
  };
  const env = opts.env;
  const httpProxy = env.HTTP_PROXY ?? env.http_proxy;
  const httpsProxy = env.HTTPS_PROXY ?? env.https_proxy;
  if (httpProxy || httpsProxy) {
    return new EnvHttpProxyAgent({
      ...common,
      httpProxy,
      httpsProxy,
      noProxy: env.NO_PROXY ?? env.no_proxy,
      requestTls: { ca, rejectUnauthorized: !opts.insecure },
    });
  }
  return new Agent(common);
}

/** An answer as the requests below give it: its body as text, or (a success read as bytes) as bytes. */
interface Answer {
  statusCode: number;
  headers: RawResponse['headers'];
  text: string;
  bytes?: Buffer;
}

/**
 * A request through undici's `request`, its body read as text; with `discard`, a success's body is read and
 * dropped. A body that is not wanted is still read on an error: it carries the service's message. `signal`
 * aborts it; `onHeaders` is called once the answer's headers are in.
 */
async function requestText(
  dispatcher: Dispatcher,
  options: DispatchOptions,
  signal: AbortSignal,
  onHeaders: () => void,
  discard: boolean,
  endpoint: string,
): Promise<Answer> {
  const res = await dispatcher.request({ ...options, signal });
  onHeaders();
  const { statusCode, headers } = res;
  if (discard && statusCode < 400) {
    await res.body.dump();
    return { statusCode, headers, text: '' };
  }
  if (Number(headers['content-length']) > MAX_BODY_BYTES) {
    res.body.destroy();
    throw tooLarge(endpoint, MAX_BODY_BYTES);
  }
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const chunk of res.body) {
    n += (chunk as Buffer).length;
    if (n > MAX_BODY_BYTES) {
      res.body.destroy();
      throw tooLarge(endpoint, MAX_BODY_BYTES);
    }
    chunks.push(chunk as Buffer);
  }
  return { statusCode, headers, text: new TextDecoder().decode(Buffer.concat(chunks, n)) };
}

/** A body past its cap: the service (or whatever answers in its place) sends more than any answer holds. */
function tooLarge(endpoint: string, cap: number): ServiceError {
  return new ServiceError(
    `the answer to ${endpoint} is larger than ${formatSize(cap)}, the most dlake reads of it; it was not read`,
  );
}

/**
 * A request whose body is read into a buffer of `pool` (as big as its content-length says, grown where that
 * says too little), or as text on an error status. Through undici's handler interface rather than `request`:
 * the Readable stream `request` makes of each body cost ~75 µs of CPU a page, a tenth of a CSV export's
 * (docs/benchmarks.md). `signal` aborts it; `onHeaders` is called once the answer's headers are in.
 */
function requestBytes(
  dispatcher: Dispatcher,
  options: DispatchOptions,
  pool: BufferPool,
  deadline: AbortController,
  onHeaders: () => void,
  cap: number,
  endpoint: string,
): Promise<Answer> {
  const signal = deadline.signal;
  return new Promise((resolve, reject) => {
    let controller: DispatchController | undefined;
    let statusCode = 0;
    let headers: RawResponse['headers'] = {};
    let buf: Buffer | undefined;
    let n = 0;
    const errorBody: Buffer[] = [];
    const stop = (): void => controller?.abort(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    const settle = (): void => signal.removeEventListener('abort', stop);
    dispatcher.dispatch(options, {
      onRequestStart(c) {
        controller = c;
        if (signal.aborted) c.abort(signal.reason);
      },
      onResponseStart(_c, status, h) {
        onHeaders();
        statusCode = status;
        headers = h;
        const length = Number(h['content-length']);
        if (length > cap) return deadline.abort(tooLarge(endpoint, cap));
        if (status >= 400) return;
        buf = pool.take(Number.isSafeInteger(length) && length > 0 ? length : 0);
      },
      onResponseData(_c, chunk) {
        if (n + chunk.length > cap) return deadline.abort(tooLarge(endpoint, cap));
        if (!buf) {
          n += chunk.length;
          errorBody.push(chunk);
          return;
        }
        if (n + chunk.length > buf.length) {
          const bigger = pool.take(Math.max(buf.length * 2, n + chunk.length));
          buf.copy(bigger, 0, 0, n);
          pool.give(buf);
          buf = bigger;
        }
        n += chunk.copy(buf, n);
      },
      onResponseEnd() {
        settle();
        if (buf) resolve({ statusCode, headers, bytes: buf.subarray(0, n), text: '' });
        else resolve({ statusCode, headers, text: new TextDecoder().decode(Buffer.concat(errorBody)) });
      },
      onResponseError(_c, err) {
        settle();
        if (buf) pool.give(buf);
        reject(err);
      },
    });
  });
}

/** The error of a wait for the answer that outlasted the per-request timeout (treated like undici's own). */
function headersTimeout(): Error {
  return Object.assign(new Error('headers timeout'), { code: 'UND_ERR_HEADERS_TIMEOUT' });
}

/** The error of a body still arriving at the end of its bound (a page's, or --timeout's): retried as a timeout. */
function bodyDeadline(limitMs: number, resultsPage: boolean): Error {
  const bound = resultsPage
    ? `${formatDuration(limitMs)} (${RESULTS_PAGE_TIMEOUTS} × the per-request timeout), a results page's bound`
    : `the per-request timeout of ${formatDuration(limitMs)}`;
  return Object.assign(new Error(`the answer did not arrive whole within ${bound}`), {
    code: 'DLAKE_BODY_DEADLINE',
  });
}

const isRedirect = (status: number): boolean => status >= 300 && status < 400 && status !== 304;

/** Throws `err` (for a function that returns on its other paths). */
function fail(err: Error): never {
  throw err;
}

/** Text from a header, safe to print on one line: control characters escaped. */
function printable(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f-\u009f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}

/** How hard dlake tried before giving up (1 attempt + the retries). */
function attemptsText(attempts: number): string {
  return `gave up after ${attempts} attempts`;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function errorCode(err: unknown): string | undefined {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.code ?? e?.cause?.code;
}

function isTransient(err: unknown): boolean {
  const code = errorCode(err) ?? '';
  return (
    NEVER_SENT.has(code) ||
    /^(ECONNRESET|EPIPE|ETIMEDOUT|UND_ERR_SOCKET|UND_ERR_HEADERS_TIMEOUT|UND_ERR_BODY_TIMEOUT|DLAKE_BODY_DEADLINE|UND_ERR_RES_CONTENT_LENGTH_MISMATCH|UND_ERR_CLOSED)$/.test(
      code,
    )
  );
}

function describeNetworkError(err: unknown, timeoutMs: number): string {
  const code = errorCode(err);
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `no connection within the per-request timeout of ${formatDuration(timeoutMs)}`;
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return `no answer within the per-request timeout of ${formatDuration(timeoutMs)}`;
    case 'DLAKE_BODY_DEADLINE':
      return (err as Error).message;
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the connection was closed before the answer was complete';
    case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
      return 'the answer was cut short';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return "the server's TLS certificate is for another host name";
    default: {
      if (isNotTls(code, err)) return 'the server does not speak TLS (https) on this port';
      // OpenSSL's messages can hold line breaks: an error is one line.
      const msg = ((err as Error)?.message ?? String(err)).replace(/\s+/g, ' ').trim();
      if (isTlsTrustError(code)) return `the server's TLS certificate is not trusted (${msg})`;
      return code ? `${msg} (${code})` : msg;
    }
  }
}

/** The server answered a TLS hello with something else: plain HTTP on an https:// URL. */
function isNotTls(code: string | undefined, err: unknown): boolean {
  const msg = `${(err as Error)?.message ?? ''} ${(err as { cause?: Error })?.cause?.message ?? ''}`;
  return (
    code === 'ERR_SSL_WRONG_VERSION_NUMBER' ||
    code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG' ||
    code === 'ERR_SSL_HTTP_REQUEST' ||
    (code === 'EPROTO' && /wrong version number|packet length too long|http request/i.test(msg))
  );
}

function networkAdvice(code: string | undefined, err: unknown): Advice | undefined {
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return { kind: 'certificate-name-mismatch' };
  if (isNotTls(code, err)) return { kind: 'not-tls' };
  if (isTlsTrustError(code)) return { kind: 'untrusted-certificate' };
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND') return { kind: 'unreachable' };
  if (
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'DLAKE_BODY_DEADLINE'
  )
    return { kind: 'timed-out' };
  return undefined;
}

function isTlsTrustError(code: string | undefined): boolean {
  return /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/i.test(code ?? '');
}

function retryAfterMs(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
