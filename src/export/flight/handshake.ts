// `login --flight-url`: the Flight handshake of a password login, done once (docs/api-facts.md §14). The
// bearer token the endpoint answers is stored beside the REST session (config/schema.ts `flight`); the
// password is not kept.
import type { Context } from '../../context.js';
import type { FlightEndpoint } from './endpoint.js';

/** The bearer token of `Basic user:password` at the endpoint, or the reason it could not be had. */
export async function flightHandshake(
  ctx: Context,
  endpoint: FlightEndpoint,
  user: string,
  password: string,
): Promise<{ token: string } | { failure: string }> {
  const { FlightClient } = await import('./client.js');
  const settings = ctx.settings({ allowNewProfile: true });
  const client = new FlightClient({
    endpoint,
    idleMs: ctx.timeoutMs(),
    caFile: settings.caFile?.value,
    insecure: ctx.opts.insecure,
    trace: ctx.debugging ? (line) => ctx.streams.stderr.write(`debug: ${line}\n`) : undefined,
  });
  try {
    return { token: await client.handshakeBasic(user, password, ctx.interrupt.signal) };
  } catch (e) {
    const err = e as Error & { details?: string };
    return { failure: err.details || err.message };
  } finally {
    client.close();
  }
}
