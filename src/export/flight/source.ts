// The Arrow Flight source of the delivery pipeline (deliver.ts; docs/cli-contract.md "Export over Arrow
// Flight"): the SQL as a CMD descriptor, GetFlightInfo, then DoGet of each endpoint's ticket in order, every
// record batch handed on as it comes (flat memory: one batch in hand). FlightInfo gives no row total (-1,
// docs/api-facts.md §14): a stream that ends without an error is the whole result. Nothing is kept for
// --resume over Flight: a failure leaves no file. Loaded only by an export that uses Flight.
import type { RecordBatch, Schema } from 'apache-arrow';
import {
  AuthError,
  type DlakeError,
  InterruptedError,
  JobFailedError,
  NotFoundError,
  ServiceError,
} from '../../errors.js';
import { describe, type Source } from '../deliver.js';
import { formatModule } from '../formats.js';
import {
  type FlightCallError,
  FlightClient,
  type FlightClientOptions,
  SessionOptionError,
  STATUS,
} from './client.js';
import { openFlightResult } from './result.js';
import { describeSchema, InvalidFlightStreamError, sameSchema } from './validate.js';

interface FlightRequest extends FlightClientOptions {
  sql: string;
  /** The authorization header of every call (`Bearer …`); never traced. */
  authorization: string;
  signal: AbortSignal;
  /** Attempts before the first batch (a connection refused, the endpoint unavailable). */
  attempts?: number;
  /** The hint of an authentication failure (the login command). */
  loginHint?: string;
  /** Session options set before the query (the hosted edition's `project_id`: docs/api-facts.md §14). */
  sessionOptions?: Record<string, string>;
  /** The format keeps nothing of a batch once formatted (CSV, NDJSON, JSON): its buffer is reused (./result.ts). */
  reuse?: boolean;
}

/** The endpoint did not answer before any row came: `auto` falls back to REST on it. */
export class FlightUnavailableError extends ServiceError {
  /** The endpoint's failure in its own words, before the pipeline adds what was (not) written. */
  reason?: string;
}

const RETRY_DELAYS_MS = [250, 1000];

/** A query's rows over Flight as a source, and the client to close once they are delivered. */
export function flightSource(req: FlightRequest): { source: Source<Schema, RecordBatch>; close(): void } {
  const client = new FlightClient(req);
  return { source: flightBatches(client, req), close: () => client.close() };
}

/** A query's rows over Flight as a source: every endpoint's batches in order. */
export function flightBatches(client: FlightClient, req: FlightRequest): Source<Schema, RecordBatch> {
  const attempts = req.attempts ?? RETRY_DELAYS_MS.length + 1;
  let result: Awaited<ReturnType<typeof openFlightResult>> | undefined;
  return {
    async *pieces(signal) {
      result = undefined;
      if (req.sessionOptions) await client.setSessionOptions(req.sessionOptions, req.authorization, signal);
      // Every message is checked before a cell of it is read, and every endpoint's columns are the first's
      // (./result.ts): what reaches the pipeline holds what its metadata says.
      result = await openFlightResult(client, {
        sql: req.sql,
        authorization: req.authorization,
        signal,
        reuse: req.reuse,
      });
      let rows = false;
      for await (const batch of result.batches) {
        rows = true;
        yield { columns: batch.schema, rows: batch.numRows, data: batch };
      }
      // A result of no rows still has its columns: the header (or `[]`, an empty Parquet file).
      if (!rows) yield { columns: result.schema, rows: 0, data: undefined as never };
    },
    received: () => result?.received ?? 0,
    formatter: async (schema, format) => (await formatModule(format)).batches(schema),
    sameColumns(first, later) {
      if (!sameSchema(first, later))
        throw new InvalidFlightStreamError(
          `the Flight stream changed its columns from (${describeSchema(first)}) to (${describeSchema(later)})`,
        );
    },
    explain: (err, rows) => explain(err, rows, req),
    async retry(err, attempt, signal) {
      if (attempt >= attempts || !retriable(err)) return false;
      req.trace?.(`flight: attempt ${attempt} failed (${describe(err)}); retrying`);
      await sleep(RETRY_DELAYS_MS[attempt - 1] ?? 1000, signal);
      return !signal.aborted;
    },
  };
}

/** Worth another attempt while nothing is written: the endpoint or the network, not the query or the user. */
function retriable(err: unknown): boolean {
  const code = (err as FlightCallError)?.code;
  return code === STATUS.UNAVAILABLE || code === STATUS.RESOURCE_EXHAUSTED;
}

/**
 * What the server or the network said, as one line of text, whatever shape the error has (gRPC's `details`
 * is a string, but nothing checks that a server or a proxy keeps to it).
 */
function saidBy(err: unknown): string {
  const e = err as { details?: unknown; message?: unknown } | undefined;
  const words = [e?.details, e?.message].find((w) => typeof w === 'string' && w.trim() !== '');
  const text = typeof words === 'string' ? words : describe(err);
  // Newer Node versions append advice about their own `--use-system-ca` flag to a certificate error: dlake's
  // hint names its own options (--ca-file, --insecure) instead.
  return text
    .replace(/^\d+ [A-Z_]+: /, '')
    .replace(/; if the root CA is installed locally, try running Node\.js with --use-system-ca/, '');
}

/** What grpc-js says of a stream broken below the query: a reset, a message that is no FlightData. */
const BROKEN_STREAM = /Received RST_STREAM|Response message parsing error|Protocol error|Stream removed/i;

/** A Flight failure as dlake's error: gRPC's status as the exit code (docs/cli-contract.md "Export over Arrow Flight"). */
function explain(err: unknown, rows: number, req: FlightRequest): DlakeError {
  const e = err as FlightCallError | undefined;
  const said = saidBy(err);
  if (req.signal.aborted && (e?.code === STATUS.CANCELLED || (err as Error)?.name === 'AbortError'))
    return new InterruptedError('interrupted');
  // Only an Error is kept as the cause (--debug prints its stack); any other value is in the words already.
  const cause = err instanceof Error ? err : undefined;
  if (err instanceof SessionOptionError) {
    return new JobFailedError(said, { hint: err.hint });
  }
  if (typeof e?.code !== 'number')
    return new ServiceError(`the Flight stream from ${req.endpoint.url} failed: ${said}`, { cause });
  // gRPC says INTERNAL for a stream the transport broke (reset, a message that does not parse) as for a query
  // that failed: the words tell them apart, and a broken stream is the network's or the service's (exit 7).
  if (e.code === STATUS.INTERNAL && BROKEN_STREAM.test(said)) {
    return new ServiceError(`the Flight stream from ${req.endpoint.url} broke: ${said}`, { cause });
  }
  switch (e.code) {
    case STATUS.UNAUTHENTICATED:
    case STATUS.PERMISSION_DENIED:
      return new AuthError(`the Flight endpoint refused the credentials: ${said}`, { hint: req.loginHint });
    case STATUS.INVALID_ARGUMENT:
    case STATUS.INTERNAL:
      return new JobFailedError(`the query failed: ${said}`);
    case STATUS.NOT_FOUND:
      return new NotFoundError(said);
    default: {
      // gRPC words a refused certificate as a connection not established: say what fixes it, as for HTTPS.
      const tls = /certificate|self[- ]signed|CERT_/i.test(said);
      const reason = `the Flight stream from ${req.endpoint.url} broke: ${said.replace(/\.? ?Resolution note: ?$/, '')}`;
      const opts = {
        cause,
        hint: tls
          ? 'trust the server certificate with --ca-file FILE (PEM), or skip the check with --insecure'
          : undefined,
      };
      if (rows > 0) return new ServiceError(reason, opts);
      const unavailable = new FlightUnavailableError(reason, opts);
      unavailable.reason = reason;
      return unavailable;
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });
}
