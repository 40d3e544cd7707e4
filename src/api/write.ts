// A write as data: the request as it will be sent — what `--dry-run` prints, its secrets masked by its own
// `secretFields`, as --debug masks them — and the call that sends it (with the answer's schema and the
// area's wording of its failures). A command hands one to its one write path (src/commands/common.ts `send`),
// so that what it prints with --dry-run is what it sends, written once.
import type { Target } from './endpoint.js';
import type { ApiClient } from './http.js';
import type { Method } from './pipeline/types.js';

/** A write as it will be sent: what `client.request` takes and what `--dry-run` shows. */
export interface WriteRequest {
  method: Method;
  at: Target;
  query?: Record<string, string | undefined>;
  json?: unknown;
  /** Body fields to redact in traces and dry-run output (a user's password, a source type's secrets). */
  secretFields?: readonly string[];
  /** Safe to repeat: a PUT or DELETE that carries the tag. */
  idempotent?: boolean;
}

export interface Write<T> {
  request: WriteRequest;
  send(client: ApiClient): Promise<T>;
}

/** The write of `request`, sent by `send` (which is given the request, so as not to write it twice). */
export function write<T>(
  request: WriteRequest,
  send: (client: ApiClient, request: WriteRequest) => Promise<T>,
): Write<T> {
  return { request, send: (client) => send(client, request) };
}
