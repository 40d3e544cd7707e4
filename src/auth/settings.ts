// Resolves every setting in force from flags, environment, profile and defaults (docs/cli-contract.md "Global
// options, environment and precedence"): flag > environment > profile > default, except that an explicit
// --profile flag makes that profile's stored URL and credentials win over DLAKE_URL and DLAKE_TOKEN.
import { defaultEdition, type Edition, parseEdition, parseProjectId } from '../api/roots.js';
import { PROFILE_NAME, PROFILE_NAME_HINT, type Profile } from '../config/schema.js';
import type { StoreSnapshot } from '../config/store.js';
import { UsageError } from '../errors.js';
import type { GlobalOptions } from '../global-options.js';
import { normalizeServiceUrl, tryNormalizeServiceUrl } from '../util/url.js';

type SettingSource = 'flag' | 'environment' | 'profile' | 'default';

export interface Setting<T> {
  value: T;
  source: SettingSource;
  /** For `environment`: the variable's name. */
  name?: string;
}

/** The global options a setting can come from (src/global-options.ts). */
export type GlobalFlags = Pick<
  GlobalOptions,
  'profile' | 'url' | 'authUrl' | 'timeout' | 'caFile' | 'output' | 'edition' | 'projectId'
>;

export interface ResolvedSettings {
  profileName: Setting<string>;
  /** The stored profile, if it exists. */
  profile?: Profile;
  url?: Setting<string>;
  authUrl?: Setting<string>;
  timeout: Setting<string>;
  caFile?: Setting<string>;
  output: Setting<string>;
  /** `software` or `cloud` (docs/api-facts.md §13): flag, DLAKE_EDITION, profile, else implied by the URL. */
  edition: Setting<Edition>;
  /** The hosted edition's project: flag, DLAKE_PROJECT_ID, profile. */
  projectId?: Setting<string>;
  /** DLAKE_TOKEN, when it is in force. */
  envToken?: string;
  envClientCredentials?: { clientId: string; clientSecret: string };
  /** DLAKE_CLIENT_ID, with or without a secret: a cached token of another client is not used. */
  envClientId?: string;
  /** Environment values overridden by an explicit --profile (the notice names them). */
  ignoredEnv: string[];
}

export interface ResolveOptions {
  /**
   * Commands that create the profile or point it elsewhere (`login`, `token exchange`) accept a name that does
   * not exist yet, and a URL or edition given for them replaces what the profile stores for its old place
   * (docs/cli-contract.md "Identity").
   */
  allowNewProfile?: boolean;
}

export function resolveSettings(
  flags: GlobalFlags,
  env: NodeJS.ProcessEnv,
  store: StoreSnapshot,
  opts: ResolveOptions = {},
): ResolvedSettings {
  const profileName: Setting<string> = flags.profile
    ? { value: flags.profile, source: 'flag' }
    : env.DLAKE_PROFILE
      ? { value: env.DLAKE_PROFILE, source: 'environment', name: 'DLAKE_PROFILE' }
      : store.config.currentProfile
        ? { value: store.config.currentProfile, source: 'profile' }
        : { value: 'default', source: 'default' };

  const profile = Object.hasOwn(store.config.profiles, profileName.value)
    ? store.config.profiles[profileName.value]
    : undefined;
  if (!profile && opts.allowNewProfile && !PROFILE_NAME.test(profileName.value)) {
    // A profile that `login` or `token exchange` is about to create gets a name `profile set` would accept.
    throw new UsageError(`invalid profile name "${profileName.value}"`, { hint: PROFILE_NAME_HINT });
  }
  if (!profile && profileName.source !== 'default' && !opts.allowNewProfile) {
    const known = Object.keys(store.config.profiles);
    throw new UsageError(`unknown profile "${profileName.value}"`, {
      hint: known.length
        ? `known profiles: ${known.join(', ')}; create one with \`dlake profile set NAME --url URL\``
        : 'create one with `dlake profile set NAME --url URL` or `dlake login --url URL`',
    });
  }

  // The explicit-profile exception: a profile named on the command line means "use what it stores".
  const profileWins = profileName.source === 'flag';
  const hasStoredToken = Object.hasOwn(store.credentials.tokens, profileName.value);
  const ignoredEnv: string[] = [];

  const pick = (
    flag: string | undefined,
    envName: string,
    stored: string | undefined,
    preferStored: boolean,
  ) => {
    if (flag) return { value: flag, source: 'flag' } as Setting<string>;
    const fromEnv = env[envName];
    if (fromEnv && preferStored && stored) {
      // The notice is about values that lose; the same value in both places loses nothing.
      if (tryNormalizeServiceUrl(fromEnv) !== tryNormalizeServiceUrl(stored)) ignoredEnv.push(envName);
      return { value: stored, source: 'profile' } as Setting<string>;
    }
    if (fromEnv) return { value: fromEnv, source: 'environment', name: envName } as Setting<string>;
    if (stored) return { value: stored, source: 'profile' } as Setting<string>;
    return undefined;
  };

  const url = pick(flags.url, 'DLAKE_URL', profile?.url, profileWins);
  // A login to another URL or edition moves the profile there: the edition, project and token endpoint it
  // stores belong to its old place and are not carried to the new one (docs/cli-contract.md "Identity").
  const moved =
    opts.allowNewProfile &&
    profile?.url !== undefined &&
    url !== undefined &&
    url.source !== 'profile' &&
    tryNormalizeServiceUrl(url.value) !== tryNormalizeServiceUrl(profile.url);
  const place = moved ? undefined : profile;
  const authUrl = pick(flags.authUrl, 'DLAKE_AUTH_URL', place?.authUrl, profileWins);
  const timeout = pick(flags.timeout, 'DLAKE_TIMEOUT', undefined, false) ?? {
    value: '30s',
    source: 'default',
  };
  const caFile = pick(flags.caFile, 'DLAKE_CA_FILE', undefined, false);
  const output = pick(flags.output, 'DLAKE_OUTPUT', profile?.output, false) ?? {
    value: 'table',
    source: 'default',
  };

  const editionSet = pick(flags.edition, 'DLAKE_EDITION', place?.edition, profileWins);
  const editionGiven = editionSet && parseEdition(editionSet.value, describe(editionSet, '--edition'));
  // A login to the other edition leaves the profile's project behind with its old edition.
  const keepsProject =
    !opts.allowNewProfile ||
    editionSet?.source === 'profile' ||
    editionGiven === (place?.edition ?? 'software');
  const projectSet = pick(
    flags.projectId,
    'DLAKE_PROJECT_ID',
    keepsProject ? place?.projectId : undefined,
    profileWins,
  );
  const projectId = projectSet && {
    ...projectSet,
    value: parseProjectId(projectSet.value, describe(projectSet, '--project-id')),
  };
  const edition = editionOf(editionSet, editionGiven, projectId, url?.value);

  let envToken = env.DLAKE_TOKEN || undefined;
  if (envToken && profileWins && hasStoredToken) {
    if (store.credentials.tokens[profileName.value]?.token !== envToken) ignoredEnv.push('DLAKE_TOKEN');
    envToken = undefined;
  }
  const envClientCredentials =
    env.DLAKE_CLIENT_ID && env.DLAKE_CLIENT_SECRET
      ? { clientId: env.DLAKE_CLIENT_ID, clientSecret: env.DLAKE_CLIENT_SECRET }
      : undefined;

  return {
    profileName,
    profile,
    url,
    authUrl,
    timeout,
    caFile,
    output,
    edition,
    projectId,
    envToken,
    envClientCredentials,
    envClientId: env.DLAKE_CLIENT_ID || undefined,
    ignoredEnv,
  };
}

/**
 * The edition in force: the one given or stored; else the one the URL's host implies; else the hosted edition
 * when a project is given (only it has projects: docs/api-facts.md §13.1), as on a private endpoint or proxy. `--project-id` with the self-hosted
 * edition named is refused rather than ignored.
 */
function editionOf(
  set: Setting<string> | undefined,
  given: Edition | undefined,
  project: Setting<string> | undefined,
  url: string | undefined,
): Setting<Edition> {
  if (set && given) {
    if (given === 'software' && project?.source === 'flag') {
      throw new UsageError(
        `--project-id names a project of the hosted edition, but the edition is software (${describe(set, '--edition')})`,
        { hint: 'use --edition cloud with --project-id, or leave --project-id out for a self-hosted server' },
      );
    }
    return { ...set, value: given };
  }
  const implied = defaultEdition(url);
  if (implied === 'software' && project && project.source !== 'profile') {
    return { value: 'cloud', source: project.source, ...(project.name ? { name: project.name } : {}) };
  }
  return { value: implied, source: 'default' };
}

/** Where a setting came from, for an error about its value: `--edition`, `DLAKE_EDITION`, `the profile`. */
function describe(setting: Setting<string>, flag: string): string {
  return setting.source === 'flag'
    ? flag
    : setting.source === 'environment'
      ? (setting.name ?? flag)
      : 'the profile';
}

/** Where a setting came from, in the words of its error messages: `--url`, `DLAKE_URL`, `profile "prod"`. */
function origin(s: ResolvedSettings, setting: Setting<string>, flag: string): string {
  if (setting.source === 'flag') return flag;
  if (setting.source === 'environment') return setting.name ?? flag;
  return `the ${flag.slice(2)} of profile "${s.profileName.value}"`;
}

/** The base URL in its normalised form, or the usage error that says how to set one (or that it is wrong). */
export function requireUrl(s: ResolvedSettings): string {
  if (s.url) return normalizeServiceUrl(s.url.value, origin(s, s.url, '--url'));
  throw new UsageError('no service URL is set', {
    hint: 'pass --url URL, set DLAKE_URL, or store one with `dlake profile set NAME --url URL`',
  });
}

/** The token endpoint's base URL, normalised, when one is set apart from the base URL. */
export function authUrlOf(s: ResolvedSettings): string | undefined {
  return s.authUrl && normalizeServiceUrl(s.authUrl.value, origin(s, s.authUrl, '--auth-url'));
}

/**
 * Refuses a token that no HTTP header can carry (a control character, a space, a non-ASCII letter), before
 * it is sent: a usage error naming where it came from, never the token itself.
 */
export function checkTokenText(token: string, what: string): void {
  if (/[^\x21-\x7e]/.test(token)) {
    throw new UsageError(
      `${what} holds a control character, a space or a non-ASCII character: a token is printable ASCII`,
      { hint: 'copy the token again without line breaks or other characters around it' },
    );
  }
}

/** The proxy URL schemes undici's proxy agent speaks. */
const PROXY_SCHEMES = new Set(['http:', 'https:', 'socks:', 'socks5:']);

/**
 * Checks the proxy variables the HTTP client will read (docs/cli-contract.md "Global options, environment and
 * precedence") before anything is sent. The value is not repeated: a proxy URL may carry a password.
 */
export function checkProxyVariables(env: NodeJS.ProcessEnv): void {
  for (const [upper, lower] of [
    ['HTTP_PROXY', 'http_proxy'],
    ['HTTPS_PROXY', 'https_proxy'],
  ] as const) {
    // The client reads the upper-case name first, even when it is empty (src/api/http.ts).
    const name = env[upper] !== undefined ? upper : lower;
    const value = env[name];
    if (!value) continue;
    let url: URL | undefined;
    try {
      url = new URL(value.trim());
    } catch {
      url = undefined;
    }
    if (!url || !PROXY_SCHEMES.has(url.protocol) || !url.hostname) {
      throw new UsageError(`${name} is not a proxy URL`, {
        hint: `set it to a URL such as http://proxy.example.com:3128, or unset it (unset ${name})`,
      });
    }
  }
}
