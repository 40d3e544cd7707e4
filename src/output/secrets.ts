// The one redaction of the secrets in force (docs/cli-contract.md "Secrets"): a service or a proxy that echoes
// the token it was sent (`bad request for token …`, common) must not get it printed. The secrets are those the
// run sends or has stored (util/secrets.ts), and every text the run writes to standard output or error goes
// through `redactingStreams`: an error line, a warning, a table, a --debug trace, an MCP answer alike. The data
// of an export (bytes) is written as the service sent it. A command that prints a secret on purpose (`pat create`, `token exchange --print`) says so
// with `writeUnredacted`.
import type { SecretsInForce } from '../util/secrets.js';
import type { Streams } from './ui.js';

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
