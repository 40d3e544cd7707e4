// `dlake token exchange client-credentials|jwt|pat`: OAuth access tokens from the token endpoint.
import { type Command, Option } from '@commander-js/extra-typings';
import type { OAuthToken } from '../api/schemas/auth.js';
import type { StoredToken } from '../config/schema.js';
import type { Context } from '../context.js';
import { AuthError, InterruptedError, UsageError } from '../errors.js';
import { readHidden, readStdin } from '../output/prompt.js';
import { writeUnredacted } from '../output/secrets.js';
import { readTextFile } from '../util/files.js';
import { examples, refuseSecretFlag } from './common.js';
import { type Declare, defineCommand, defineGroup, type OptionsOf } from './define.js';

const clientCredentialsDeclaration = (exchange: Command) =>
  exchange
    .command('client-credentials')
    .description('OAuth client credentials of a service user; stores the access token and its refresh token')
    .option('--client-id <id>', 'client id of the service user (default: DLAKE_CLIENT_ID)')
    .option(
      '--client-secret-stdin',
      'read the client secret from standard input (default: DLAKE_CLIENT_SECRET, else a prompt)',
    )
    .addOption(refuseSecretFlag('--client-secret <secret>', '--client-secret-stdin or DLAKE_CLIENT_SECRET'))
    .option('--print', 'also write the access token alone to stdout')
    .addHelpText(
      'after',
      examples(
        'dlake token exchange client-credentials --client-id ci-bot --client-secret-stdin < secret.txt',
        'export DLAKE_TOKEN=$(DLAKE_CLIENT_SECRET=… dlake token exchange client-credentials --client-id ci-bot --print)',
      ),
    );

const jwtDeclaration = (exchange: Command) =>
  exchange
    .command('jwt')
    .description("Exchange an external identity provider's JWT (with --audience: for a service user)")
    .option('--subject-token-file <file>', 'read the JWT from this file')
    .addOption(
      new Option('--subject-token-stdin', 'read the JWT from standard input').conflicts('subjectTokenFile'),
    )
    .addOption(refuseSecretFlag('--subject-token <jwt>', '--subject-token-file or --subject-token-stdin'))
    .option(
      '--audience <credential>',
      'credential identifier of a service user (//host/organizations/…/credentials/…)',
    )
    .option('--print', 'also write the access token alone to stdout')
    .addHelpText(
      'after',
      examples(
        'dlake token exchange jwt --subject-token-file "$ACTIONS_ID_TOKEN_FILE"',
        'idp-cli token | dlake token exchange jwt --subject-token-stdin --audience //idp/organizations/o/clients/c/credentials/k',
      ),
    );

const patDeclaration = (exchange: Command) =>
  exchange
    .command('pat')
    .description(
      "Exchange a personal access token for a short-lived access token (default: the profile's stored PAT)",
    )
    .option('--subject-token-stdin', 'read the PAT from standard input')
    .addOption(refuseSecretFlag('--subject-token <pat>', '--subject-token-stdin'))
    .option('--print', 'also write the access token alone to stdout')
    .addHelpText(
      'after',
      examples(
        'dlake token exchange pat',
        'dlake token exchange pat --subject-token-stdin < pat.txt --print',
      ),
    );

const exchangeVerbs = defineGroup([
  defineCommand(clientCredentialsDeclaration, clientCredentials),
  defineCommand(jwtDeclaration, jwt),
  defineCommand(patDeclaration, pat),
]);

export const register: Declare = (token, rt) => {
  const exchange = token
    .command('exchange')
    .description('Get an access token from the token endpoint (<auth-url>/oauth/token) and store it');
  exchangeVerbs(exchange, rt);
};

async function clientCredentials(
  ctx: Context,
  opts: OptionsOf<typeof clientCredentialsDeclaration>,
): Promise<void> {
  const clientId = opts.clientId ?? ctx.env.DLAKE_CLIENT_ID;
  if (!clientId) throw new UsageError('no client id', { hint: 'pass --client-id ID or set DLAKE_CLIENT_ID' });
  await ctx.store.checkCanStore();
  const secret = opts.clientSecretStdin
    ? await readStdin(ctx.streams.stdin)
    : (ctx.env.DLAKE_CLIENT_SECRET ??
      (await promptSecret(ctx, `Client secret for ${clientId}: `, '--client-secret-stdin')));
  if (!secret) throw new UsageError('the client secret is empty');
  const { clientCredentialsGrant } = await import('../api/oauth.js');
  const client = await ctx.client({ auth: false, resolve: { allowNewProfile: true } });
  const t = await clientCredentialsGrant(client, clientId, secret);
  await save(ctx, client, t, 'client-credentials', opts, { clientId });
}

async function jwt(ctx: Context, opts: OptionsOf<typeof jwtDeclaration>): Promise<void> {
  // Both at once is refused by commander (`.conflicts`); neither is refused here.
  if (!opts.subjectTokenFile && !opts.subjectTokenStdin) {
    throw new UsageError(
      'give the JWT with exactly one of --subject-token-file FILE or --subject-token-stdin',
    );
  }
  const token = opts.subjectTokenFile
    ? readTokenFile(opts.subjectTokenFile)
    : await readStdin(ctx.streams.stdin);
  if (!token.trim()) throw new UsageError('the JWT is empty');
  await ctx.store.checkCanStore();
  const { jwtExchange } = await import('../api/oauth.js');
  const client = await ctx.client({ auth: false, resolve: { allowNewProfile: true } });
  const t = await jwtExchange(client, token.trim(), opts.audience);
  await save(ctx, client, t, 'jwt', opts);
}

async function pat(ctx: Context, opts: OptionsOf<typeof patDeclaration>): Promise<void> {
  const settings = ctx.settings({ allowNewProfile: true });
  const { usableToken } = await import('../auth/credentials.js');
  const { requireUrl } = await import('../auth/settings.js');
  const kept = ctx.snapshot().credentials.tokens[settings.profileName.value];
  // A stored PAT goes only to the service and token endpoint it was stored for (docs/cli-contract.md "Identity").
  const stored = kept && usableToken(ctx.snapshot(), settings, requireUrl(settings));
  const storedPat = stored?.pat ?? (stored?.obtainedVia === 'pat' ? stored.token : undefined);
  const subject = opts.subjectTokenStdin ? (await readStdin(ctx.streams.stdin)).trim() : storedPat;
  if (!subject && kept && !stored) {
    throw new AuthError(
      `profile "${settings.profileName.value}" is not logged in to this service URL and token endpoint`,
      {
        hint: 'pipe a PAT in with --subject-token-stdin, or store one there with `dlake login --token-stdin`',
      },
    );
  }
  if (!subject) {
    throw new UsageError(`profile "${settings.profileName.value}" has no stored PAT`, {
      hint: 'pipe one in with --subject-token-stdin, or store one with `dlake login --token-stdin`',
    });
  }
  await ctx.store.checkCanStore();
  const { patExchange } = await import('../api/oauth.js');
  const client = await ctx.client({ auth: false, resolve: { allowNewProfile: true } });
  const t = await patExchange(client, subject);
  // Keep the PAT beside the access token, so the access token can be renewed when it expires.
  const patExpiresAt = subject === storedPat ? (stored?.patExpiresAt ?? stored?.expiresAt) : undefined;
  await save(ctx, client, t, 'pat-exchange', opts, {
    pat: subject,
    ...(patExpiresAt ? { patExpiresAt } : {}),
  });
}

/**
 * Stores the new token with the identity it belongs to: `extra` carries the client id or PAT it was
 * obtained with, and the service is asked whose it is, so that `whoami`, `profile list` and hints name the
 * user of these credentials and not of an earlier login.
 */
async function save(
  ctx: Context,
  endpoints: { baseUrl: string; authUrl: string },
  t: OAuthToken,
  via: StoredToken['obtainedVia'],
  opts: { print?: boolean },
  extra: Partial<StoredToken> = {},
): Promise<void> {
  const { rootOf, storeToken, tokenRecord } = await import('../auth/credentials.js');
  const settings = ctx.settings({ allowNewProfile: true });
  const name = settings.profileName.value;
  const username = await askWho(ctx, t.access_token);
  // An exchange, like a login, points the profile at the URL, edition and project in force (src/auth/place.ts).
  const stored = await storeToken(
    ctx.store,
    name,
    endpoints,
    { ...tokenRecord(t, via), ...extra, ...(username ? { username } : {}) },
    { authMethod: via },
    rootOf(settings),
    { relocate: true },
  );
  const { describeMove } = await import('../auth/place.js');
  const move = describeMove(settings.profile, stored.config.profiles[name]!);
  const moved = move && `profile "${name}" ${move}`;
  const who = username ?? (extra.clientId ? `client ${extra.clientId}` : undefined);
  ctx.ui.notice(
    `Stored an access token${who ? ` for ${who}` : ''} in profile "${name}", valid for ${Math.round(t.expires_in / 60)} min (scope: ${t.scope ?? 'n/a'})${moved ? `; ${moved}` : ''}.`,
  );
  if (opts.print) writeUnredacted(ctx.streams.stdout, `${t.access_token}\n`);
}

/** The user the service says an access token belongs to; undefined if it will not say. */
async function askWho(ctx: Context, accessToken: string): Promise<string | undefined> {
  const { whoAmI } = await import('../api/identity.js');
  const client = await ctx.client({
    auth: { header: async () => `Bearer ${accessToken}` },
    resolve: { allowNewProfile: true },
  });
  try {
    return (await whoAmI(client)).userName;
  } catch (err) {
    // The token was issued: storing it matters more than its owner's name, which whoami --check can ask later.
    if (err instanceof InterruptedError) throw err;
    ctx.ui.warn(`could not ask the service whose token this is: ${(err as Error).message}`);
    return undefined;
  }
}

function readTokenFile(file: string): string {
  return readTextFile(file);
}

async function promptSecret(ctx: Context, question: string, stdinFlag: string): Promise<string> {
  if (!ctx.ui.interactive) {
    throw new UsageError('no client secret', {
      hint: `set DLAKE_CLIENT_SECRET or pipe it in with ${stdinFlag}`,
    });
  }
  return readHidden(ctx.streams, question);
}
