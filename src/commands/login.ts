// `dlake login` (password or PAT) and `dlake logout`.
import { type Command, Option } from '@commander-js/extra-typings';
import { expiryText } from '../auth/expiry.js';
import { checkTokenText, requireUrl } from '../auth/settings.js';
import type { StoreSnapshot } from '../config/store.js';
import type { Context } from '../context.js';
import { AuthError, NotFoundError, UsageError } from '../errors.js';
import { readHidden, readLine, readStdin } from '../output/prompt.js';
import {
  credentialStoreOption,
  examples,
  refuseSecretFlag,
  sayWhereSecretsWent,
  useCredentialStore,
} from './common.js';
import { defineCommand, type OptionsOf } from './define.js';

const loginDeclaration = (cmd: Command) =>
  cmd
    .description('Log in: store a session token (password login) or a personal access token for the profile')
    .option('-u, --username <name>', "user name (default: the profile's, else prompted)")
    .option('--password-stdin', 'read the password from standard input')
    .addOption(
      new Option('--token-stdin', 'read a personal access token (PAT) from standard input instead').conflicts(
        'passwordStdin',
      ),
    )
    .addOption(refuseSecretFlag('--password <password>', '--password-stdin'))
    .addOption(refuseSecretFlag('--token <token>', '--token-stdin'))
    .addOption(credentialStoreOption())
    .addHelpText(
      'after',
      examples(
        'dlake login --url https://lake.example.com -u alice          # prompts for the password',
        'echo "$PASSWORD" | dlake login -u ci-bot --password-stdin',
        'dlake login -p prod --url https://lake.example.com --token-stdin < pat.txt',
        'dlake login --url https://lake.example.com --flight-url grpc+tls://lake.example.com:32010 -u alice',
        'dlake login --url https://api.dremio.cloud --project-id PROJECT_UUID --token-stdin < pat.txt  # hosted edition',
        'dlake login --url https://proxy.example.com --project-id PROJECT_UUID --token-stdin < pat.txt  # hosted, elsewhere',
      ),
    );

export const login = defineCommand(loginDeclaration, logIn);

export const logout = defineCommand(
  (cmd: Command) =>
    cmd
      .description("Remove the profile's stored token (and end the session on the service)")
      .addHelpText('after', examples('dlake logout', 'dlake logout -p prod')),
  logOut,
);

async function logIn(ctx: Context, opts: OptionsOf<typeof loginDeclaration>): Promise<void> {
  const settings = ctx.settings({ allowNewProfile: true });
  const name = settings.profileName.value;
  // Say what is missing before asking for a secret that could not be used anyway.
  requireUrl(settings);
  ctx.checkSettings();
  useCredentialStore(ctx, opts.credentialStore);
  // Before any prompt or request: a session the service creates must not be lost for want of a place to keep it.
  await ctx.store.checkCanStore();
  const [{ rootOf, storeToken }, { describeMove }] = await Promise.all([
    import('../auth/credentials.js'),
    import('../auth/place.js'),
  ]);
  const root = rootOf(settings);
  if (root.edition === 'cloud' && !opts.tokenStdin) {
    // Before any prompt: the hosted edition has no password login (docs/api-facts.md §13.2). The profile
    // points at the hosted edition only until a login names another place: the hint says how.
    const edition = settings.edition;
    const from = edition.source === 'profile' ? `profile "${name}"` : '--edition cloud';
    throw new UsageError(
      `the hosted edition (${from}) takes a personal access token or OAuth, not a password`,
      {
        hint: `pipe a PAT into \`dlake login${name === 'default' ? '' : ` -p ${name}`} --token-stdin\`; for a self-hosted server, \`dlake login --url URL --edition software -u NAME\``,
      },
    );
  }
  const before = settings.profile;
  /** `profile "NAME" now points at NEW; was OLD` when the login pointed the profile elsewhere. */
  const moved = (after: StoreSnapshot) => {
    const move = describeMove(before, after.config.profiles[name]!);
    return move && `profile "${name}" ${move}`;
  };
  // `--flight-url` is stored in the profile; DLAKE_FLIGHT_URL is only used (export/flight/endpoint.ts). A login
  // again to the profile's own service (after a logout, an expiry) does the handshake with the Flight endpoint
  // the profile keeps, so that its exports go on over Flight; a login elsewhere drops it (src/auth/place.ts).
  const { parseFlightUrl } = await import('../export/flight/endpoint.js');
  const { sameServiceUrl } = await import('../util/url.js');
  const url = settings.url?.value;
  const keptFlightUrl =
    before?.flightUrl && before.url && url && sameServiceUrl(before.url, url) ? before.flightUrl : undefined;
  const flightUrl = ctx.opts.flightUrl ?? ctx.env.DLAKE_FLIGHT_URL ?? keptFlightUrl;
  const flightEndpoint = flightUrl
    ? parseFlightUrl(
        flightUrl,
        ctx.opts.flightUrl
          ? '--flight-url'
          : ctx.env.DLAKE_FLIGHT_URL
            ? 'DLAKE_FLIGHT_URL'
            : "the profile's flight-url",
      )
    : undefined;
  const flightPatch = ctx.opts.flightUrl && flightEndpoint ? { flightUrl: flightEndpoint.url } : {};
  if (opts.tokenStdin) {
    const pat = (await readStdin(ctx.streams.stdin)).trim();
    if (!pat) throw new UsageError('no token on standard input');
    checkTokenText(pat, 'the token on standard input');
    // One authenticated call proves the token before it is stored, and tells whose it is.
    const client = await ctx.client({
      auth: { header: async () => `Bearer ${pat}` },
      resolve: { allowNewProfile: true },
    });
    const { whoAmI } = await import('../api/identity.js');
    // On the hosted edition this is a call below the project: it proves the project as well as the token.
    const { userName } = await whoAmI(client).catch((e: unknown) => {
      throw root.edition === 'cloud'
        ? unknownProject(e, root.projectId, client.baseUrl)
        : notSelfHosted(e, client.baseUrl);
    });
    const record = {
      kind: 'bearer',
      token: pat,
      obtainedVia: 'pat',
      ...(userName ? { username: userName } : {}),
    } as const;
    const stored = await storeToken(
      ctx.store,
      name,
      client,
      record,
      { authMethod: 'pat', ...flightPatch },
      root,
      { relocate: true },
    );
    ctx.refreshSnapshot(stored);
    const note = moved(stored);
    const where = root.edition === 'cloud' ? `${client.baseUrl}, project ${root.projectId}` : client.baseUrl;
    ctx.ui.notice(
      `Verified and stored the personal access token${userName ? ` of ${userName}` : ''} for profile "${name}" (${where})${note ? `; ${note}` : ''}.`,
    );
    sayWhereSecretsWent(ctx, stored);
    return;
  }
  const username = opts.username ?? settings.profile?.username ?? (await promptUsername(ctx));
  const password = opts.passwordStdin
    ? await readStdin(ctx.streams.stdin)
    : await promptPassword(ctx, username);
  if (!password) throw new UsageError('the password is empty');
  const client = await ctx.client({ auth: false, resolve: { allowNewProfile: true } });
  const { legacyLogin } = await import('../api/login.js');
  const res = await legacyLogin(client, username, password).catch((e: unknown) => {
    // "Log in again" is no advice to someone logging in: the name or the password is wrong.
    if (e instanceof AuthError && !/permission denied/.test(e.message)) {
      const said = e.message !== 'the service refused the credentials (401)';
      throw new AuthError(said ? e.message : `the service refused the user name or password of ${username}`, {
        hint: `check the user name (${username}) and the password; an account can also be locked or disabled`,
        moreInfo: e.moreInfo,
        details: e.details,
      });
    }
    throw e;
  });
  const expiresAt = expiryText(res.expires);
  // The Flight handshake, once, with the same user and password: its bearer token goes beside the session.
  let flight: { token: string; url: string } | undefined;
  if (flightEndpoint) {
    const { flightHandshake } = await import('../export/flight/handshake.js');
    const got = await flightHandshake(ctx, flightEndpoint, username, password);
    if ('token' in got) flight = { token: got.token, url: flightEndpoint.url };
    else
      ctx.ui.warn(
        `the Flight handshake with ${flightEndpoint.url} failed (${got.failure}): exports use REST`,
      );
  }
  const stored = await storeToken(
    ctx.store,
    name,
    client,
    {
      kind: 'session',
      token: res.token,
      expiresAt,
      obtainedVia: 'password',
      username: res.userName,
      ...(flight ? { flight } : {}),
    },
    { authMethod: 'password', username: res.userName, ...flightPatch },
    root,
    { relocate: true },
  );
  ctx.refreshSnapshot(stored);
  const note = moved(stored);
  ctx.ui.notice(
    `Logged in to ${client.baseUrl} as ${res.userName} (${note ?? `profile "${name}"`}); the session lasts until ${expiresAt}.`,
  );
  sayWhereSecretsWent(ctx, stored);
}

/** A 404 below the project root: the project does not exist (or the token's user cannot see it). */
function unknownProject(e: unknown, projectId: string | undefined, url: string): unknown {
  if (!(e instanceof NotFoundError)) return e;
  return new NotFoundError(`project ${projectId} not found on ${url}`, {
    moreInfo: e.message,
    hint: 'check --project-id (list the projects with `dlake project list`); nothing was stored',
  });
}

/**
 * A 404 on the self-hosted edition's proof request: the URL may serve the hosted edition, whose API has another
 * root (docs/api-facts.md §13.1), behind a host dlake does not recognise as hosted.
 */
function notSelfHosted(e: unknown, url: string): unknown {
  if (!(e instanceof NotFoundError)) return e;
  return new NotFoundError(`${url} has no self-hosted REST API (${e.message}); nothing was stored`, {
    moreInfo: e.moreInfo,
    hint: 'if it serves the hosted edition, add `--edition cloud --project-id PROJECT_UUID` (a project id alone implies it)',
  });
}

async function promptUsername(ctx: Context): Promise<string> {
  if (!ctx.ui.interactive) throw new UsageError('no user name', { hint: 'pass -u NAME' });
  const name = (await readLine(ctx.streams, 'User name: '))?.trim();
  if (!name) throw new UsageError('no user name');
  return name;
}

function promptPassword(ctx: Context, username: string): Promise<string> {
  if (!ctx.ui.interactive) {
    throw new UsageError('no password: standard input is not a terminal', {
      hint: 'pipe it in with --password-stdin (passwords are never taken from the command line)',
    });
  }
  return readHidden(ctx.streams, `Password for ${username}: `);
}

async function logOut(ctx: Context): Promise<void> {
  const settings = ctx.settings();
  const name = settings.profileName.value;
  const stored = ctx.snapshot().credentials.tokens[name];
  if (!stored) {
    ctx.ui.notice(`Profile "${name}" has no stored token.`);
    return;
  }
  // The local token must be removable before the session on the service is ended.
  await ctx.store.checkCanStore();
  if (stored.kind === 'session' && stored.url) {
    // End the session on the service too; the local token goes whatever the service says.
    try {
      const [client, { endSession }] = await Promise.all([ctx.client(), import('../api/login.js')]);
      await endSession(client);
    } catch (e) {
      ctx.ui.warn(`could not end the session on the service: ${(e as Error).message}`);
    }
  }
  const after = await ctx.store.update((s) => {
    delete s.credentials.tokens[name];
  });
  ctx.ui.notice(`Removed the stored token of profile "${name}".`);
  if (after.secretsWarning) ctx.ui.warn(after.secretsWarning);
}
