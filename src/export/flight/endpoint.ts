// Where the Arrow Flight endpoint is (docs/cli-contract.md "Export over Arrow Flight"): `--flight-url`, then
// DLAKE_FLIGHT_URL, then the profile's `flightUrl` (stored by `login --flight-url`). Light on purpose: every
// export reads it, and only an export that uses Flight loads gRPC and Arrow.
import type { Profile } from '../../config/schema.js';
import { UsageError } from '../../errors.js';

export interface FlightEndpoint {
  /** As written back in messages and stored: `grpc://host:port` or `grpc+tls://host:port`. */
  url: string;
  host: string;
  port: number;
  tls: boolean;
}

export interface FlightSetting {
  endpoint: FlightEndpoint;
  /** What set it, for messages: `--flight-url`, `DLAKE_FLIGHT_URL` or `the flight-url of profile "x"`. */
  origin: string;
}

/**
 * A Flight URL: `grpc://HOST:PORT` (also `grpc+tcp://`) or `grpc+tls://HOST:PORT`; the port is required
 * (the service's self-hosted default is 32010, the hosted one 443: docs/api-facts.md §14).
 */
export function parseFlightUrl(text: string, origin = '--flight-url'): FlightEndpoint {
  const m = /^(grpc|grpc\+tcp|grpc\+tls):\/\/(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})\/?$/.exec(
    text.trim(),
  );
  const port = m ? Number(m[3]) : 0;
  if (!m || port < 1 || port > 65535) {
    throw new UsageError(`${origin} is not a Flight URL: ${JSON.stringify(text)}`, {
      hint: 'write it as grpc://HOST:PORT, or grpc+tls://HOST:PORT for TLS (e.g. grpc+tls://lake.example.com:32010)',
    });
  }
  const tls = m[1] === 'grpc+tls';
  const host = m[2]!;
  return { url: `${tls ? 'grpc+tls' : 'grpc'}://${host}:${port}`, host, port, tls };
}

/** The Flight endpoint in force, if any: flag > environment > profile. */
export function flightSetting(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  profile: (Profile & { flightUrl?: unknown }) | undefined,
  profileName: string,
): FlightSetting | undefined {
  if (flag) return { endpoint: parseFlightUrl(flag), origin: '--flight-url' };
  if (env.DLAKE_FLIGHT_URL)
    return { endpoint: parseFlightUrl(env.DLAKE_FLIGHT_URL, 'DLAKE_FLIGHT_URL'), origin: 'DLAKE_FLIGHT_URL' };
  if (typeof profile?.flightUrl === 'string') {
    const origin = `the flight-url of profile "${profileName}"`;
    return { endpoint: parseFlightUrl(profile.flightUrl, origin), origin };
  }
  return undefined;
}
