// Where dlake keeps the secrets of its stored tokens (docs/cli-contract.md "Credential storage"): in the
// platform's credential store when one answers, one item per profile and kind under the service `dlake`;
// otherwise in credentials.json (mode 0600), as before. credentials.json always holds the metadata (kind,
// expiry, how obtained) and, for a token whose secrets are in the store, which items hold them.
//
// The store is reached only when a secret is read or written there (on Linux over D-Bus in-process,
// src/config/secret-service.ts; elsewhere through a helper process, src/config/keyring.ts): a command that needs
// no secret, or whose secrets are in the file, never loads either.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { LocalIOError, UsageError } from '../errors.js';
import type { KeyringHelper } from './keyring.js';
import { StoreError } from './keyring-protocol.js';
import type { StoredToken } from './schema.js';

export const STORE_MODES = ['auto', 'keyring', 'file'] as const;
export type StoreMode = (typeof STORE_MODES)[number];

/** The kinds of secret a stored token may carry, each an item of its own in the store. */
const SECRET_KINDS = ['token', 'refresh-token', 'pat', 'flight-token'] as const;
type SecretKind = (typeof SECRET_KINDS)[number];

/** A stored token with its secrets at hand: what renewals and requests use. */
export type RevealedToken = StoredToken & { token: string };

/** How long a call to the store may take before it counts as hung (DLAKE_CREDENTIAL_STORE_TIMEOUT, ms). */
const DEFAULT_TIMEOUT_MS = 10_000;

function secretOf(t: StoredToken, kind: SecretKind): string | undefined {
  switch (kind) {
    case 'token':
      return t.token;
    case 'refresh-token':
      return t.refreshToken;
    case 'pat':
      return t.pat;
    case 'flight-token':
      return t.flight?.token;
  }
}

function putSecret(t: StoredToken, kind: SecretKind, value: string | undefined): void {
  switch (kind) {
    case 'token':
      if (value === undefined) delete t.token;
      else t.token = value;
      return;
    case 'refresh-token':
      if (value === undefined) delete t.refreshToken;
      else t.refreshToken = value;
      return;
    case 'pat':
      if (value === undefined) delete t.pat;
      else t.pat = value;
      return;
    case 'flight-token':
      if (!t.flight) return;
      if (value === undefined) {
        const { token: _, ...rest } = t.flight;
        t.flight = rest as StoredToken['flight'];
      } else t.flight = { ...t.flight, token: value };
  }
}

/** The secrets a token holds itself (in the file), by kind. */
function heldSecrets(t: StoredToken): Partial<Record<SecretKind, string>> {
  const held: Partial<Record<SecretKind, string>> = {};
  for (const kind of SECRET_KINDS) {
    const v = secretOf(t, kind);
    if (v !== undefined) held[kind] = v;
  }
  return held;
}

/** Whether a token carries a secret of this kind, wherever it is kept. */
export function hasSecret(t: StoredToken, kind: SecretKind): boolean {
  return secretOf(t, kind) !== undefined || Boolean(t.keyring?.items.includes(kind));
}

/** Where a token's secrets live, in a word (`whoami`, `profile show`). */
export function secretPlace(t: StoredToken): 'keyring' | 'file' {
  return t.keyring ? 'keyring' : 'file';
}

/** The store's name of one item: `PROFILE:KIND:ID`, the id telling apart the config folders of one user. */
function account(profile: string, kind: SecretKind, id: string): string {
  return `${profile}:${kind}:${id}`;
}

function accountsOf(profile: string, t: StoredToken | undefined): string[] {
  return t?.keyring ? t.keyring.items.map((k) => account(profile, k, t.keyring!.id)) : [];
}

/**
 * What the vault asks of the store's client (src/config/secret-service.ts, src/config/keyring.ts); tests give a
 * fake one.
 */
export type StoreClient = Pick<KeyringHelper, 'get' | 'set' | 'delete' | 'probe' | 'close'>;

export class SecretVault {
  private client?: Promise<StoreClient>;
  private readonly revealed = new Map<string, Promise<RevealedToken | undefined>>();
  /** `login --credential-store` sets it for the login. */
  modeOverride?: { mode: StoreMode; source: string };

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    opts: { store?: StoreClient } = {},
  ) {
    if (opts.store) this.client = Promise.resolve(opts.store);
  }

  /** The mode in force: `--credential-store`, else DLAKE_CREDENTIAL_STORE, else auto. */
  mode(): { mode: StoreMode; source: string } {
    if (this.modeOverride) return this.modeOverride;
    const v = this.env.DLAKE_CREDENTIAL_STORE;
    if (v === undefined || v === '') return { mode: 'auto', source: 'default' };
    if (!(STORE_MODES as readonly string[]).includes(v)) {
      throw new UsageError(`DLAKE_CREDENTIAL_STORE: unknown credential store "${v}"`, {
        hint: `use one of: ${STORE_MODES.join(', ')}`,
      });
    }
    return { mode: v as StoreMode, source: 'DLAKE_CREDENTIAL_STORE' };
  }

  /**
   * Why no credential store can answer here, known without asking one: on Linux and the BSDs the Secret Service
   * is reached over the D-Bus session bus, and without one there is nothing to ask (CI, containers, SSH).
   */
  absentReason(): string | undefined {
    if (process.platform !== 'linux' && process.platform !== 'freebsd' && process.platform !== 'openbsd')
      return undefined;
    if (this.env.DBUS_SESSION_BUS_ADDRESS) return undefined;
    return sessionBusSocket(this.env)
      ? undefined
      : 'no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set';
  }

  /**
   * The store's client, its module loaded on first use: a command that never touches the store never loads it.
   * On Linux the Secret Service in-process over D-Bus (src/config/secret-service.ts); elsewhere the helper
   * process and its binding (src/config/keyring.ts).
   */
  private keyring(): Promise<StoreClient> {
    this.client ??= (async () => {
      const ms = Number(this.env.DLAKE_CREDENTIAL_STORE_TIMEOUT);
      const timeout = Number.isFinite(ms) && ms > 0 ? ms : DEFAULT_TIMEOUT_MS;
      const env = { ...this.env };
      const bus = !env.DBUS_SESSION_BUS_ADDRESS && sessionBusSocket(env);
      if (bus) env.DBUS_SESSION_BUS_ADDRESS = `unix:path=${bus}`;
      if (process.platform === 'linux') {
        const { SecretServiceStore } = await import('./secret-service.js');
        return new SecretServiceStore(env, timeout);
      }
      const { KeyringHelper } = await import('./keyring.js');
      return new KeyringHelper(env, timeout);
    })();
    return this.client;
  }

  /**
   * Checks, before a login contacts the service, that the store the login will write to answers: in `keyring`
   * mode it must (exit 9 naming why); in `auto` mode a store that is absent is the file's cue, one that is
   * there but fails or hangs is exit 9 (never a silent fall back to the file while a store exists).
   */
  async checkWritable(): Promise<void> {
    const { mode } = this.mode();
    if (mode === 'file') return;
    const absent = await this.whyAbsent();
    if (absent && mode === 'keyring') throw this.none(absent);
  }

  /**
   * Asks the store whether it answers (`doctor`, and a login's check): undefined when it does, why not when there
   * is none to ask; a LocalIOError (exit 9) when one is there but fails or does not answer in time.
   */
  async whyAbsent(): Promise<string | undefined> {
    const absent = this.absentReason();
    if (absent) return absent;
    try {
      await (await this.keyring()).probe();
      return undefined;
    } catch (e) {
      if (!(e instanceof StoreError)) throw e;
      if (e.unavailable) return e.message;
      throw this.failure(e);
    }
  }

  /** The token with its secrets, read from the store if they are there (once per command); undefined if gone. */
  reveal(profile: string, t: StoredToken): Promise<RevealedToken | undefined> {
    if (!t.keyring) return Promise.resolve(t.token === undefined ? undefined : (t as RevealedToken));
    const key = accountsOf(profile, t).join('\n');
    let got = this.revealed.get(key);
    if (!got) {
      const { id, items } = t.keyring;
      got = this.keyring()
        .then((k) => k.get(items.map((kind) => account(profile, kind, id))))
        .then((values) => {
          const full: StoredToken = structuredClone(t);
          for (const kind of items) putSecret(full, kind, values[account(profile, kind, id)] ?? undefined);
          return full.token === undefined ? undefined : (full as RevealedToken);
        })
        .catch((e: unknown) => {
          throw e instanceof StoreError ? this.failure(e) : e;
        });
      // A prefetch that nobody awaits must not be an unhandled rejection; the awaiting caller still sees it.
      got.catch(() => {});
      this.revealed.set(key, got);
    }
    return got;
  }

  /**
   * Under the config lock, before the files are written: moves the secrets that `tokens` hold themselves into
   * the store where the mode says so, each read back equal before it leaves the file. Returns the note to show
   * when the file keeps them for want of a store. `before` gives each profile's item id, kept across renewals.
   */
  async place(
    tokens: Record<string, StoredToken>,
    names: string[],
    before: Record<string, StoredToken>,
    opts: { migrating?: boolean } = {},
  ): Promise<string | undefined> {
    // What was read before this write may be what it replaces: read again after it.
    this.revealed.clear();
    const { mode } = this.mode();
    const waiting = names.filter((n) => tokens[n] && Object.keys(heldSecrets(tokens[n]!)).length > 0);
    if (mode === 'file' || waiting.length === 0) return undefined;
    const absent = this.absentReason();
    if (absent) {
      if (mode === 'keyring' && !opts.migrating) throw this.none(absent);
      return fileNote(absent);
    }
    for (const name of waiting) {
      const t = tokens[name]!;
      const held = heldSecrets(t);
      const id = t.keyring?.id ?? before[name]?.keyring?.id ?? newItemId();
      const items = Object.fromEntries(
        Object.entries(held).map(([kind, v]) => [account(name, kind as SecretKind, id), v]),
      );
      try {
        const keyring = await this.keyring();
        await keyring.set(items);
        const back = await keyring.get(Object.keys(items));
        const differs = Object.keys(items).find((a) => back[a] !== items[a]);
        if (differs) throw new StoreError(`the credential store gave back another value for ${differs}`);
      } catch (e) {
        // What this move wrote is removed again (best effort), unless the file already names it.
        const named = new Set(accountsOf(name, before[name]));
        const written = Object.keys(items).filter((a) => !named.has(a));
        if (written.length) await (await this.keyring()).delete(written).catch(() => undefined);
        if (!(e instanceof StoreError)) throw e;
        if (e.unavailable && mode === 'auto') return fileNote(e.message);
        throw this.failure(e);
      }
      for (const kind of Object.keys(held) as SecretKind[]) putSecret(t, kind, undefined);
      const kinds = new Set([...(t.keyring?.items ?? []), ...(Object.keys(held) as SecretKind[])]);
      t.keyring = { id, items: SECRET_KINDS.filter((k) => kinds.has(k)) };
    }
    return undefined;
  }

  /**
   * After the files are written: removes the items no token refers to any more (a logout, a deleted profile, a
   * login that replaced them). Returns a warning when some could not be removed.
   */
  async sweep(
    before: Record<string, StoredToken>,
    after: Record<string, StoredToken>,
  ): Promise<string | undefined> {
    const kept = new Set(Object.entries(after).flatMap(([n, t]) => accountsOf(n, t)));
    const gone = Object.entries(before)
      .flatMap(([n, t]) => accountsOf(n, t))
      .filter((a) => !kept.has(a));
    if (gone.length === 0) return undefined;
    this.revealed.clear();
    try {
      await (await this.keyring()).delete(gone);
      return undefined;
    } catch (e) {
      if (!(e instanceof StoreError)) throw e;
      return `could not remove ${gone.length} item(s) of service "dlake" from the credential store (${e.message}): remove them by hand (${gone.join(', ')})`;
    }
  }

  close(): void {
    void this.client?.then((h) => h.close());
  }

  private none(why: string): LocalIOError {
    return new LocalIOError(`no credential store available (${why})`, {
      hint: 'unset DLAKE_CREDENTIAL_STORE (or use --credential-store file) to keep the token in the 0600 file',
    });
  }

  private failure(e: StoreError): LocalIOError {
    return new LocalIOError(`the credential store failed: ${e.message}`, {
      hint: 'unlock the keyring and run the command again, or keep tokens in the 0600 file with DLAKE_CREDENTIAL_STORE=file',
    });
  }
}

function fileNote(why: string): string {
  return `no credential store available (${why}): the token is kept in FILE, mode 0600`;
}

/** `$XDG_RUNTIME_DIR/bus`, where a systemd user session's bus listens when the variable is not set. */
function sessionBusSocket(env: NodeJS.ProcessEnv): string | undefined {
  if (!env.XDG_RUNTIME_DIR) return undefined;
  const bus = join(env.XDG_RUNTIME_DIR, 'bus');
  try {
    return statSync(bus).isSocket() ? bus : undefined;
  } catch {
    return undefined;
  }
}

/** Eight hex digits, new for each profile's first items in the store. */
function newItemId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(4)), (b) => b.toString(16).padStart(2, '0')).join(
    '',
  );
}
