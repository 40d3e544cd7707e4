// An export over Arrow Flight (docs/cli-contract.md "Export over Arrow Flight"): the SQL as a CMD descriptor,
// GetFlightInfo, then DoGet of each endpoint's ticket in order, every batch written as it comes (flat memory:
// one batch in hand). FlightInfo gives no row total (-1, docs/api-facts.md §14): a stream that ends without an
// error is the whole result, and the rows written are the rows received. An interrupted export leaves no
// file: FILE.partial is removed (no --resume over Flight). Loaded only by an export that uses Flight.
import { InterruptedError } from '../../errors.js';
import { OutputClosedError, openFileTarget, stdoutTarget, type Target } from '../target.js';
import type { ExportFormat } from '../writers.js';
import { type BatchFormatter, loadBatchFormatter } from './batch-writers.js';
import { FlightClient, type FlightClientOptions, STATUS } from './client.js';
import { flightStatus, mapFlightError } from './errors.js';
import { openFlightResult } from './result.js';

export { FlightUnavailableError } from './errors.js';

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
  /** Session options set before the query (the hosted edition's `project_id`: docs/api-facts.md §14). */
  sessionOptions?: Record<string, string>;
}

interface FlightExportOutcome {
  rows: number;
  truncated: boolean;
}

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
        if (!retry) {
          throw mapFlightError(err, {
            rows: state.rows,
            out: req.out,
            url: req.endpoint.url,
            signal: req.signal,
            loginHint: req.loginHint,
          });
        }
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
  if (req.sessionOptions) await client.setSessionOptions(req.sessionOptions, req.authorization, req.signal);
  // Every message is validated before it is read (./result.ts); no file is opened before the schema came.
  const result = await openFlightResult(client, req);
  const target =
    req.out === '-' ? stdoutTarget(req.stdout as never) : await openFileTarget(req.out, { gzip: req.gzip });
  state.target = target;
  try {
    // A result of no rows still has its columns: the header (or `[]`, an empty Parquet file).
    const formatter: BatchFormatter = await loadBatchFormatter(req.format, result.schema);
    await target.write(formatter.head, req.signal);
    for await (const batch of result.batches) {
      await target.write(formatter.batch(batch), req.signal);
      state.rows += batch.numRows;
      req.onProgress?.(state.rows);
      if (req.signal.aborted) throw new InterruptedError('interrupted');
    }
    await target.write(formatter.tail(), req.signal);
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
  const code = flightStatus(err);
  return code === STATUS.UNAVAILABLE || code === STATUS.RESOURCE_EXHAUSTED;
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
