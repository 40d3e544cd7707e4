// A failed Flight call or stream as dlake's exit codes (docs/cli-contract.md "Export over Arrow Flight"). The
// mapping reads an error it did not make (gRPC's, a server's `details`, anything thrown on the way), so it can
// never throw itself: every field it reads may be of any type, a getter may throw, `String()` may throw.
import * as grpc from '@grpc/grpc-js';
import {
  AuthError,
  type DlakeError,
  InterruptedError,
  JobFailedError,
  NotFoundError,
  ServiceError,
} from '../../errors.js';
import { InvalidFlightStreamError } from './validate.js';

const STATUS = grpc.status;

/** The endpoint did not answer before any row came: `auto` falls back to REST on it. */
export class FlightUnavailableError extends ServiceError {}

export interface FlightFailure {
  /** Rows received before the failure. */
  rows: number;
  /** The file, or `-` for standard output. */
  out: string;
  /** The endpoint's URL, for messages. */
  url: string;
  signal?: AbortSignal;
  /** The hint of an authentication failure (the login command). */
  loginHint?: string;
}

const countOf = (n: number): string => `${n.toLocaleString('en-US')} row${n === 1 ? '' : 's'}`;

/** A property of anything, or undefined when reading it throws. */
function read(value: unknown, key: string): unknown {
  try {
    return value !== null && (typeof value === 'object' || typeof value === 'function')
      ? (value as Record<string, unknown>)[key]
      : undefined;
  } catch {
    return undefined;
  }
}

/** Text of anything, never throwing: a string as it is, else String(), else its kind. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** What the server (or the transport) said: `details`, else the message, without gRPC's status prefix. */
export function flightErrorText(err: unknown): string {
  const said = [read(err, 'details'), read(err, 'message')].find(
    (v) => typeof v === 'string' && v.trim() !== '',
  );
  const text = typeof said === 'string' ? said : textOf(err);
  return text.replace(/^\d+ [A-Z_]+: /, '').replace(/\.? ?Resolution note: ?$/, '') || 'no reason given';
}

/** The gRPC status of an error, when it has one. */
export function flightStatus(err: unknown): number | undefined {
  const code = read(err, 'code');
  return typeof code === 'number' ? code : undefined;
}

/** The cause kept on dlake's error: an Error only (--debug prints its stack), never an arbitrary value. */
const causeOf = (err: unknown): Error | undefined => (err instanceof Error ? err : undefined);

/** gRPC's status as dlake's error (its exit code); never throws. */
export function mapFlightError(err: unknown, f: FlightFailure): Error {
  try {
    return mapOrThrow(err, f);
  } catch {
    return new ServiceError(`the Flight export failed after ${countOf(f.rows)} received`);
  }
}

function mapOrThrow(err: unknown, f: FlightFailure): Error {
  const where = f.out === '-' ? '' : `; ${f.out} was not written`;
  const after = `after ${countOf(f.rows)} received${where}`;
  const said = flightErrorText(err);
  const code = flightStatus(err);
  const aborted = f.signal?.aborted === true;
  if (
    err instanceof InterruptedError ||
    (aborted && (code === STATUS.CANCELLED || read(err, 'name') === 'AbortError'))
  ) {
    return new InterruptedError(f.rows > 0 || f.out !== '-' ? `interrupted ${after}` : 'interrupted');
  }
  if (err instanceof InvalidFlightStreamError) {
    return new InvalidFlightStreamError(`${err.message}, ${after}`);
  }
  if (code === undefined) {
    if (err instanceof Error && typeof (err as DlakeError).exitCode === 'number') return err;
    return new ServiceError(`the Flight export failed ${after}: ${said}`, { cause: causeOf(err) });
  }
  switch (code) {
    case STATUS.UNAUTHENTICATED:
    case STATUS.PERMISSION_DENIED:
      return new AuthError(`the Flight endpoint refused the credentials: ${said}`, { hint: f.loginHint });
    case STATUS.INVALID_ARGUMENT:
    case STATUS.INTERNAL:
      return new JobFailedError(`the query failed${f.rows > 0 ? ` ${after}` : ''}: ${said}`);
    case STATUS.NOT_FOUND:
      return new NotFoundError(said);
    default: {
      const Err = f.rows === 0 ? FlightUnavailableError : ServiceError;
      // gRPC words a refused certificate as a connection not established: say what fixes it, as for HTTPS.
      const tls = /certificate|self[- ]signed|CERT_/i.test(said);
      return new Err(`the Flight stream from ${f.url} broke ${after}: ${said}`, {
        cause: causeOf(err),
        hint: tls
          ? 'trust the server certificate with --ca-file FILE (PEM), or skip the check with --insecure'
          : undefined,
      });
    }
  }
}
