// `dlake whoami [--check]`: every setting in force and where it came from; never a secret.
import type { Command } from 'commander';
import { isExpired, timeLeftMs } from '../auth/expiry.js';
import type { Setting } from '../auth/settings.js';
import type { Context } from '../context.js';
import { AuthError } from '../errors.js';
import type { Runtime } from '../runtime.js';
import { formatDuration } from '../util/units.js';
import { sameServiceUrl } from '../util/url.js';
import { examples } from './common.js';

export function register(program: Command, rt: Runtime): void {
  program
    .command('whoami')
    .description('Show the profile, URL, user, token kind and time left, and where each setting came from')
    .option('--check', 'also call the service to prove the credentials work (exit 3 if they do not)')
    .addHelpText('after', examples('dlake whoami', 'dlake whoami --check -o json'))
    .action(rt.action(whoami));
}

interface Row {
  setting: string;
  value: string;
  source: string;
}

async function whoami(ctx: Context, opts: { check?: boolean }): Promise<void> {
  const s = ctx.settings();
  const stored = ctx.snapshot().credentials.tokens[s.profileName.value];
  const rows: Row[] = [];
  const add = (setting: string, v: Setting<string> | undefined) => {
    if (v) rows.push({ setting, value: v.value, source: v.name ? `${v.source} (${v.name})` : v.source });
  };
  add('profile', s.profileName);
  add('url', s.url);
  add('auth-url', s.authUrl);
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

  const usable =
    stored && (!stored.url || (s.url && sameServiceUrl(stored.url, s.url.value))) ? stored : undefined;
  if (s.envToken) {
    rows.push({ setting: 'token', value: 'bearer token', source: 'environment (DLAKE_TOKEN)' });
  } else if (usable) {
    const user = usable.username ?? s.profile?.username;
    if (user) rows.push({ setting: 'user', value: user, source: 'profile' });
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
  } else {
    rows.push({ setting: 'token', value: 'none (not logged in)', source: 'default' });
  }
  if (s.envClientCredentials) {
    rows.push({
      setting: 'renewal',
      value: `client credentials (${s.envClientCredentials.clientId})`,
      source: 'environment (DLAKE_CLIENT_ID)',
    });
  } else if (usable?.pat) {
    rows.push({ setting: 'renewal', value: 'PAT exchange with the stored PAT', source: 'profile' });
  }

  let check: { ok: boolean; version?: string; error?: string; hint?: string } | undefined;
  if (opts.check) {
    const { getServerInfo } = await import('../api/login.js');
    try {
      const info = await getServerInfo(await ctx.client());
      check = { ok: true, version: info.version };
      rows.push({
        setting: 'check',
        value: `ok${info.version ? ` (service ${info.version})` : ''}`,
        source: 'service',
      });
    } catch (e) {
      if (!(e instanceof AuthError)) throw e;
      check = { ok: false, error: e.message, hint: e.hint };
      rows.push({ setting: 'check', value: `refused: ${e.message}`, source: 'service' });
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
  if (check && !check.ok)
    throw new AuthError(
      /refused the credentials/.test(check.error ?? '')
        ? (check.error as string)
        : `the service refused the credentials: ${check.error}`,
      {
        hint: s.envToken
          ? 'the token in DLAKE_TOKEN was refused (expired or revoked?): set a valid one, or unset it to use the profile'
          : (check.hint ?? 'run `dlake login`'),
      },
    );
}
