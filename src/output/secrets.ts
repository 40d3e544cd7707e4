// The one redaction of the secrets in force (docs/cli-contract.md "Secrets"): a service or a proxy that echoes
// the token it was sent (`bad request for token …`, common) must not get it printed. Every secret a run sends —
// an Authorization header (Bearer or Basic), a password, a client secret, a PAT or subject token in a body, the
// Flight handshake's — is remembered where it is sent (api/pipeline/transport.ts, export/flight/client.ts), and
// every text the run writes to standard output or error goes through `redactingStreams`: an error line, a
// warning, a table, a --debug trace, an MCP answer alike. The data of an export (bytes) is written as the
// service sent it. A command that prints a secret on purpose (`pat create`, `token exchange --print`) says so
// with `writeUnredacted`.
import { AsyncLocalStorage } from 'node:async_hooks';
import { REDACTED } from '../util/redact.js';
import type { Streams } from './ui.js';

/** Shorter values are not redacted: a two-letter password would hide every pair of those letters. */
const MIN_SECRET_LENGTH = 4;

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

const RAW = Symbol('unredacted stream');

/** Standard output and error that hide every secret in force in the text written to them. */
export function redactingStreams(streams: Streams, secrets: SecretsInForce): Streams {
  return {
    stdin: streams.stdin,
    stdout: redacting(streams.stdout, secrets),
    stderr: redacting(streams.stderr, secrets),
  };
}

function redacting(stream: NodeJS.WriteStream, secrets: SecretsInForce): NodeJS.WriteStream {
  const realWrite = stream.write.bind(stream) as (...a: unknown[]) => boolean;
  const redactingWrite = (chunk: unknown, ...rest: unknown[]): boolean =>
    realWrite(typeof chunk === 'string' && secrets.size > 0 ? secrets.redact(chunk) : chunk, ...rest);
  // A spinner hooks `write` (to clear itself before other output) and puts it back: the hook is kept here, in
  // front of the redaction, never on the stream below it.
  let write: unknown = redactingWrite;
  return new Proxy(stream, {
    get(target, key) {
      if (key === 'write') return write;
      if (key === RAW) return target;
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    set(target, key, value) {
      if (key === 'write') write = value;
      else Reflect.set(target, key, value, target);
      return true;
    },
  });
}

/** Writes a secret the user asked for (a new PAT, `--print`'s token) as it is. */
export function writeUnredacted(stream: NodeJS.WriteStream, text: string): void {
  ((stream as unknown as Record<symbol, NodeJS.WriteStream | undefined>)[RAW] ?? stream).write(text);
}
