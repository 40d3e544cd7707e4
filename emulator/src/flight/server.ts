// The emulator's Arrow Flight endpoint (docs/api-facts.md §14): gRPC with @grpc/grpc-js, the protocol from
// Apache Arrow's Flight.proto (proto/README.md), results as Arrow record batches built from DuckDB's column
// vectors (./arrow-batches.ts). What the service does and the emulator follows:
// - Handshake: `Basic user:password` (or `user:PAT`) in the call's authorization header; the answer's
//   authorization header carries the bearer token for later calls. A bearer PAT or OAuth access token is
//   taken on every call, without a handshake.
// - A REST session token is refused, and the session is ended: the Flight session manager does not know it.
// - GetFlightInfo of a CMD descriptor (the SQL) plans the query: a query error is INVALID_ARGUMENT; one
//   endpoint, whose ticket DoGet redeems once; total_records and total_bytes are -1.
// - Every answer sets a session cookie until the client sends it back.
// - Results in batches of the service's 4,095 rows (`batchRows`: 1 to 65,536), whatever DuckDB's chunks are.
// - The hosted edition (`cloud`): Bearer on every call and no handshake; the project is a session option, set
//   with the `SetSessionOptions` action (`project_id`, or its synonym `catalog`), answered with the session
//   cookie `SESSION_ID`. A call without that cookie runs in the organisation's default project, whose data
//   differ (its own `big`): a client that forgets the session reads the wrong rows, visibly.
// Faults (tests, `--flight-fault`): refuse credentials, be unavailable, break a stream after K batches.

import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DuckDBPreparedStatement } from '@duckdb/node-api';
import * as grpc from '@grpc/grpc-js';
import { fromJSON } from '@grpc/proto-loader';
import type { RecordBatch } from 'apache-arrow';
import protobuf from 'protobufjs';
import type { FlightSource } from '../jobs.js';
import { DEFAULT_PROJECT_SCHEMA, uniqueNames } from '../sql-engine.js';
import type { EmuState, EmuUser } from '../state.js';
import {
  batchPayloads,
  chunkPart,
  MAX_BATCH_ROWS,
  payloadsOf,
  planColumns,
  Rebatcher,
  SERVICE_BATCH_ROWS,
  schemaBytes,
  schemaOf,
} from './arrow-batches.js';
import { type FlightEncoding, SERVICE_ENCODING } from './encoding.js';
import type { FlightFaultKind, FlightFaultSpec } from './faults.js';
import { FLIGHT_PROTO } from './proto.generated.js';

const HOUR_MS = 60 * 60 * 1000;
/** Flight bearer tokens live as long as REST sessions (docs/api-facts.md §1.2). */
const FLIGHT_TOKEN_LIFETIME_MS = 30 * HOUR_MS;
const COOKIE = 'flight_session';
/** The hosted edition's session cookie (docs/api-facts.md §14). */
const CLOUD_COOKIE = 'SESSION_ID';
/** The organisation default project of the hosted edition: a call without a session runs there. */
export const ORG_DEFAULT_PROJECT_ID = '0d0d0d0d-0000-4000-8000-00000000d0d0';
const JOB_RESULTS = /^\s*SELECT\s+\*\s+FROM\s+sys\.job_results\."([^"]+)"\s*;?\s*$/i;

/** One Flight call as the tests see it: how it authenticated, never the secret. */
export interface FlightCall {
  seq: number;
  method: 'Handshake' | 'GetFlightInfo' | 'DoGet' | string;
  /** The authorization header's scheme. */
  authScheme: 'Basic' | 'Bearer' | 'none' | 'other';
  /** What the credential was: a password, a PAT, an OAuth access token, a Flight bearer token, a REST session. */
  credential?: 'password' | 'pat' | 'oauth' | 'flight' | 'session';
  user?: string;
  /** The session cookie came back. */
  cookie: boolean;
  /** Hosted edition: the project the call ran in (its session's, else the organisation default). */
  projectId?: string;
  /** DoAction: the action's type. */
  action?: string;
  sql?: string;
  /** gRPC status of the answer (0: OK). */
  code: number;
  batches?: number;
  rows?: number;
  fault?: FlightFaultKind;
}

export interface FlightServer {
  url: string;
  calls: FlightCall[];
  fault(spec: FlightFaultSpec): void;
  clearFaults(): void;
  close(): Promise<void>;
}

interface FlightServerOptions {
  port: number;
  host: string;
  tls?: { key: string; cert: string };
  state: EmuState;
  source: FlightSource;
  faults?: FlightFaultSpec[];
  /** Rows of each batch (default the service's 4,095; 1 to 65,536). */
  batchRows?: number;
  /** The Arrow encoding of each type (default the service's: ./encoding.ts). */
  encoding?: Partial<FlightEncoding>;
  /** The hosted edition: the project its REST serves (a session option selects it). */
  cloud?: { projectId: string };
}

interface Caller {
  user: EmuUser;
  credential: NonNullable<FlightCall['credential']>;
}

interface PendingTicket {
  sql: string;
  context: string[];
  userId: string;
  /** The schema its query resolves in (the hosted default project's, when planned without a session). */
  schema?: string;
}

class FlightError extends Error {
  constructor(
    readonly code: grpc.status,
    message: string,
  ) {
    super(message);
  }
}

/** protobufjs's reflection of Flight.proto, for an action's body (a message inside bytes). */
let reflection: protobuf.Root | undefined;
const flightType = (name: string): protobuf.Type => {
  reflection ??= protobuf.Root.fromJSON(FLIGHT_PROTO as unknown as protobuf.INamespace);
  return reflection.lookupType(`arrow.flight.protocol.${name}`);
};

const loadService = (): grpc.ServiceDefinition => {
  const def = fromJSON(FLIGHT_PROTO as unknown as Parameters<typeof fromJSON>[0], {
    keepCase: true,
    longs: Number,
    defaults: false,
  });
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    arrow: { flight: { protocol: { FlightService: { service: grpc.ServiceDefinition } } } };
  };
  return pkg.arrow.flight.protocol.FlightService.service;
};

export async function startFlightServer(opts: FlightServerOptions): Promise<FlightServer> {
  const { state, source } = opts;
  const calls: FlightCall[] = [];
  let faults = (opts.faults ?? []).map((f) => ({ ...f, remaining: f.times ?? Number.POSITIVE_INFINITY }));
  /** Flight bearer tokens (not REST tokens: REST does not take them), by token. */
  const tokens = new Map<string, { userId: string; expiresAt: number }>();
  const tickets = new Map<string, PendingTicket>();
  const batchRows = opts.batchRows ?? SERVICE_BATCH_ROWS;
  if (!Number.isInteger(batchRows) || batchRows < 1 || batchRows > MAX_BATCH_ROWS) {
    throw new Error(`Flight batch rows must be 1 to ${MAX_BATCH_ROWS}: ${batchRows}`);
  }
  const encoding: FlightEncoding = { ...SERVICE_ENCODING, ...opts.encoding };
  const cookieName = opts.cloud ? CLOUD_COOKIE : COOKIE;
  /** Hosted sessions: the project each session cookie's session runs in. */
  const sessions = new Map<string, string>();
  const cookieOf = (cookies: string): string | undefined =>
    new RegExp(`(?:^|;\\s*)${cookieName}=([^;\\s]+)`).exec(cookies)?.[1];
  /** The schema a call's queries resolve in: the organisation default project's, without a session. */
  const schemaOfCall = (log: FlightCall): string | undefined =>
    opts.cloud && log.projectId !== opts.cloud.projectId ? DEFAULT_PROJECT_SCHEMA : undefined;

  const takeFault = (kinds: FlightFaultKind[]) => {
    const f = faults.find((x) => x.remaining > 0 && kinds.includes(x.kind));
    if (f) f.remaining--;
    return f;
  };

  /** Starts the log entry of a call; the caller fills in the outcome. */
  const begin = (method: string, md: grpc.Metadata): FlightCall => {
    const auth = String(md.get('authorization')[0] ?? '');
    const scheme = /^basic /i.test(auth)
      ? 'Basic'
      : /^bearer /i.test(auth)
        ? 'Bearer'
        : auth
          ? 'other'
          : 'none';
    const cookies = md.get('cookie').map(String).join(';');
    const call: FlightCall = {
      seq: calls.length + 1,
      method,
      authScheme: scheme,
      cookie: new RegExp(`(^|;\\s*)${cookieName}=`).test(cookies),
      code: 0,
    };
    if (opts.cloud) call.projectId = sessions.get(cookieOf(cookies) ?? '') ?? ORG_DEFAULT_PROJECT_ID;
    calls.push(call);
    return call;
  };

  const identify = (md: grpc.Metadata, log: FlightCall): Caller => {
    if (takeFault(['refuse-auth'])) {
      log.fault = 'refuse-auth';
      throw new FlightError(grpc.status.UNAUTHENTICATED, 'Unable to authenticate user: invalid credentials');
    }
    const header = String(md.get('authorization')[0] ?? '');
    const refuse = () => new FlightError(grpc.status.UNAUTHENTICATED, 'Unable to authenticate user');
    const basic = /^basic\s+(\S+)$/i.exec(header);
    // The hosted edition takes a bearer token on every call, never Basic.
    if (basic && opts.cloud) throw refuse();
    if (basic) {
      const text = Buffer.from(basic[1]!, 'base64').toString('utf8');
      const colon = text.indexOf(':');
      const name = text.slice(0, colon);
      const secret = text.slice(colon + 1);
      const user = colon > 0 ? state.userByName(name) : undefined;
      if (!user?.active) throw refuse();
      if (user.source === 'local' && user.password && user.password === secret) {
        return { user, credential: 'password' };
      }
      // A PAT in place of the password, for the user it belongs to.
      const pat = state.lookupToken(secret);
      if (pat?.issued.kind === 'pat' && pat.user.id === user.id) return { user, credential: 'pat' };
      throw refuse();
    }
    const bearer = /^bearer\s+(\S+)$/i.exec(header);
    if (!bearer) throw refuse();
    const token = bearer[1]!;
    const flight = tokens.get(token);
    if (flight && flight.expiresAt > state.now()) {
      const user = state.users.get(flight.userId);
      if (user?.active) return { user, credential: 'flight' };
    }
    const found = state.lookupToken(token);
    if (found?.issued.kind === 'session') {
      // The Flight session manager does not know REST sessions: it refuses the token and ends the session.
      state.tokens.delete(token);
      log.credential = 'session';
      throw refuse();
    }
    if (found) return { user: found.user, credential: found.issued.kind };
    throw refuse();
  };

  /** The caller of a call, recorded in its log entry. */
  const authenticate = (md: grpc.Metadata, log: FlightCall): Caller => {
    const caller = identify(md, log);
    log.credential ??= caller.credential;
    log.user = caller.user.name;
    return caller;
  };

  /** An armed `unavailable` fault: the call fails as it would with the Flight service down. */
  const failIfUnavailable = (log: FlightCall): void => {
    if (takeFault(['unavailable'])) {
      log.fault = 'unavailable';
      throw new FlightError(grpc.status.UNAVAILABLE, 'The Flight service is unavailable');
    }
  };

  /** The answer's headers: the bearer token (after a handshake) and the session cookie until it comes back. */
  const answerMetadata = (log: FlightCall, bearer?: string): grpc.Metadata => {
    const md = new grpc.Metadata();
    if (bearer) md.set('authorization', `Bearer ${bearer}`);
    if (!log.cookie && !opts.cloud) md.set('set-cookie', `${COOKIE}=${randomUUID()}; Path=/`);
    return md;
  };

  const fail = (log: FlightCall, err: unknown): grpc.ServiceError => {
    const e =
      err instanceof FlightError
        ? err
        : new FlightError(grpc.status.INTERNAL, (err as Error)?.message ?? String(err));
    log.code = e.code;
    return Object.assign(new Error(e.message), {
      code: e.code,
      details: e.message,
      metadata: new grpc.Metadata(),
    });
  };

  /** The query a CMD descriptor stands for (a job's results as `sys.job_results."<id>"`). */
  const queryOf = (sql: string, caller: Caller): { sql: string; context: string[] } => {
    const m = JOB_RESULTS.exec(sql);
    if (!m) return { sql, context: [] };
    const job = source.job(m[1]!);
    if (!job || (job.userId !== caller.user.id && !caller.user.admin)) {
      throw new FlightError(grpc.status.NOT_FOUND, `Could not find a job with id [${m[1]}]`);
    }
    if (job.state !== 'COMPLETED') {
      throw new FlightError(grpc.status.INVALID_ARGUMENT, `Job ${m[1]} has no results: it is ${job.state}`);
    }
    // The emulator keeps a job's rows as REST answers them; its results are read again by running its query
    // (deterministic over the emulator's data).
    return { sql: job.sql, context: job.context };
  };

  const columnsOf = (st: DuckDBPreparedStatement) => {
    const names = uniqueNames(Array.from({ length: st.columnCount }, (_, i) => st.columnName(i)));
    const types = Array.from({ length: st.columnCount }, (_, i) => st.columnType(i));
    return planColumns(names, types, encoding);
  };

  const impl: grpc.UntypedServiceImplementation = {
    Handshake(call: grpc.ServerDuplexStream<unknown, unknown>) {
      const log = begin('Handshake', call.metadata);
      call.on('data', () => {});
      call.on('error', () => {});
      try {
        const caller = authenticate(call.metadata, log);
        let bearer = /^bearer\s+(\S+)$/i.exec(String(call.metadata.get('authorization')[0] ?? ''))?.[1];
        if (!bearer) {
          bearer = randomBytes(24).toString('base64url');
          tokens.set(bearer, { userId: caller.user.id, expiresAt: state.now() + FLIGHT_TOKEN_LIFETIME_MS });
        }
        call.sendMetadata(answerMetadata(log, bearer));
        call.write({ protocol_version: 0, payload: Buffer.alloc(0) });
        call.end();
      } catch (e) {
        call.emit('error', fail(log, e));
      }
    },

    async GetFlightInfo(call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) {
      const log = begin('GetFlightInfo', call.metadata);
      try {
        const caller = authenticate(call.metadata, log);
        failIfUnavailable(log);
        const d = call.request as { type?: string | number; cmd?: Buffer };
        if (d.type !== 'CMD' && d.type !== 2) {
          throw new FlightError(
            grpc.status.INVALID_ARGUMENT,
            'Only CMD descriptors (a SQL query) are supported',
          );
        }
        const text = Buffer.from(d.cmd ?? []).toString('utf8');
        log.sql = text;
        const query = queryOf(text, caller);
        const schema = schemaOfCall(log);
        const plans = await source.engine
          .prepared(
            query.sql,
            query.context,
            source.datasets(),
            undefined,
            async (st) => columnsOf(st),
            schema,
          )
          .catch((e: unknown) => {
            if (e instanceof FlightError) throw e;
            throw new FlightError(grpc.status.INVALID_ARGUMENT, (e as Error)?.message ?? String(e));
          });
        const ticket = randomUUID();
        tickets.set(ticket, { ...query, userId: caller.user.id, schema });
        call.sendMetadata(answerMetadata(log));
        callback(null, {
          schema: Buffer.from(schemaBytes(schemaOf(plans))),
          flight_descriptor: { type: 'CMD', cmd: d.cmd },
          endpoint: [{ ticket: { ticket: Buffer.from(ticket) }, location: [] }],
          total_records: -1,
          total_bytes: -1,
          ordered: true,
        });
      } catch (e) {
        callback(fail(log, e));
      }
    },

    /**
     * `SetSessionOptions` (Flight.proto, Arrow 16+) on the hosted edition: `project_id` (or `catalog`) chooses
     * the project of the session, whose cookie the answer sets; an option it does not know, or a project that is
     * not the organisation's, is answered in SetSessionOptionsResult.errors, as the protocol says.
     */
    async DoAction(call: grpc.ServerWritableStream<unknown, unknown>) {
      const log = begin('DoAction', call.metadata);
      try {
        authenticate(call.metadata, log);
        const action = call.request as { type?: string; body?: Buffer };
        log.action = action.type;
        if (action.type !== 'SetSessionOptions' || !opts.cloud) {
          throw new FlightError(grpc.status.UNIMPLEMENTED, `Unknown action: ${action.type}`);
        }
        const request = flightType('SetSessionOptionsRequest').toObject(
          flightType('SetSessionOptionsRequest').decode(action.body ?? Buffer.alloc(0)),
        ) as { session_options?: Record<string, { string_value?: string }> };
        const errors: Record<string, { value: number }> = {};
        const INVALID_NAME = 1;
        const INVALID_VALUE = 2;
        let project: string | undefined;
        for (const [name, value] of Object.entries(request.session_options ?? {})) {
          if (name !== 'project_id' && name !== 'catalog') errors[name] = { value: INVALID_NAME };
          else if (
            value.string_value !== opts.cloud.projectId &&
            value.string_value !== ORG_DEFAULT_PROJECT_ID
          )
            errors[name] = { value: INVALID_VALUE };
          else project = value.string_value;
        }
        const md = new grpc.Metadata();
        if (project) {
          const id = randomUUID();
          sessions.set(id, project);
          log.projectId = project;
          md.set('set-cookie', `${CLOUD_COOKIE}=${id}; Path=/; Secure; HttpOnly`);
        }
        call.sendMetadata(md);
        const result = flightType('SetSessionOptionsResult');
        const body = Buffer.from(result.encode(result.fromObject({ errors })).finish());
        call.write({ body });
        call.end();
      } catch (e) {
        call.emit('error', fail(log, e));
      }
    },

    async DoGet(call: grpc.ServerWritableStream<unknown, unknown>) {
      const log = begin('DoGet', call.metadata);
      const abort = new AbortController();
      call.on('cancelled', () => abort.abort());
      call.on('error', () => abort.abort());
      try {
        const caller = authenticate(call.metadata, log);
        failIfUnavailable(log);
        const id = Buffer.from((call.request as { ticket?: Buffer }).ticket ?? []).toString('utf8');
        const pending = tickets.get(id);
        if (!pending || pending.userId !== caller.user.id) {
          throw new FlightError(grpc.status.NOT_FOUND, 'Unknown or already redeemed ticket');
        }
        tickets.delete(id);
        log.sql = pending.sql;
        const broken = takeFault(['break', 'fail']);
        const slow = takeFault(['slow']);
        if (slow) log.fault = 'slow';
        call.sendMetadata(answerMetadata(log));
        let batches = 0;
        let rows = 0;
        await source.engine.prepared(
          pending.sql,
          pending.context,
          source.datasets(),
          abort.signal,
          async (st) => {
            const plans = columnsOf(st);
            const schema = schemaOf(plans);
            const result = await st.stream();
            let sentSchema = false;
            const rebatch = new Rebatcher(schema, plans, batchRows);
            /** An armed break or failure strikes once K batches are sent, even at the result's end. */
            const strike = () => {
              if (!broken || batches < (broken.afterBatches ?? 0)) return;
              log.fault = broken.kind;
              throw broken.kind === 'break'
                ? new FlightError(grpc.status.UNAVAILABLE, 'Connection lost while sending results')
                : new FlightError(
                    grpc.status.INTERNAL,
                    'Query failed while sending results: division by zero',
                  );
            };
            const emit = async (batch: RecordBatch) => {
              strike();
              if (slow && batches >= (slow.afterBatches ?? 0))
                await sleep(slow.latencyMs ?? 100, undefined, { signal: abort.signal }).catch(() => {});
              if (abort.signal.aborted) throw new FlightError(grpc.status.CANCELLED, 'cancelled');
              const out = batchPayloads(batch);
              if (!sentSchema) {
                sentSchema = true;
                await send(call, out.schema);
              }
              for (const p of out.batch) await send(call, p);
              batches++;
              rows += batch.numRows;
            };
            for (;;) {
              const chunk = await result.fetchChunk();
              if (abort.signal.aborted) throw new FlightError(grpc.status.CANCELLED, 'cancelled');
              if (!chunk || chunk.rowCount === 0) break;
              for (const b of rebatch.push(chunkPart(plans, chunk))) await emit(b);
            }
            for (const b of rebatch.flush()) await emit(b);
            strike();
            if (!sentSchema) await send(call, payloadsOf(schemaBytes(schema))[0]);
          },
          pending.schema,
        );
        log.batches = batches;
        log.rows = rows;
        call.end();
      } catch (e) {
        if (abort.signal.aborted) {
          log.code = grpc.status.CANCELLED;
          return;
        }
        call.emit('error', fail(log, e));
      }
    },
  };

  const server = new grpc.Server({
    'grpc.max_send_message_length': -1,
    'grpc.max_receive_message_length': -1,
  });
  server.addService(loadService(), impl);
  const creds = opts.tls
    ? grpc.ServerCredentials.createSsl(null, [
        { private_key: Buffer.from(opts.tls.key), cert_chain: Buffer.from(opts.tls.cert) },
      ])
    : grpc.ServerCredentials.createInsecure();
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${opts.port}`, creds, (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    url: `${opts.tls ? 'grpc+tls' : 'grpc'}://${host}:${port}`,
    calls,
    fault: (spec) => faults.push({ ...spec, remaining: spec.times ?? Number.POSITIVE_INFINITY }),
    clearFaults: () => {
      faults = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.forceShutdown();
        resolve();
      }),
  };
}

/** Writes one FlightData message, waiting for the client to take more when its window is full. */
async function send(call: grpc.ServerWritableStream<unknown, unknown>, msg: unknown): Promise<void> {
  if (!call.write(msg)) await once(call, 'drain');
}
