// An export over Arrow Flight (docs/cli-contract.md "Export over Arrow Flight"): the SQL as a CMD descriptor,
// GetFlightInfo, then DoGet of each endpoint's ticket in order, every batch written as it comes (flat memory:
// one batch in hand). FlightInfo gives no row total (-1, docs/api-facts.md §14): a stream that ends without an
// error is the whole result, and the rows written are the rows received. An interrupted export leaves no
// file: FILE.partial is removed (no --resume over Flight). Loaded only by an export that uses Flight.
import { RecordBatchReader } from 'apache-arrow';
import {
  AuthError,
  type DlakeError,
  InterruptedError,
  JobFailedError,
  NotFoundError,
  ServiceError,
} from '../../errors.js';
import { OutputClosedError, openFileTarget, stdoutTarget, type Target } from '../target.js';
import type { ExportFormat } from '../writers.js';
import { type BatchFormatter, loadBatchFormatter } from './batch-writers.js';
import { type FlightCallError, FlightClient, type FlightClientOptions, STATUS } from './client.js';

interface FlightExportRequest extends FlightClientOptions {
  sql: string;
  /** A file, or `-` for standard output. */
  out: string;
  stdout: NodeJS.WritableStream;
  format: ExportFormat;
  gzip: boolean;
  /** The authorization header of every call (`Bearer …`); never traced. */
  authorization: string;
  signal: AbortSignal;
  /** Attempts before the first batch (a connection refused, the endpoint unavailable). */
  attempts?: number;
  onProgress?: (rows: number) => void;
  /** The hint of an authentication failure (the login command). */
  loginHint?: string;
}

interface FlightExportOutcome {
  rows: number;
  truncated: boolean;
}

/** The endpoint did not answer before any row came: `auto` falls back to REST on it. */
export class FlightUnavailableError extends ServiceError {}

const RETRY_DELAYS_MS = [250, 1000];

export async function exportOverFlight(req: FlightExportRequest): Promise<FlightExportOutcome> {
  const client = new FlightClient(req);
  const attempts = req.attempts ?? RETRY_DELAYS_MS.length + 1;
  try {
    for (let attempt = 1; ; attempt++) {
      const state = { rows: 0, target: undefined as Target | undefined };
      try {
        return await run(client, req, state);
      } catch (err) {
        const retry = state.rows === 0 && attempt < attempts && retriable(err) && !req.signal.aborted;
        if (!retry) throw mapError(err, state.rows, req);
        req.trace?.(`flight: attempt ${attempt} failed (${(err as Error).message}); retrying`);
        await sleep(RETRY_DELAYS_MS[attempt - 1] ?? 1000, req.signal);
      }
    }
  } finally {
    client.close();
  }
}

async function run(
  client: FlightClient,
  req: FlightExportRequest,
  state: { rows: number; target?: Target },
): Promise<FlightExportOutcome> {
  const info = await client.getFlightInfo(req.sql, req.authorization, req.signal);
  const target =
    req.out === '-' ? stdoutTarget(req.stdout as never) : await openFileTarget(req.out, { gzip: req.gzip });
  state.target = target;
  let formatter: BatchFormatter | undefined;
  try {
    for (const ticket of info.tickets) {
      const reader = await RecordBatchReader.from(client.doGet(ticket, req.authorization, req.signal));
      for await (const batch of reader) {
        if (!formatter) {
          formatter = await loadBatchFormatter(req.format, batch.schema);
          await target.write(formatter.head, req.signal);
        }
        await target.write(formatter.batch(batch), req.signal);
        state.rows += batch.numRows;
        req.onProgress?.(state.rows);
        if (req.signal.aborted) throw new InterruptedError('interrupted');
      }
      // A result of no rows still has its columns: the header (or `[]`, an empty Parquet file).
      if (!formatter && reader.schema) {
        formatter = await loadBatchFormatter(req.format, reader.schema);
        await target.write(formatter.head, req.signal);
      }
    }
    if (formatter) await target.write(formatter.tail(), req.signal);
    await target.commit();
    return { rows: state.rows, truncated: false };
  } catch (err) {
    await target.discard();
    if (err instanceof OutputClosedError) return { rows: state.rows, truncated: true };
    throw err;
  }
}

/** Worth another attempt while nothing is written: the endpoint or the network, not the query or the user. */
function retriable(err: unknown): boolean {
  const code = (err as FlightCallError)?.code;
  return code === STATUS.UNAVAILABLE || code === STATUS.RESOURCE_EXHAUSTED;
}

const countOf = (n: number): string => `${n.toLocaleString('en-US')} row${n === 1 ? '' : 's'}`;

/** gRPC's status as dlake's exit codes (docs/cli-contract.md "Export over Arrow Flight"). */
function mapError(err: unknown, rows: number, req: FlightExportRequest): unknown {
  const e = err as FlightCallError;
  const where = req.out === '-' ? '' : `; ${req.out} was not written`;
  const after = `after ${countOf(rows)} received${where}`;
  const said = (e?.details || e?.message || String(err)).replace(/^\d+ [A-Z_]+: /, '');
  if (
    err instanceof InterruptedError ||
    (req.signal.aborted && (e?.code === STATUS.CANCELLED || (err as Error)?.name === 'AbortError'))
  ) {
    return new InterruptedError(rows > 0 || req.out !== '-' ? `interrupted ${after}` : 'interrupted');
  }
  if (typeof e?.code !== 'number') {
    if ((err as DlakeError)?.exitCode !== undefined) return err;
    return new ServiceError(`the Flight export failed ${after}: ${said}`, { cause: err });
  }
  switch (e.code) {
    case STATUS.UNAUTHENTICATED:
    case STATUS.PERMISSION_DENIED:
      return new AuthError(`the Flight endpoint refused the credentials: ${said}`, { hint: req.loginHint });
    case STATUS.INVALID_ARGUMENT:
    case STATUS.INTERNAL:
      return new JobFailedError(`the query failed${rows > 0 ? ` ${after}` : ''}: ${said}`);
    case STATUS.NOT_FOUND:
      return new NotFoundError(said);
    default: {
      const Err = rows === 0 ? FlightUnavailableError : ServiceError;
      // gRPC words a refused certificate as a connection not established: say what fixes it, as for HTTPS.
      const tls = /certificate|self[- ]signed|CERT_/i.test(said);
      return new Err(
        `the Flight stream from ${req.endpoint.url} broke ${after}: ${said.replace(/\.? ?Resolution note: ?$/, '')}`,
        {
          cause: err,
          hint: tls
            ? 'trust the server certificate with --ca-file FILE (PEM), or skip the check with --insecure'
            : undefined,
        },
      );
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
