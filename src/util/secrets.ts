// The secrets in force of one run of dlake (docs/cli-contract.md "Secrets"): each secret the run sends — an
// Authorization header (Bearer or Basic), a password, a client secret, a PAT or subject token in a body, the
// Flight handshake's — is remembered where it is sent (api/pipeline/transport.ts, export/flight/client.ts), with
// the stored tokens, so that no text the run prints shows one (output/secrets.ts hides them). One registry per
// run, reached through the run's asynchronous context: runs that share a process (tests) share nothing.
import { AsyncLocalStorage } from 'node:async_hooks';
import { REDACTED } from './redact.js';

/**
 * Shorter values are not redacted: a password such as `wrong` would hide that word in every hint. Tokens,
 * PATs and client secrets are far longer.
 */
const MIN_SECRET_LENGTH = 8;

export class SecretsInForce {
  private readonly values = new Set<string>();
  /** Longest first, so that a secret that holds another is hidden whole. */
  private ordered: string[] = [];

  add(value: unknown): void {
    if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH) return;
    for (const form of [value, encodeURIComponent(value)]) {
      if (this.values.has(form)) continue;
      this.values.add(form);
      this.ordered = [...this.values].sort((a, b) => b.length - a.length);
    }
  }

  /** The secret of an Authorization header: a bearer token, or Basic's encoded pair and its password. */
  addAuthorization(header: string): void {
    const m = /^(\w+)\s+(.+)$/.exec(header.trim());
    if (!m) {
      this.add(header.trim());
      return;
    }
    const [, scheme, value] = m;
    this.add(value);
    if (/^basic$/i.test(scheme!)) {
      const pair = Buffer.from(value!, 'base64').toString('utf8');
      const colon = pair.indexOf(':');
      if (colon >= 0) this.add(pair.slice(colon + 1));
    }
  }

  /** Every secret-named value of a stored file (tokens, refresh tokens, PATs, client secrets), at any depth. */
  addStored(value: unknown, key = ''): void {
    if (typeof value === 'string') {
      if (STORED_SECRET.test(key)) this.add(value);
    } else if (Array.isArray(value)) {
      for (const v of value) this.addStored(v, key);
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) this.addStored(v, k);
    }
  }

  get size(): number {
    return this.values.size;
  }

  redact(text: string): string {
    let out = text;
    for (const s of this.ordered) if (out.includes(s)) out = out.split(s).join(REDACTED);
    return out;
  }
}

/** The names of stored secrets: `token`, `refreshToken`, `pat`, `clientSecret`, … */
const STORED_SECRET = /token|secret|password|^pat$/i;

const current = new AsyncLocalStorage<SecretsInForce>();

/** Runs `fn` (a whole run of dlake) with `secrets` as the run's secrets in force. */
export function withSecrets<T>(secrets: SecretsInForce, fn: () => T): T {
  return current.run(secrets, fn);
}

/** This run's secrets in force (none outside a run: a script or a test calling a module directly). */
export function secretsInForce(): SecretsInForce | undefined {
  return current.getStore();
}
