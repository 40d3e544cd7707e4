// An Arrow Flight client on @grpc/grpc-js: the three calls of Apache Arrow's Flight.proto (proto/README.md)
// dlake makes, their messages encoded by ./codec.ts. Loaded only by an export that uses Flight (docs/architecture.md "Start-up").
// - No limit on a received message: the service's batches are larger than gRPC's 4 MiB default.
// - An idle timeout rather than a deadline: a stream may take hours, but never `idleMs` without a message.
// - The session cookie the server sets is sent back on every later call of the connection (docs/api-facts.md
//   §13); the authorization header is given per call and never traced.
import { readFileSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { UsageError } from '../../errors.js';
import {
  decodeFlightData,
  decodeFlightInfo,
  encodeCommandDescriptor,
  encodeHandshakeRequest,
  encodeTicket,
  FLIGHT_SERVICE,
  type FlightData,
  type FlightInfo,
} from './codec.js';
import type { FlightEndpoint } from './endpoint.js';

export interface FlightClientOptions {
  endpoint: FlightEndpoint;
  caFile?: string;
  insecure?: boolean;
  /** No message for this long ends a call (DEADLINE_EXCEEDED). */
  idleMs: number;
  /** Headers sent on every call besides authorization and the cookie (e.g. the hosted project id). */
  headers?: Record<string, string>;
  /** A line for --debug (never a credential). */
  trace?: (line: string) => void;
}

/** The error of a call: gRPC's status code and message (`details`). */
export type FlightCallError = Error & { code: grpc.status; details?: string };

export const STATUS = grpc.status;

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
    },
    'FlightService',
  );
  return serviceCtor;
}

export class FlightClient {
  private readonly stub: Stub;
  private cookie?: string;

  constructor(private readonly opts: FlightClientOptions) {
    const { endpoint } = opts;
    let creds = grpc.credentials.createInsecure();
    let ipServerName: string | undefined;
    if (endpoint.tls) {
      let ca: Buffer | null = null;
      if (opts.caFile) {
        try {
          // gRPC takes the given roots instead of the system's: both, as for HTTPS (src/api/http.ts).
          const { rootCertificates } = process.getBuiltinModule('node:tls');
          ca = Buffer.from([...rootCertificates, readFileSync(opts.caFile, 'utf8')].join('\n'));
        } catch (e) {
          throw new UsageError(`cannot use the CA file ${opts.caFile}: ${(e as Error).message}`);
        }
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
      'grpc.max_receive_message_length': -1,
      'grpc.max_send_message_length': -1,
      'grpc.primary_user_agent': `dlake/${__DLAKE_VERSION__}`,
      // A broken connection is noticed even while a stream waits for a slow query.
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 20_000,
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
          if (err) return reject(err);
          resolve(info ?? { tickets: [], totalRecords: -1 });
        },
      ) as grpc.ClientUnaryCall;
      const stop = () => call.cancel();
      signal?.addEventListener('abort', stop, { once: true });
      call.on('metadata', (m: grpc.Metadata) => this.keepCookie(m));
    });
  }

  /**
   * DoGet of one ticket: the stream's IPC messages as bytes (each FlightData's header and body, framed as the
   * IPC stream format frames them) for apache-arrow's reader. Async iteration of the gRPC stream reads a
   * message only when the last one is taken: memory stays flat.
   */
  async *doGet(ticket: Buffer, authorization: string, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
    this.trace('DoGet');
    const call = this.call('DoGet')(
      { ticket },
      this.metadata(authorization),
    ) as grpc.ClientReadableStream<FlightData>;
    call.on('metadata', (m: grpc.Metadata) => this.keepCookie(m));
    let idle: NodeJS.Timeout | undefined;
    let idleFired = false;
    const arm = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        idleFired = true;
        call.cancel();
      }, this.opts.idleMs);
    };
    const stop = () => call.cancel();
    signal?.addEventListener('abort', stop, { once: true });
    arm();
    try {
      for await (const msg of call as AsyncIterable<FlightData>) {
        arm();
        const header = msg.data_header;
        if (!header || header.length === 0) continue;
        yield ipcPrefix(header);
        yield header;
        const pad = padding(header.length);
        if (pad) yield new Uint8Array(pad);
        if (msg.data_body && msg.data_body.length > 0) yield msg.data_body;
      }
    } catch (e) {
      if (idleFired)
        throw Object.assign(
          new Error(`no data from the Flight endpoint for ${Math.round(this.opts.idleMs / 1000)} s`),
          {
            code: grpc.status.DEADLINE_EXCEEDED,
          },
        );
      throw e;
    } finally {
      clearTimeout(idle);
      signal?.removeEventListener('abort', stop);
      call.cancel();
    }
  }

  private metadata(authorization: string): grpc.Metadata {
    const md = new grpc.Metadata();
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
    return new Date(Date.now() + this.opts.idleMs);
  }

  private trace(line: string): void {
    this.opts.trace?.(`flight ${this.opts.endpoint.url}: ${line}`);
  }
}

/** The IPC stream's framing of a message: the continuation marker and the header's padded length. */
function ipcPrefix(header: Uint8Array): Uint8Array {
  const prefix = new Uint8Array(8);
  const view = new DataView(prefix.buffer);
  view.setUint32(0, 0xffffffff, true);
  view.setInt32(4, header.length + padding(header.length), true);
  return prefix;
}

/** Bytes after a header to the next multiple of 8, as the IPC format aligns a message's body. */
const padding = (n: number): number => (8 - (n % 8)) % 8;
