// `dlake whoami [--check]`: every setting in force and where it came from; never a secret.

import type { Command } from '@commander-js/extra-typings';
import { isExpired, timeLeftMs } from '../auth/expiry.js';
import type { Setting } from '../auth/settings.js';
import { hasSecret, secretPlace } from '../config/secrets.js';
import type { Context } from '../context.js';
import { AuthError, rephrased, UsageError } from '../errors.js';
import { redactUrl } from '../util/redact.js';
import { formatDuration } from '../util/units.js';
import { examples } from './common.js';
import { defineCommand, type OptionsOf } from './define.js';

const declaration = (whoami: Command) =>
  whoami
    .description('Show the profile, URL, user, token kind and time left, and where each setting came from')
    .option('--check', 'also call the service to prove the credentials work (exit 3 if they do not)')
    .addHelpText('after', examples('dlake whoami', 'dlake whoami --check -o json'));

export const register = defineCommand(declaration, whoami);

interface Row {
  setting: string;
  value: string;
  source: string;
}

async function whoami(ctx: Context, opts: OptionsOf<typeof declaration>): Promise<void> {
  const s = ctx.settings();
  const { tokenClientId, usableToken } = await import('../auth/credentials.js');
  const rows: Row[] = [];
  // A URL is shown without the user name and password it may carry (http://user:pw@host).
  const add = (setting: string, v: Setting<string> | undefined) => {
    if (v)
      rows.push({
        setting,
        value: redactUrl(v.value),
        source: v.name ? `${v.source} (${v.name})` : v.source,
      });
  };
  add('profile', s.profileName);
  add('url', s.url);
  add('edition', s.edition);
  add('project-id', s.projectId);
  add('auth-url', s.authUrl);
  if (!s.authUrl && s.edition.value === 'cloud' && s.url) {
    // The hosted edition's tokens come from its login service (docs/api-facts.md §13.2).
    const { hostedLoginUrl } = await import('../api/roots.js');
    const login = hostedLoginUrl(s.url.value);
    if (login) rows.push({ setting: 'auth-url', value: login, source: 'default' });
  }
  const flight = await flightRow(ctx);
  if (flight) rows.push(flight);
  add('timeout', s.timeout);
  add('ca-file', s.caFile);
  add(
    'output',
    ctx.opts.json
      ? { value: 'json', source: 'flag' }
      : ctx.opts.output
        ? { value: ctx.opts.output, source: 'flag' }
        : s.output,
  );

  // The user shown is the one of the credentials in force: the stored token's own identity (never an
  // earlier login's), nothing for DLAKE_TOKEN (whose owner only the service knows: --check asks it).
  const usable = usableToken(ctx.snapshot(), s, s.url?.value);
  if (s.envToken) {
    rows.push({ setting: 'token', value: 'bearer token', source: 'environment (DLAKE_TOKEN)' });
  } else if (usable) {
    if (usable.username) rows.push({ setting: 'user', value: usable.username, source: 'profile' });
    const clientId = tokenClientId(usable, s.profile);
    if (clientId) rows.push({ setting: 'client-id', value: clientId, source: 'profile' });
    const left = timeLeftMs(usable.expiresAt);
    const status =
      left === undefined
        ? 'no known expiry'
        : isExpired(usable.expiresAt)
          ? 'expired'
          : `${formatDuration(left, { largest: 2 })} left`;
    rows.push({
      setting: 'token',
      value: `${usable.kind} via ${usable.obtainedVia} (${status})`,
      source: 'profile',
    });
    if (usable.expiresAt) rows.push({ setting: 'expires', value: usable.expiresAt, source: 'profile' });
    rows.push({
      setting: 'stored in',
      value:
        secretPlace(usable) === 'keyring'
          ? 'keyring (the credential store, service "dlake")'
          : `file (${ctx.store.credentialsPath}, mode 0600)`,
      source: 'profile',
    });
  } else {
    rows.push({ setting: 'token', value: 'none (not logged in)', source: 'default' });
  }
  if (s.envClientCredentials) {
    rows.push({
      setting: 'renewal',
      value: `client credentials (${s.envClientCredentials.clientId})`,
      source: 'environment (DLAKE_CLIENT_ID)',
    });
  } else if (usable && hasSecret(usable, 'pat')) {
    rows.push({ setting: 'renewal', value: 'PAT exchange with the stored PAT', source: 'profile' });
  }

  let refused: AuthError | undefined;
  // With no token and nothing to get one with, the service is never asked: it refused nothing.
  const asked = Boolean(s.envToken || usable || s.envClientCredentials);
  if (opts.check) {
    const { whoAmI } = await import('../api/identity.js');
    try {
      // One call to a spec endpoint proves the credentials and names their user.
      const { userName } = await whoAmI(await ctx.client());
      rows.push({
        setting: 'check',
        value: `ok, the service knows you as ${userName ?? 'a user it does not name'}`,
        source: 'service',
      });
      if (userName) {
        // What the service says wins over what was stored.
        const stored = rows.findIndex((r) => r.setting === 'user');
        if (stored >= 0) rows.splice(stored, 1);
        rows.push({ setting: 'user', value: userName, source: 'service' });
      }
    } catch (e) {
      if (!(e instanceof AuthError)) throw e;
      refused = e;
      rows.push(
        asked
          ? { setting: 'check', value: `refused: ${e.message}`, source: 'service' }
          : { setting: 'check', value: `not made: ${e.message}`, source: 'default' },
      );
    }
  }

  const data = Object.fromEntries(rows.map((r) => [r.setting, { value: r.value, source: r.source }]));
  await ctx.print({
    data,
    rows,
    view: {
      columns: [
        { header: 'SETTING', value: (r: Row) => r.setting },
        { header: 'VALUE', value: (r: Row) => r.value },
        { header: 'SOURCE', value: (r: Row) => r.source },
      ],
    },
  });
  if (refused) {
    throw rephrased(
      refused,
      !asked || /refused the credentials/.test(refused.message)
        ? refused.message
        : `the service refused the credentials: ${refused.message}`,
      {
        hint: s.envToken
          ? 'the token in DLAKE_TOKEN was refused (expired or revoked?): set a valid one, or unset it to use the profile'
          : (refused.hint ?? 'run `dlake login`'),
      },
    );
  }
}

/** The Arrow Flight endpoint in force (flag > DLAKE_FLIGHT_URL > profile), where it came from, if any. */
async function flightRow(ctx: Context): Promise<Row | undefined> {
  const s = ctx.settings();
  const { flightSetting } = await import('../export/flight/endpoint.js');
  const stored = (s.profile as { flightUrl?: unknown } | undefined)?.flightUrl;
  const given =
    ctx.opts.flightUrl ?? ctx.env.DLAKE_FLIGHT_URL ?? (typeof stored === 'string' ? stored : undefined);
  const source = ctx.opts.flightUrl
    ? 'flag'
    : ctx.env.DLAKE_FLIGHT_URL
      ? 'environment (DLAKE_FLIGHT_URL)'
      : 'profile';
  try {
    const flight = flightSetting(ctx.opts.flightUrl, ctx.env, s.profile, s.profileName.value);
    return flight && { setting: 'flight-url', value: flight.endpoint.url, source };
  } catch (e) {
    if (!(e instanceof UsageError) || given === undefined) throw e;
    return { setting: 'flight-url', value: `${given} (not a Flight URL)`, source };
  }
}
