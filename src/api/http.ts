// The one HTTP client of dlake: a request described as data (api/endpoint.ts) goes through small layers, each
// wrapping the next (docs/architecture.md "The request pipeline"):
//
//   route → retry → pace → authorize → redirect → deadline → transport, then decode → errors
//
// No printing, prompting or exiting here.
import type * as z from 'zod/mini';
import type { Pacer } from './pacing.js';
import { type AuthProvider, authorize } from './pipeline/authorize.js';
import { deadline } from './pipeline/deadline.js';
import { decode, failure } from './pipeline/decode.js';
import { createDispatcher } from './pipeline/dispatcher.js';
import { pace } from './pipeline/pace.js';
import { redirect } from './pipeline/redirect.js';
import { DEFAULT_RETRY, type RetryPolicy, retry } from './pipeline/retry.js';
import { type RouteMemory, route, routes } from './pipeline/route.js';
import { transport } from './pipeline/transport.js';
import {
  type AnySpec,
  compose,
  type Layer,
  type RawResponse,
  type RequestSpec,
  type Send,
} from './pipeline/types.js';
import type { Sleep } from './pipeline/wait.js';
import type { Root } from './roots.js';
import type { Dispatcher } from './undici-lite.js';

export type { AuthProvider } from './pipeline/authorize.js';
export { MAX_BODY_BYTES } from './pipeline/transport.js';
export type { Method, RawResponse, RequestSpec } from './pipeline/types.js';

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
  /** Replaceable in tests: every wait of the pipeline (backoff, Retry-After) goes through it. */
  sleep?: Sleep;
  /** A dispatcher of the caller's (a test's MockAgent): used as it is, and left open by close(). */
  dispatcher?: Dispatcher;
  /** The edition and project in force (default: the self-hosted edition). */
  root?: Root;
  /** Which of a resource's hosted forms answered, per profile (api/pipeline/route.ts). */
  routeMemory?: RouteMemory;
  /** Keeps requests within the hosted edition's rate limits (api/pacing.ts). */
  pacer?: Pacer;
}

type ResponseOf<S> = S extends z.ZodMiniType ? z.infer<S> : unknown;

export class ApiClient {
  readonly baseUrl: string;
  readonly authUrl: string;
  /** Its requests count against the hosted edition's rate limits (it has a pacer): every poll costs. */
  readonly rateLimited: boolean;
  private readonly dispatcher: Dispatcher;
  private readonly root: Root;
  private readonly pipeline: Send;

  constructor(private readonly opts: ClientOptions) {
    this.baseUrl = trimSlash(opts.baseUrl);
    this.authUrl = trimSlash(opts.authUrl ?? opts.baseUrl);
    this.root = opts.root ?? { edition: 'software' };
    this.rateLimited = opts.pacer !== undefined;
    this.dispatcher = opts.dispatcher ?? createDispatcher(opts);
    const layers: Layer[] = [
      route({ baseUrl: this.baseUrl, authUrl: this.authUrl, root: this.root, memory: opts.routeMemory }),
      retry({
        policy: { ...DEFAULT_RETRY, ...opts.retry },
        paced: opts.pacer !== undefined,
        timeoutMs: opts.timeoutMs,
        sleep: opts.sleep,
        trace: opts.trace,
      }),
      ...(opts.pacer ? [pace(opts.pacer)] : []),
      authorize(opts.auth),
      redirect(opts.trace),
      deadline(opts.timeoutMs),
    ];
    this.pipeline = compose(
      layers,
      transport({
        dispatcher: this.dispatcher,
        timeoutMs: opts.timeoutMs,
        userAgent: opts.userAgent,
        trace: opts.trace,
      }),
    );
  }

  /** Sends a request and returns its parsed body, or throws the typed error for its failure. */
  async request<S extends z.ZodMiniType | undefined = undefined>(
    spec: RequestSpec<S>,
  ): Promise<ResponseOf<S>> {
    const raw = await this.send(spec);
    if (raw.status === 404 && spec.notFoundIsUndefined) return undefined as ResponseOf<S>;
    if (raw.status >= 400) throw failure(raw, spec);
    return decode(spec, raw) as ResponseOf<S>;
  }

  /** Like `request`, but returns the raw response of any status (for `dlake api`). */
  send(spec: AnySpec): Promise<RawResponse> {
    // The URL is the route layer's to set; this one only stands in until it does.
    return this.pipeline({
      spec,
      url: new URL(this.baseUrl),
      endpoint: spec.method,
      headers: {},
      signal: spec.signal,
    });
  }

  /**
   * This client with every request that carries no signal of its own aborted by `signal` (its waits for a
   * retry or for the pacing included): how an operation (src/ops) makes each call it makes cancellable,
   * whichever API function it calls. The same connections, credentials and pacing.
   */
  withSignal(signal: AbortSignal | undefined): ApiClient {
    if (!signal) return this;
    const bound = Object.create(this) as ApiClient;
    bound.send = (spec) => this.send(spec.signal ? spec : { ...spec, signal });
    return bound;
  }

  /** The typed error for an error answer of `spec` (for `dlake api`, which sends with `send`). */
  failure(raw: RawResponse, spec: Pick<AnySpec, 'at'>): Error {
    return failure(raw, spec);
  }

  /** The URL a request goes to first, as routed on the edition in force (what --dry-run prints). */
  urlFor(spec: Pick<AnySpec, 'at' | 'query'>): string {
    return routes(this.routeOptions(), spec.at, spec.query)[0]!.url.toString();
  }

  /**
   * Ends the connections once the command is done. Called only after every request has been answered, so
   * there is nothing to wait for: `destroy()` drops the idle keep-alive sockets at once, where `close()`
   * waits for each socket's orderly shutdown (measured: ~170 ms added to every command that made a request).
   */
  async close(): Promise<void> {
    if (!this.opts.dispatcher) await this.dispatcher.destroy();
  }

  private routeOptions() {
    return { baseUrl: this.baseUrl, authUrl: this.authUrl, root: this.root, memory: this.opts.routeMemory };
  }
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
