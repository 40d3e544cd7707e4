// Which way an export reads its rows (docs/cli-contract.md "Export over Arrow Flight"): `--transport auto`
// (the default) uses Arrow Flight when an endpoint is configured and answers, else REST, saying on stderr
// which it used; `flight` never falls back; `rest` never tries Flight. Under Flight the query runs once,
// through Flight: no REST job is submitted beside it. Light on purpose: gRPC and Arrow are loaded only once
// an export goes over Flight (../export.ts, ./source.ts).
import { JOB_ID, segment } from '../../api/url-segment.js';
import { requireUrl } from '../../auth/settings.js';
import type { Context } from '../../context.js';
import { AuthError, UsageError } from '../../errors.js';
import { type FlightSetting, flightSetting, parseFlightUrl } from './endpoint.js';

const TRANSPORTS = ['auto', 'flight', 'rest'] as const;
export type Transport = (typeof TRANSPORTS)[number];

export interface FlightAttempt {
  /** The SQL to run over Flight (a job's results: `jobResultsSql`). */
  sql: string;
  transport: Transport;
  /** Options only REST honours: named in the refusal (`--transport flight`) or the fallback note (`auto`). */
  restOnly?: string;
  /** `--wait-timeout`: bounds the whole Flight export (every call and stream of it), as it bounds a REST wait. */
  waitTimeoutMs?: number;
}

/** The query that reads a job's results over Flight, as the service offers them (docs/api-facts.md §14). */
export function jobResultsSql(id: string): string {
  // The id goes inside a quoted identifier: first the checks every id gets (the same words as over REST), then
  // only the characters of a job id.
  segment(id, 'job id');
  if (!JOB_ID.test(id)) throw new UsageError(`"${id}" is not a job id`);
  return `SELECT * FROM sys.job_results."${id}"`;
}

/** Refusals said before any request: `--transport flight` with what only REST does. */
export function checkTransport(transport: Transport | undefined, restOnly: string | undefined): void {
  if (transport === 'flight' && restOnly) {
    throw new UsageError(`--transport flight cannot be combined with ${restOnly}`, {
      hint: `${restOnly} is a REST feature: use --transport rest (or auto)`,
    });
  }
}

/** The Flight endpoint in force (flag > DLAKE_FLIGHT_URL > profile), if any. */
function flightEndpoint(ctx: Context): FlightSetting | undefined {
  const s = ctx.settings();
  return flightSetting(ctx.opts.flightUrl, ctx.env, s.profile, s.profileName.value);
}

/** How an export goes over Flight, once `flightPlan` chose it. */
export interface FlightPlan {
  flight: FlightSetting;
  /** The authorization header of every call. */
  authorization: string;
  /** `--transport flight`: no fallback to REST. */
  explicit: boolean;
  /** The hint of an authentication failure (the login command). */
  loginHint: string;
  /** Says on stderr that the export goes over REST, and why (`auto` falling back). */
  overRest(why: string): void;
}

/**
 * Whether an export goes over Flight: its plan, or undefined when it is to go over REST (`rest`, or `auto`
 * without an endpoint, with REST-only options or without a Flight credential: said on stderr). Refuses what
 * `--transport flight` cannot do (exit 2).
 */
export async function flightPlan(ctx: Context, a: FlightAttempt): Promise<FlightPlan | undefined> {
  if (a.transport === 'rest') return undefined;
  const explicit = a.transport === 'flight';
  checkTransport(a.transport, a.restOnly);
  const flight = flightEndpoint(ctx);
  if (!flight) {
    if (!explicit) return undefined;
    throw new UsageError('--transport flight needs an Arrow Flight endpoint', {
      hint: 'pass --flight-url grpc://HOST:PORT (grpc+tls:// for TLS), set DLAKE_FLIGHT_URL, or store one with `dlake login --flight-url URL`',
    });
  }
  const overRest = (why: string): void => ctx.ui.notice(`exporting over REST: ${why}`);
  if (a.restOnly) {
    overRest(`${a.restOnly} is a REST feature`);
    return undefined;
  }
  let authorization: string;
  try {
    authorization = await flightAuthorization(ctx, flight);
  } catch (e) {
    if (explicit || !(e instanceof AuthError)) throw e;
    overRest(e.message);
    return undefined;
  }
  return { flight, authorization, explicit, loginHint: loginHint(ctx, flight), overRest };
}

/**
 * A Flight URL from `--flight-url` or DLAKE_FLIGHT_URL that is not the one the profile stores gets none of the
 * profile's stored credentials (exit 2), as a DLAKE_URL that is not the profile's gets none of its tokens
 * (docs/cli-contract.md "Export over Arrow Flight").
 */
function refuseForeignEndpoint(ctx: Context, flight: FlightSetting): void {
  const s = ctx.settings();
  if (!Object.hasOwn(ctx.snapshot().credentials.tokens, s.profileName.value)) return;
  const stored = (s.profile as { flightUrl?: unknown } | undefined)?.flightUrl;
  const own = typeof stored === 'string' ? tryFlightUrl(stored) : undefined;
  if (own === flight.endpoint.url) return;
  const name = s.profileName.value;
  throw new UsageError(
    `${flight.origin} (${flight.endpoint.url}) is not the Flight endpoint of profile "${name}" (${own ?? 'none stored'}): its stored credential is sent only there`,
    {
      hint:
        flight.origin === 'DLAKE_FLIGHT_URL'
          ? `unset DLAKE_FLIGHT_URL, or store the endpoint with ${loginCommand(ctx, flight)}`
          : `store the endpoint with ${loginCommand(ctx, flight)}, or give a credential for it in DLAKE_TOKEN`,
    },
  );
}

function tryFlightUrl(text: string): string | undefined {
  try {
    return parseFlightUrl(text).url;
  } catch {
    return undefined;
  }
}

function loginCommand(ctx: Context, flight: FlightSetting): string {
  const s = ctx.settings();
  const name = s.profileName.value;
  const p = s.profileName.source === 'flag' || name !== 'default' ? ` -p ${name}` : '';
  return `\`dlake login${p} --flight-url ${flight.endpoint.url}\``;
}

function loginHint(ctx: Context, flight: FlightSetting): string {
  return `run ${loginCommand(ctx, flight)} (or store a personal access token with --token-stdin)`;
}

/**
 * The authorization header of the Flight calls, as the service takes them (docs/api-facts.md §14): a PAT or an
 * OAuth access token as `Bearer`; for a password login, the bearer token its Flight handshake answered. The
 * REST session token is never sent: the service's Flight session manager refuses it and may end the session.
 */
export async function flightAuthorization(ctx: Context, flight: FlightSetting): Promise<string> {
  const settings = ctx.settings();
  if (settings.envToken) return `Bearer ${settings.envToken}`;
  // A credential from the environment's client id goes where the environment says; a stored one only to the
  // profile's own endpoint.
  if (!settings.envClientCredentials) refuseForeignEndpoint(ctx, flight);
  const url = settings.url ? requireUrl(settings) : undefined;
  const { usableToken, CredentialProvider } = await import('../../auth/credentials.js');
  const name = settings.profileName.value;
  const kept = usableToken(ctx.snapshot(), settings, url);
  // Its secrets from the credential store, where they are kept there (src/config/secrets.ts).
  const stored = kept && (await ctx.store.reveal(name, kept));
  if (stored?.kind === 'session') {
    const f = stored.flight;
    if (f?.token && f.url === flight.endpoint.url) return `Bearer ${f.token}`;
    throw new AuthError(
      `profile "${name}" has no Flight token for ${flight.endpoint.url} (its REST session is never sent to Flight)`,
      { hint: loginHint(ctx, flight) },
    );
  }
  if (stored?.kind === 'bearer' && stored.obtainedVia === 'pat') return `Bearer ${stored.token}`;
  if (!url) throw new AuthError(`not logged in (profile "${name}")`, { hint: loginHint(ctx, flight) });
  // An OAuth access token (client credentials, JWT or PAT exchange), renewed as REST renews it.
  const client = await ctx.client();
  const provider = new CredentialProvider({
    settings,
    url,
    store: ctx.store,
    snapshot: ctx.snapshot(),
    notice: (msg) => ctx.ui.warn(msg),
  });
  provider.attach(client);
  const header = await provider.header();
  if (!/^bearer /i.test(header)) {
    throw new AuthError(`profile "${name}" has no Flight credential`, { hint: loginHint(ctx, flight) });
  }
  return header;
}
