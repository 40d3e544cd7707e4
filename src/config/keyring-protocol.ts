// What dlake and its credential-store helper (src/config/keyring-child.ts) say to each other, one JSON line each.
export type KeyringRequest = { id: number } & (
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
