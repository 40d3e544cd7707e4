// An Arrow Flight client on @grpc/grpc-js: the three calls of Apache Arrow's Flight.proto (proto/README.md)
// dlake makes, their messages encoded by ./codec.ts. Loaded only by an export that uses Flight (docs/architecture.md "Start-up").
// - A received message may be as large as MAX_FLIGHT_MESSAGE_BYTES (./validate.ts): the service's batches are
//   larger than gRPC's 4 MiB default, and no message is taken without a bound.
// - An idle timeout (`idleMs` without a message ends a call) and, when given, a bound on the whole export
//   (`total`: every call and stream of it together).
// - The session cookie the server sets is sent back on every later call of the connection (docs/api-facts.md
//   §14); the hosted edition's project is a session option set before the query. The authorization header is
//   given per call and never traced.
import * as grpc from '@grpc/grpc-js';
import { readCaFile } from '../../util/files.js';
import { secretsInForce } from '../../util/secrets.js';
import { timerMs } from '../../util/units.js';
import {
  decodeFlightData,
  decodeFlightInfo,
  decodeResult,
  decodeSetSessionOptionsResult,
  encodeAction,
  encodeCommandDescriptor,
  encodeHandshakeRequest,
  encodeSetSessionOptions,
  encodeTicket,
  FLIGHT_SERVICE,
  type FlightData,
  type FlightInfo,
} from './codec.js';
import type { FlightEndpoint } from './endpoint.js';
import { MAX_FLIGHT_MESSAGE_BYTES } from './validate.js';

export interface FlightClientOptions {
  endpoint: FlightEndpoint;
  caFile?: string;
  insecure?: boolean;
  /** No message for this long ends a call (DEADLINE_EXCEEDED). */
  idleMs: number;
  /**
   * The whole export's bound, from the client's creation: past it the call under way ends (DEADLINE_EXCEEDED)
   * with `the Flight export did not end within <what>`.
   */
  total?: { ms: number; what: string };
  /** Headers sent on every call besides authorization and the cookie. */
  headers?: Record<string, string>;
  /** A line for --debug (never a credential). */
  trace?: (line: string) => void;
}

/**
 * Messages of a DoGet stream gRPC holds unread before it stops reading the connection (Node's default for its
 * object-mode streams: 16). Each held message is a buffer of the batch's size that outlives V8's
 * young-generation collections while it waits, and is then freed only by a full one: a 10M-row export peaked
 * 4-8 MiB higher holding 16, at the same CPU (docs/benchmarks.md "Text formats: the pipeline, and a second
 * thread"). Four keep the export's thread fed: it formats one in about the time the server sends several.
 */
const HELD_MESSAGES = 4;

/**
 * The HTTP/2 flow-control window dlake offers, per stream and for the connection: a receiver reads at most one
 * window per round trip, and grpc-js, unlike gRPC C++ and grpc-go, does not grow it by probing (docs/api-facts.md
 * §14 "HTTP/2 flow control"). 8 MiB is the smallest measured window that is not what limits a 20 ms export and
 * keeps a 10M-row export of every format under its 150 MiB peak RSS on the loopback, where the server fills it
 * (16 MiB went past); 64 KiB made a 20 ms export 30× slower (docs/benchmarks.md "Flight export across a network:
 * the HTTP/2 window").
 */
const FLOW_CONTROL_WINDOW = 8 * 2 ** 20;

/** The error of a call: gRPC's status code and message (`details`). */
export type FlightCallError = Error & { code: grpc.status; details?: string };

export const STATUS = grpc.status;

/**
 * A session option the endpoint did not set (the hosted edition's project): without it the organisation's
 * default project would answer, so the export stops, exit 6, naming the option and why.
 */
export class SessionOptionError extends Error {
  readonly code = grpc.status.FAILED_PRECONDITION;

  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

type Stub = grpc.Client & { [method: string]: (...args: unknown[]) => unknown };

let serviceCtor: grpc.ServiceClientConstructor | undefined;
function service(): grpc.ServiceClientConstructor {
  const method = <Req, Res>(
    name: string,
    stream: { requestStream: boolean; responseStream: boolean },
    serialize: (m: Req) => Buffer,
    deserialize: (b: Buffer) => Res,
  ): grpc.MethodDefinition<Req, Res> => ({
    path: `${FLIGHT_SERVICE}/${name}`,
    ...stream,
    requestSerialize: serialize,
    requestDeserialize: () => {
      throw new Error('a client does not read requests');
    },
    responseSerialize: () => {
      throw new Error('a client does not write responses');
    },
    responseDeserialize: deserialize,
  });
  serviceCtor ??= grpc.makeGenericClientConstructor(
    {
      Handshake: method(
        'Handshake',
        { requestStream: true, responseStream: true },
        (m: { payload: Uint8Array }) => encodeHandshakeRequest(m.payload),
        () => ({}),
      ),
      GetFlightInfo: method(
        'GetFlightInfo',
        { requestStream: false, responseStream: false },
        (m: { cmd: Buffer }) => encodeCommandDescriptor(m.cmd),
        decodeFlightInfo,
      ),
      DoGet: method(
        'DoGet',
        { requestStream: false, responseStream: true },
        (m: { ticket: Buffer }) => encodeTicket(m.ticket),
        decodeFlightData,
      ),
      DoAction: method(
        'DoAction',
        { requestStream: false, responseStream: true },
        (m: { type: string; body: Buffer }) => encodeAction(m.type, m.body),
        decodeResult,
      ),
    },
    'FlightService',
  );
  return serviceCtor;
}

export class FlightClient {
  private readonly stub: Stub;
  private cookie?: string;
  /** When the whole export must have ended (ms since the epoch), if bounded. */
  private readonly endsAt?: number;

  constructor(private readonly opts: FlightClientOptions) {
    const { endpoint } = opts;
    if (opts.total) this.endsAt = Date.now() + opts.total.ms;
    let creds = grpc.credentials.createInsecure();
    let ipServerName: string | undefined;
    if (endpoint.tls) {
      let ca: Buffer | null = null;
      if (opts.caFile) {
        // gRPC takes the given roots instead of the system's: both, as for HTTPS (src/api/http.ts). A file
        // that is not a regular one, or too large, is refused before it is read (exit 2).
        const { rootCertificates } = process.getBuiltinModule('node:tls');
        ca = Buffer.from([...rootCertificates, readCaFile(opts.caFile)].join('\n'));
      }
      const tls = process.getBuiltinModule('node:tls');
      const { isIP } = process.getBuiltinModule('node:net');
      // gRPC sends the host as the TLS server name even when it is an IP address, which Node 26 refuses (RFC
      // 6066 names hosts only): an IP host gets a placeholder name instead, and the certificate is still checked
      // against the address itself.
      const address = endpoint.host.replace(/^\[|\]$/g, '');
      ipServerName = isIP(address) ? 'ip-address.invalid' : undefined;
      creds = grpc.credentials.createSsl(ca, null, null, {
        rejectUnauthorized: !opts.insecure,
        ...(opts.insecure
          ? { checkServerIdentity: () => undefined }
          : ipServerName
            ? { checkServerIdentity: (_name: string, cert) => tls.checkServerIdentity(address, cert) }
            : {}),
      });
    }
    const Ctor = service();
    this.stub = new Ctor(`${endpoint.host}:${endpoint.port}`, creds, {
      ...(ipServerName ? { 'grpc.ssl_target_name_override': ipServerName } : {}),
      // A message's own bound is checked again, with a message of dlake's, by ./validate.ts; gRPC's stops a
      // larger one before it is buffered whole. The framing of FlightData adds a few bytes to the IPC message.
      'grpc.max_receive_message_length': MAX_FLIGHT_MESSAGE_BYTES + 64 * 1024,
      'grpc.max_send_message_length': -1,
      'grpc.primary_user_agent': `dlake/${__DLAKE_VERSION__}`,
      // A broken connection is noticed even while a stream waits for a slow query.
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 20_000,
      // HTTP/2's window of every stream and of the connection: what the server may send ahead of what dlake
      // has read. grpc-js keeps HTTP/2's 64 KiB unless told, one window a round trip (3 MB/s at 20 ms); see
      // FLOW_CONTROL_WINDOW.
      'grpc-node.flow_control_window': FLOW_CONTROL_WINDOW,
    }) as unknown as Stub;
  }

  close(): void {
    this.stub.close();
  }

  /** A method of the generated client, bound to it. */
  private call(name: string): (...args: unknown[]) => unknown {
    return (this.stub[name] as (...args: unknown[]) => unknown).bind(this.stub);
  }

  /**
   * The Flight handshake with `Basic user:secret` (a password or a PAT): the bearer token the server answers
   * in its authorization header (docs/api-facts.md §14).
   */
  async handshakeBasic(user: string, secret: string, signal?: AbortSignal): Promise<string> {
    const md = this.metadata(`Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`);
    this.trace('Handshake (Basic [redacted])');
    return new Promise<string>((resolve, reject) => {
      const call = this.call('Handshake')(md, { deadline: this.deadline() }) as grpc.ClientDuplexStream<
        unknown,
        unknown
      >;
      const stop = () => call.cancel();
      signal?.addEventListener('abort', stop, { once: true });
      let bearer: string | undefined;
      call.on('metadata', (m: grpc.Metadata) => {
        this.keepCookie(m);
        const auth = String(m.get('authorization')[0] ?? '');
        if (/^bearer\s+\S+$/i.test(auth)) bearer = auth.trim().split(/\s+/)[1];
      });
      call.on('data', () => {});
      call.on('error', (e) => {
        signal?.removeEventListener('abort', stop);
        reject(e);
      });
      call.on('end', () => {
        signal?.removeEventListener('abort', stop);
        if (bearer) resolve(bearer);
        else
          reject(
            Object.assign(new Error('the Flight handshake answered no bearer token'), {
              code: grpc.status.UNAUTHENTICATED,
            }),
          );
      });
      call.write({ payload: Buffer.alloc(0) });
      call.end();
    });
  }

  /** GetFlightInfo of a CMD descriptor holding the SQL: its endpoints' tickets, in order. */
  async getFlightInfo(sql: string, authorization: string, signal?: AbortSignal): Promise<FlightInfo> {
    this.trace(`GetFlightInfo (CMD, ${Buffer.byteLength(sql)} bytes of SQL)`);
    const md = this.metadata(authorization);
    return new Promise((resolve, reject) => {
      const call = this.call('GetFlightInfo')(
        { cmd: Buffer.from(sql, 'utf8') },
        md,
        { deadline: this.deadline() },
        (err: FlightCallError | null, info?: FlightInfo) => {
          signal?.removeEventListener('abort', stop);
          if (err) return reject(this.overall(err));
          resolve(info ?? { tickets: [], totalRecords: -1 });
        },
      ) as grpc.ClientUnaryCall;
      const stop = () => call.cancel();
      signal?.addEventListener('abort', stop, { once: true });
      call.on('metadata', (m: grpc.Metadata) => this.keepCookie(m));
    });
  }

  /**
   * The hosted edition's session options (`project_id`): the `SetSessionOptions` action of Flight.proto (Arrow
   * 16+), whose answer sets the session cookie every later call of this client sends back (docs/api-facts.md
   * §14). An option the server did not set is an error naming it.
   */
  async setSessionOptions(
    options: Record<string, string>,
    authorization: string,
    signal?: AbortSignal,
  ): Promise<void> {
    this.trace(`SetSessionOptions (${Object.keys(options).join(', ')})`);
    const call = this.call('DoAction')(
      { type: 'SetSessionOptions', body: encodeSetSessionOptions(options) },
      this.metadata(authorization),
      { deadline: this.deadline() },
    ) as grpc.ClientReadableStream<Buffer>;
    call.on('metadata', (m: grpc.Metadata) => this.keepCookie(m));
    const stop = () => call.cancel();
    signal?.addEventListener('abort', stop, { once: true });
    const refused: string[] = [];
    const names = Object.keys(options).join(', ');
    try {
      for await (const body of call as AsyncIterable<Buffer>) {
        for (const [name, why] of Object.entries(decodeSetSessionOptionsResult(body)))
          refused.push(`${name} (${why})`);
      }
    } catch (e) {
      // An endpoint without the action (Arrow before 16, or not the hosted edition's) would run the query in
      // another project: it is named, never passed over.
      if ((e as FlightCallError)?.code === grpc.status.UNIMPLEMENTED) {
        const said = (e as FlightCallError).details || (e as Error).message;
        throw new SessionOptionError(
          `the Flight endpoint did not set the session option ${names}: it takes no session options (SetSessionOptions: ${said})`,
          "the hosted edition's Flight endpoint is grpc+tls://data.dremio.cloud:443 (data.eu.dremio.cloud:443 in the EU): check --flight-url",
        );
      }
      throw this.overall(e);
    } finally {
      signal?.removeEventListener('abort', stop);
    }
    if (refused.length > 0) {
      throw new SessionOptionError(
        `the Flight endpoint did not set the session option ${refused.join(', ')}`,
      );
    }
  }

  /**
   * DoGet of one ticket: the stream's FlightData messages, each checked by the reader (./result.ts). Async
   * iteration of the gRPC stream reads a message only when the last one is taken: memory stays flat.
   */
  async *doGet(ticket: Buffer, authorization: string, signal?: AbortSignal): AsyncGenerator<FlightData> {
    this.trace('DoGet');
    const call = this.call('DoGet')(
      { ticket },
      this.metadata(authorization),
    ) as grpc.ClientReadableStream<FlightData>;
    call.on('metadata', (m: grpc.Metadata) => this.keepCookie(m));
    holdAtMost(call, HELD_MESSAGES);
    let idle: NodeJS.Timeout | undefined;
    let fired: 'idle' | 'total' | undefined;
    const arm = () => {
      clearTimeout(idle);
      const left = this.endsAt === undefined ? Number.POSITIVE_INFINITY : this.endsAt - Date.now();
      const which = left < this.opts.idleMs ? 'total' : 'idle';
      idle = setTimeout(
        () => {
          fired = which;
          call.cancel();
        },
        timerMs(Math.min(left, this.opts.idleMs)),
      );
    };
    const stop = () => call.cancel();
    signal?.addEventListener('abort', stop, { once: true });
    arm();
    try {
      for await (const msg of call as AsyncIterable<FlightData>) {
        arm();
        yield msg;
      }
      // A cancelled call may end its iteration without an error: the timer's cancel is still a timeout.
      if (fired) throw this.timedOut(fired);
    } catch (e) {
      if (fired) throw this.timedOut(fired);
      throw e;
    } finally {
      clearTimeout(idle);
      signal?.removeEventListener('abort', stop);
      call.cancel();
    }
  }

  /** A call's deadline that was the whole export's bound: said as that bound, not as gRPC's "Deadline exceeded". */
  private overall(err: unknown): unknown {
    const code = (err as { code?: unknown } | null)?.code;
    const past = this.endsAt !== undefined && Date.now() >= this.endsAt;
    return code === grpc.status.DEADLINE_EXCEEDED && past ? this.timedOut('total') : err;
  }

  private timedOut(which: 'idle' | 'total'): FlightCallError {
    const message =
      which === 'total' && this.opts.total
        ? `the Flight export did not end within ${this.opts.total.what}`
        : `no data from the Flight endpoint for ${Math.round(this.opts.idleMs / 1000)} s`;
    return Object.assign(new Error(message), { code: grpc.status.DEADLINE_EXCEEDED });
  }

  private metadata(authorization: string): grpc.Metadata {
    const md = new grpc.Metadata();
    // Remembered as a secret in force: a Flight error that echoes it is printed without it (output/secrets.ts).
    secretsInForce()?.addAuthorization(authorization);
    md.set('authorization', authorization);
    if (this.cookie) md.set('cookie', this.cookie);
    for (const [k, v] of Object.entries(this.opts.headers ?? {})) md.set(k, v);
    return md;
  }

  /** The cookies a server sets (name=value, attributes dropped), sent back on later calls. */
  private keepCookie(m: grpc.Metadata): void {
    const set = m.get('set-cookie').map((v) => String(v).split(';')[0]!.trim());
    if (set.length === 0) return;
    const jar = new Map((this.cookie?.split('; ') ?? []).map((c) => [c.split('=')[0]!, c]));
    for (const c of set) jar.set(c.split('=')[0]!, c);
    this.cookie = [...jar.values()].join('; ');
    this.trace('kept the session cookie the Flight endpoint set');
  }

  private deadline(): Date {
    const idle = Date.now() + this.opts.idleMs;
    return new Date(this.endsAt === undefined ? idle : Math.min(idle, this.endsAt));
  }

  private trace(line: string): void {
    this.opts.trace?.(`flight ${this.opts.endpoint.url}: ${line}`);
  }
}

/**
 * Sets how many messages a call's stream holds unread: grpc-js's ClientReadableStream is an object-mode
 * Readable made with Node's default high-water mark, which no option of grpc-js sets. Node keeps it as a field
 * of the stream's state; where it is not one (another Node), the default stays.
 */
function holdAtMost(call: object, n: number): void {
  const state = (call as { _readableState?: { highWaterMark?: unknown } })._readableState;
  if (typeof state?.highWaterMark === 'number') state.highWaterMark = n;
}
