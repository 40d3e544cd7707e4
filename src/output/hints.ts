// What to do next after an error, in the command line's words. The API layer says what happened in the
// service's terms and, where a next step exists, which one (an `Advice`); this module words it as the `hint:`
// line, naming dlake commands and options, which src/api must not know (docs/architecture.md).
import type { Advice, DlakeError, EntityList, HostedGap } from '../errors.js';
import type { GlobalOptions } from '../global-options.js';
import { formatPath } from '../util/catalog-ref.js';
import { tryNormalizeServiceUrl } from '../util/url.js';
import type { Theme } from './color.js';
import type { Streams } from './ui.js';
import { Ui } from './ui.js';

/** The global options a hint repeats: the login command names the profile and URL the failed command used. */
type HintOptions = Pick<GlobalOptions, 'profile' | 'url' | 'edition' | 'projectId'>;

/**
 * The `hint:` line of `err`: its words, or its Advice worded. `opts`: the global options of the command that
 * failed, so that the login command it names (`dlake login -p prod --url https://lake.example.com`) logs in
 * where that command went.
 */
export function hintFor(err: DlakeError, opts: HintOptions = {}): string | undefined {
  if (err.hint === undefined || typeof err.hint === 'string') return err.hint;
  return adviceText(err.hint, loginCommand(opts));
}

/** `dlake login` with the --profile and --url given on the command line. */
function loginCommand(opts: HintOptions): string {
  let words = 'dlake login';
  if (opts.profile) words += ` -p ${opts.profile}`;
  if (opts.url) words += ` --url ${tryNormalizeServiceUrl(opts.url)}`;
  // The edition and project the command ran with: a login without them would go to another root.
  if (opts.edition) words += ` --edition ${opts.edition}`;
  if (opts.projectId) words += ` --project-id ${opts.projectId}`;
  return words;
}

/** Where a failure is said and how loudly. */
interface FailureOutput {
  streams: Streams;
  theme: Theme;
  /** -v or --debug: long texts whole, and the service's moreInfo. */
  verbose: boolean;
  opts?: HintOptions;
  /** Instead of `error:` (the SQL shell's `cancelled:`). */
  label?: string;
}

/**
 * A failure said as every failure is, whether it ends the command (src/runtime.ts) or not (a script with
 * --continue-on-error, the SQL shell): the `error:` line, its details, the service's moreInfo with -v, the hint.
 */
export function sayFailure(err: DlakeError, out: FailureOutput): void {
  new Ui(out.streams, out.theme, false, out.verbose).error(err.message, {
    details: err.details,
    moreInfo: out.verbose ? err.moreInfo : undefined,
    hint: hintFor(err, out.opts),
    label: out.label,
  });
}

function adviceText(a: Advice, login: string): string | undefined {
  switch (a.kind) {
    case 'log-in-again':
      return `log in again with \`${login}\` (or check DLAKE_TOKEN / DLAKE_CLIENT_ID)`;
    case 'wrong-client-secret':
      return 'the client id or its secret is wrong: check the secret given (or DLAKE_CLIENT_ID and DLAKE_CLIENT_SECRET)';
    case 'no-external-token-provider':
      return 'this service trusts no external identity provider: JWT exchange is not set up here; ask its administrator, or log in with a password, a PAT or client credentials';
    case 'jwt-expired':
      return 'the JWT has expired: get a fresh one from your identity provider and exchange it again';
    case 'jwt-not-accepted':
      return 'the JWT was not accepted: check that it comes from the identity provider the service trusts (and --audience for a service user)';
    case 'pat-refused':
      return `the personal access token is wrong or expired: create a new one and store it with \`${login} --token-stdin\``;
    case 'not-the-service':
      return 'check --url: it must point at the service itself, not a proxy or login page';
    case 'untrusted-certificate':
      return 'trust the server certificate with --ca-file FILE (or DLAKE_CA_FILE); --insecure skips verification';
    case 'certificate-name-mismatch':
      return 'use the host name the certificate names in --url (a --ca-file cannot fix a name that does not match)';
    case 'not-tls':
      return 'use http:// in --url, or the port where the service speaks https';
    case 'ca-file-without-certificate':
      return 'give a file with one or more "-----BEGIN CERTIFICATE-----" blocks (--ca-file or DLAKE_CA_FILE)';
    case 'unreachable':
      return 'check --url (or DLAKE_URL) and that the service is running';
    case 'timed-out':
      return 'a slow service may need a longer per-request timeout: --timeout (or DLAKE_TIMEOUT)';
    case 'job-ended':
      return `see why with \`dlake job get ${a.id}\``;
    case 'job-not-ended':
      return `wait for it with \`dlake job wait ${a.id}\` (\`dlake job export\` waits by itself)`;
    case 'job-still-running':
      return `wait again with \`dlake job wait ${a.id}\`, or stop it with \`dlake job cancel ${a.id}\``;
    case 'stale-user-version':
      return `its current version is "${a.currentTag}": check the user (dlake user get ${a.id}) and retry with --version=${a.currentTag}`;
    case 'stale-queue-tag':
      return `its current tag is "${a.currentTag}": check it (dlake queue get ${a.id}) and run the update again`;
    case 'entity-example':
      return 'see the entity of an existing item with: dlake catalog get REF -o json';
    case 'pat-lifetime':
      return `give a lifetime of ${a.max} or less, e.g. --expires 90d`;
    case 'list-roles':
      return 'list the roles with: dlake role list';
    case 'stale-ruleset-tag':
      return `its current tag is "${a.currentTag}": check the rules (dlake queue rules), then set "tag": "${a.currentTag}" in the file and retry`;
    case 'rules-place-in-queue':
      return a.rules.length
        ? `change or delete these rules first (dlake queue rules --file): ${a.rules.map((n) => `"${n}"`).join(', ')}`
        : 'change or delete the rules that place jobs in it first (dlake queue rules --file)';
    case 'stale-reflection-tag':
      return `its current tag is "${a.currentTag}": check it (dlake reflection get ${a.id}) and run the update again`;
    case 'list-reflections':
      return 'reflection ids are UUIDs: see `dlake reflection list`';
    case 'reflection-refresh-pending':
      return `check it later with \`dlake reflection get ${a.id}\``;
    case 'source-types':
      return a.type
        ? `see the fields of ${a.type} with: dlake source types ${a.type}`
        : 'see the fields of each type with: dlake source types';
    case 'list-sources':
      return 'list the sources with: dlake source list';
    case 'list-entities':
      return listHint(a.list, a.parent);
    case 'not-on-hosted':
      return HOSTED_INSTEAD[a.gap];
    case 'hosted-only':
      return 'pass --edition cloud --project-id UUID (or log in to a hosted project)';
    case 'needs-project':
      return 'pass --project-id UUID, set DLAKE_PROJECT_ID, or store one with `dlake login --project-id UUID`';
    case 'project-id':
      return "copy it from the project's settings, or list them with `dlake project list`";
  }
}

/** What to use on the hosted edition instead of what it lacks (none where nothing takes its place). */
const HOSTED_INSTEAD: Record<HostedGap, string> = {
  queues: 'use `dlake engine`',
  'queue-rules': 'use `dlake engine rules`',
  'password-login': 'log in with a PAT: `dlake login --token-stdin`',
};

/** Where to look for what is there instead: the parent's listing, for the catalog. */
function listHint(list: EntityList, parent: readonly string[] = []): string {
  if (list !== 'catalog')
    return `list the ${list === 'queue' ? 'queues' : `${list}s`} with: dlake ${list} list`;
  if (parent.length === 0) return 'list the top level with: dlake catalog ls';
  const where = formatPath(parent);
  return `see what ${where} holds with: dlake catalog ls ${shellWord(where)}`;
}

/** A word as a shell reads it: quoted only when it needs to be. */
function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
