// What dlake and its credential-store helper (src/config/keyring-child.ts) say to each other, one JSON line each,
// over the helper's standard input and output; and the StoreError that every store client (the helper's, and the
// Secret Service's in-process on Linux: src/config/secret-service.ts) fails with.
import { createInterface, type Interface } from 'node:readline';

export type KeyringRequest = {
  id: number;
  /** How long the caller waits for this answer (ms): the helper ends itself when its store call takes longer. */
  deadlineMs: number;
} & (
  | { op: 'probe' }
  | { op: 'get'; accounts: string[] }
  | { op: 'set'; items: Record<string, string> }
  | { op: 'delete'; accounts: string[] }
);

export type KeyringAnswer =
  | { id: number; ok: true; values?: Record<string, string | null> }
  /** `unavailable`: there is no store to talk to (no binding, no Secret Service), as opposed to one that failed. */
  | { id: number; ok: false; message: string; unavailable: boolean };

/** A store that failed or did not answer; `unavailable` when there is none to talk to at all. */
export class StoreError extends Error {
  constructor(
    message: string,
    readonly unavailable = false,
  ) {
    super(message);
  }
}

/** What a call that outlived its deadline says, whichever client made it. */
export function noAnswerWithin(ms: number): string {
  return `no answer within ${ms / 1000}s (a locked keyring waiting for a prompt nobody sees?)`;
}

/**
 * Calls `handle` with each JSON line that `input` brings (a line that is not JSON is dropped). A stream that fails
 * (the other side killed: a reset connection) just ends: readline passes its error on, the lines' `close` follows,
 * and the caller's deadline covers what was left unanswered.
 */
export function onJsonLines<T>(input: NodeJS.ReadableStream, handle: (message: T) => void): Interface {
  input.on('error', () => {});
  const lines = createInterface({ input }).on('error', () => {});
  return lines.on('line', (line) => {
    let message: T;
    try {
      message = JSON.parse(line) as T;
    } catch {
      return;
    }
    handle(message);
  });
}
