// `dlake doctor`: the steps between a user and the service, each checked on its own and said in one line
// (docs/cli-contract.md "Doctor"): the config folder, the profile, the name lookup, the TCP connection, TLS,
// what answers at the API root, the clock, the login, the service's version, PATs, the Flight endpoint, the
// hosted edition's rate limits and where credentials are kept. Every check is bounded by its own short
// timeout and the whole run by DOCTOR_TOTAL_MS, whatever the network does; a step that cannot be reached
// because an earlier one failed is skipped, saying which. Nothing here prints a secret.
import { accessSync, constants as fsConstants, lstatSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiClient } from '../api/http.js';
import { requireUrl } from '../auth/settings.js';
import type { Context } from '../context.js';
import { AuthError, DlakeError } from '../errors.js';
import { readCaFile } from '../util/files.js';
import { redactUrl } from '../util/redact.js';
import { formatDuration } from '../util/units.js';
import { connectTcp, handshakeTls, resolveHost } from './probes.js';
import type { CheckResult, DoctorReport } from './report.js';

/** The bound of one check's network step. */
const CHECK_MS = 5_000;
/** The bound of the whole run (docs/cli-contract.md "Doctor"). */
const DOCTOR_TOTAL_MS = 30_000;
/** A clock this far from the service's is said (HTTP dates are whole seconds). */
const SKEW_WARN_MS = 30_000;
/** …and this far fails: token lifetimes and signed tokens go wrong by as much. */
const SKEW_FAIL_MS = 5 * 60_000;
/** A certificate that expires sooner than this is said. */
const EXPIRY_WARN_MS = 14 * 24 * 3600_000;
/** How old an unrefreshed config lock is before another process takes it over (src/config/store.ts). */
const LOCK_STALE_MS = 10_000;

/** Where the service is reached: the URL's host and port, or the proxy's when one is in force. */
interface Route {
  url: URL;
  host: string;
  port: number;
  /** The proxy variable in force, and its URL, when requests go through a proxy. */
  proxy?: { variable: string; url: URL };
}

/** What the checks learn for the ones after them. */
interface Findings {
  route?: Route;
  /** The network path to the service works (DNS, TCP and TLS all passed). */
  reachable?: boolean;
  /** The API root answered as the service does. */
  serviceAnswers?: boolean;
  /** The credentials in force were accepted. */
  loggedIn?: boolean;
  userName?: string;
  /** The Date header of the API root's answer: the service's clock. */
  serviceDate?: string;
}

type Check = (ctx: Context, f: Findings, ms: number) => Promise<Omit<CheckResult, 'check'>>;

/**
 * The checks, in the order a request meets them. The credential store check is where the operating system's
 * store is examined once dlake uses it; until then it says which file holds the credentials.
 */
const CHECKS: [name: string, check: Check][] = [
  ['config', checkConfig],
  ['profile', checkProfile],
  ['dns', checkDns],
  ['tcp', checkTcp],
  ['tls', checkTls],
  ['api', checkApiRoot],
  ['clock', checkClock],
  ['login', checkLogin],
  ['service', checkService],
  ['pats', checkPats],
  ['flight', checkFlight],
  ['rate-limits', checkRateLimits],
  ['credential-store', checkCredentialStore],
];

export async function runDoctor(ctx: Context, totalMs = DOCTOR_TOTAL_MS): Promise<DoctorReport> {
  const started = performance.now();
  let checkMs = CHECK_MS;
  try {
    checkMs = Math.min(CHECK_MS, ctx.timeoutMs());
  } catch {
    // A --timeout that does not read: the profile check says so.
  }
  const findings: Findings = {};
  const checks: CheckResult[] = [];
  for (const [name, check] of CHECKS) {
    const left = totalMs - (performance.now() - started);
    if (left <= 0) {
      checks.push({
        check: name,
        status: 'skip',
        finding: `not run: doctor's ${totalMs / 1000}s were used up`,
      });
      continue;
    }
    try {
      checks.push({ check: name, ...(await check(ctx, findings, Math.min(checkMs, left))) });
    } catch (e) {
      checks.push({ check: name, ...failureOf(ctx, e) });
    }
  }
  let profile = 'default';
  let url: string | undefined;
  let edition = 'software';
  try {
    const s = ctx.settings();
    profile = s.profileName.value;
    url = s.url ? redactUrl(s.url.value) : undefined;
    edition = s.edition.value;
  } catch {
    // Said by the profile check.
  }
  return { profile, url, edition, checks, ok: !checks.some((c) => c.status === 'fail') };
}

/** A check's failure from an error: its message, and its hint as the fix. */
function failureOf(ctx: Context, e: unknown): Omit<CheckResult, 'check'> {
  if (e instanceof DlakeError) return { status: 'fail', finding: e.message, fix: ctx.hint(e) };
  return { status: 'fail', finding: `unexpected failure: ${(e as Error)?.message ?? String(e)}` };
}

const skip = (why: string): Omit<CheckResult, 'check'> => ({
  status: 'skip',
  finding: `not checked: ${why}`,
});

function modeOf(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o777;
  } catch {
    return undefined;
  }
}

const octal = (mode: number) => `0${mode.toString(8)}`;

async function checkConfig(ctx: Context): Promise<Omit<CheckResult, 'check'>> {
  const dir = ctx.store.dir;
  // Read before the store is: reading it makes its files 0600 again.
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT')
      return { status: 'ok', finding: `${dir} does not exist yet: the first login creates it (mode 0700)` };
    return {
      status: 'fail',
      finding: `cannot read the config folder ${dir}: ${(e as Error).message}`,
      fix: 'set DLAKE_CONFIG_DIR to a folder of yours',
    };
  }
  if (!st.isDirectory())
    return {
      status: 'fail',
      finding: `${dir} is not a folder`,
      fix: 'remove it, or set DLAKE_CONFIG_DIR to a folder of yours',
    };
  const notes: string[] = [`folder ${octal(st.mode & 0o777)}`];
  const warnings: { finding: string; fix: string }[] = [];
  if (st.mode & 0o077)
    warnings.push({
      finding: `${dir} is mode ${octal(st.mode & 0o777)}: others may list it`,
      fix: `chmod 700 ${dir}`,
    });
  try {
    accessSync(dir, fsConstants.W_OK);
  } catch {
    warnings.push({
      finding: `${dir} cannot be written: commands that store something (login, profile set) fail`,
      fix: `chmod u+w ${dir}, or set DLAKE_CONFIG_DIR to a folder you can write`,
    });
  }
  for (const file of [ctx.store.configPath, ctx.store.credentialsPath]) {
    const mode = modeOf(file);
    const name = file.slice(dir.length + 1);
    if (mode === undefined) continue;
    notes.push(`${name} ${octal(mode)}`);
    if (mode & 0o077)
      warnings.push({
        finding: `${name} is mode ${octal(mode)}: others may read it (dlake makes it 0600 again on its next read)`,
        fix: `chmod 600 ${file}`,
      });
  }
  const lock = join(dir, '.lock');
  try {
    const l = lstatSync(lock);
    const age = Date.now() - l.mtimeMs;
    if (!l.isDirectory() || readdirSync(lock).length > 0)
      return {
        status: 'fail',
        finding: `${lock} is not a lock dlake made: every write is refused`,
        fix: `rm -r '${lock}'`,
      };
    if (age > LOCK_STALE_MS)
      warnings.push({
        finding: `a lock left by a dlake that stopped (${formatDuration(age, { largest: 1 })} old): the next write takes it over`,
        fix: `rm -r '${lock}' if no dlake is running`,
      });
    else notes.push('a write is under way in another dlake (lock held)');
  } catch {
    notes.push('no lock held');
  }
  // Reading validates both files (a config.json that is not valid stops every command).
  const snapshot = ctx.snapshot();
  if (snapshot.credentialsProblem)
    warnings.push({
      finding: snapshot.credentialsProblem,
      fix: 'log in again: `dlake login` replaces the file',
    });
  if (warnings.length)
    return {
      status: 'warn',
      finding: warnings.map((w) => w.finding).join('; '),
      fix: warnings.map((w) => w.fix).join('; '),
    };
  return { status: 'ok', finding: `${dir}: ${notes.join(', ')}` };
}

async function checkProfile(ctx: Context, f: Findings): Promise<Omit<CheckResult, 'check'>> {
  const s = ctx.settings();
  ctx.checkSettings();
  const name = s.profileName.value;
  const from = (setting: { source: string; name?: string }) =>
    setting.name ? `${setting.source}, ${setting.name}` : setting.source;
  if (!s.url)
    return {
      status: 'fail',
      finding: `profile "${name}" has no URL, and DLAKE_URL is not set`,
      fix: 'dlake login --url URL (or set DLAKE_URL)',
    };
  const url = new URL(requireUrl(s));
  f.route = routeTo(url, ctx.env);
  const parts = [
    `"${name}" (${from(s.profileName)})`,
    `${redactUrl(url.toString()).replace(/\/$/, '')} (${from(s.url)})`,
    `${s.edition.value} edition (${from(s.edition)})`,
  ];
  if (s.edition.value === 'cloud') {
    if (!s.projectId)
      return {
        status: 'fail',
        finding: `${parts.join(', ')}: the hosted edition needs a project, and none is set`,
        fix: `dlake login -p ${name} --project-id UUID (or set DLAKE_PROJECT_ID)`,
      };
    parts.push(`project ${s.projectId.value}`);
  }
  if (f.route.proxy) parts.push(`through the proxy in ${f.route.proxy.variable}`);
  return { status: 'ok', finding: parts.join(', ') };
}

/** The proxy variables in force for `url` (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), as undici applies them. */
function routeTo(url: URL, env: NodeJS.ProcessEnv): Route {
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const direct: Route = { url, host: url.hostname, port };
  const variable = url.protocol === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY';
  const value = env[variable] ?? env[variable.toLowerCase()];
  if (!value) return direct;
  const noProxy = (env.NO_PROXY ?? env.no_proxy ?? '').split(/[\s,]+/).filter(Boolean);
  const host = url.hostname.toLowerCase();
  if (
    noProxy.some((entry) => {
      const e = entry
        .toLowerCase()
        .replace(/:\d+$/, '')
        .replace(/^\*?\./, '');
      return e === '*' || host === e || host.endsWith(`.${e}`);
    })
  )
    return direct;
  let proxy: URL;
  try {
    proxy = new URL(value);
  } catch {
    return direct;
  }
  return {
    url,
    host: proxy.hostname,
    port: Number(proxy.port) || (proxy.protocol === 'https:' ? 443 : 80),
    proxy: { variable, url: proxy },
  };
}

async function checkDns(_ctx: Context, f: Findings, ms: number): Promise<Omit<CheckResult, 'check'>> {
  const route = f.route;
  if (!route) return skip('no URL');
  const what = route.proxy ? `the proxy's host ${route.host}` : route.host;
  const r = await resolveHost(route.host, ms);
  if (r.ok) {
    const addresses = r.value.slice(0, 4).join(', ') + (r.value.length > 4 ? ', …' : '');
    return {
      status: 'ok',
      finding:
        r.value.length === 1 && r.value[0] === route.host.replace(/^\[|\]$/g, '')
          ? `${what} is an IP address: nothing to look up`
          : `${what} resolves to ${addresses}`,
    };
  }
  if (r.code === 'ENOTFOUND')
    return {
      status: 'fail',
      finding: `${what} does not resolve (ENOTFOUND): no such host name`,
      fix: route.proxy
        ? `check ${route.proxy.variable}`
        : 'check the host name in the URL (dlake profile set NAME --url URL), or the DNS or VPN this machine uses',
    };
  return {
    status: 'fail',
    finding: `${what} could not be looked up: ${r.message}`,
    fix: 'check the network connection, the DNS servers or the VPN of this machine',
  };
}

async function checkTcp(_ctx: Context, f: Findings, ms: number): Promise<Omit<CheckResult, 'check'>> {
  const route = f.route;
  if (!route) return skip('no URL');
  const target = `${route.host}:${route.port}${route.proxy ? ` (the proxy in ${route.proxy.variable})` : ''}`;
  const r = await connectTcp(route.host, route.port, ms);
  if (r.ok) {
    f.reachable = route.url.protocol === 'http:' || Boolean(route.proxy);
    return { status: 'ok', finding: `connected to ${target}` };
  }
  if (r.code === 'ECONNREFUSED')
    return {
      status: 'fail',
      finding: `connection refused by ${target}: nothing listens on that port`,
      fix: route.proxy
        ? `check ${route.proxy.variable}, or put the host in NO_PROXY`
        : 'check the port in the URL (the self-hosted service listens on 9047 unless set otherwise) and that the service is running',
    };
  if (r.code === 'ETIMEDOUT')
    return {
      status: 'fail',
      finding: `no answer from ${target} within ${ms / 1000}s: a firewall dropping the connection, or the wrong address`,
      fix: 'check the host and port, and that a firewall or security group lets this machine reach them',
    };
  return {
    status: 'fail',
    finding: `cannot connect to ${target}: ${r.message}`,
    fix: 'check the network route to the host (VPN, firewall)',
  };
}

/** The CAs a request trusts: the system's, plus the CA file in force. */
function trustedCas(ctx: Context): { ca?: string[]; caFile?: string } {
  const caFile = ctx.settings().caFile?.value;
  if (!caFile) return {};
  const { rootCertificates } = process.getBuiltinModule('node:tls');
  return { ca: [...rootCertificates, readCaFile(caFile)], caFile };
}

/** The TLS facts of an endpoint said as a check (the service's API, or the Flight endpoint). */
async function tlsCheck(
  ctx: Context,
  host: string,
  port: number,
  ms: number,
): Promise<Omit<CheckResult, 'check'> & { passed: boolean }> {
  const { ca, caFile } = trustedCas(ctx);
  const trusted = caFile ? `the system's CAs and ${caFile}` : "the system's CAs";
  const r = await handshakeTls(host, port, ca, ms);
  if (!r.ok)
    return {
      passed: false,
      status: 'fail',
      finding: `no TLS handshake with ${host}:${port}: ${r.message}`,
      fix: 'check that the port serves TLS (an http:// URL for a plain port, grpc:// for plain Flight)',
    };
  const t = r.value;
  const insecure = Boolean(ctx.opts.insecure);
  const who = `the certificate of ${t.subject} (issued by ${t.issuer})`;
  const problems: { finding: string; fix: string }[] = [];
  if (!t.authorized)
    problems.push({
      finding: `${who} is not trusted by ${trusted}: ${t.authorizationError ?? 'unverified'}`,
      fix: caFile
        ? `the CA file ${caFile} does not hold the CA that signed it: give the right one with --ca-file (or DLAKE_CA_FILE)`
        : "give the CA that signed it: --ca-file ca.pem or DLAKE_CA_FILE=ca.pem (added to the system's CAs)",
    });
  if (!t.namesHost)
    problems.push({
      finding: `${who} does not name ${host}`,
      fix: 'use the host name the certificate names in the URL',
    });
  const left = t.validTo.getTime() - Date.now();
  if (left <= 0)
    problems.push({
      finding: `${who} expired on ${t.validTo.toISOString()}`,
      fix: "the service's administrator must renew its certificate",
    });
  if (problems.length)
    return {
      passed: insecure,
      status: insecure ? 'warn' : 'fail',
      finding: `${problems.map((p) => p.finding).join('; ')}${insecure ? ' (--insecure skips the check)' : ''}`,
      fix: `${problems.map((p) => p.fix).join('; ')}${insecure ? ', then drop --insecure' : ''}`,
    };
  const facts = `${t.protocol}; ${who}, trusted by ${trusted}, valid until ${t.validTo.toISOString().slice(0, 10)}`;
  if (left < EXPIRY_WARN_MS)
    return {
      passed: true,
      status: 'warn',
      finding: `${facts}: it expires in ${formatDuration(left, { largest: 2 })}`,
      fix: "the service's administrator should renew its certificate",
    };
  if (insecure)
    return {
      passed: true,
      status: 'warn',
      finding: `${facts}; --insecure is given but not needed`,
      fix: 'drop --insecure',
    };
  return { passed: true, status: 'ok', finding: facts };
}

async function checkTls(ctx: Context, f: Findings, ms: number): Promise<Omit<CheckResult, 'check'>> {
  const route = f.route;
  if (!route) return skip('no URL');
  if (route.url.protocol === 'http:') return { status: 'skip', finding: 'not used: the URL is http://' };
  if (route.proxy)
    return skip(`requests go through the proxy in ${route.proxy.variable} (see the api check)`);
  const { passed, ...result } = await tlsCheck(ctx, route.host, route.port, ms);
  f.reachable = passed;
  return result;
}

/** An API client bounded to `ms` a request, never retried (a check says what happens on the first try). */
function boundedClient(ctx: Context, ms: number, auth: boolean): Promise<ApiClient> {
  return ctx.client({ auth: auth ? undefined : false, oneTry: { timeoutMs: ms } });
}

async function checkApiRoot(ctx: Context, f: Findings, ms: number): Promise<Omit<CheckResult, 'check'>> {
  if (!f.route) return skip('no URL');
  if (!f.reachable) return skip('the service cannot be reached (above)');
  const client = await boundedClient(ctx, ms, false);
  const { catalogRoot } = await import('../api/catalog.js');
  const at = client.urlFor({ at: catalogRoot() });
  const raw = await client.send({ method: 'GET', at: catalogRoot() });
  const date = raw.headers.date;
  f.serviceDate = typeof date === 'string' ? date : undefined;
  if (/html/i.test(raw.contentType) || /^\s*<(!doctype|html)/i.test(raw.text)) {
    const title = /<title[^>]*>([^<]{0,120})/i.exec(raw.text)?.[1]?.trim();
    return {
      status: 'fail',
      finding: `an HTML page answered GET ${at} (${raw.status}${title ? `, titled "${title}"` : ''}): a proxy, a sign-in portal or another web server, not the service's API`,
      fix: `check the URL: the service's own address and port (dlake profile set NAME --url URL)${f.route.proxy ? `, or put ${f.route.url.hostname} in NO_PROXY` : ''}`,
    };
  }
  if (raw.status === 401 || raw.status === 403) {
    f.serviceAnswers = true;
    return {
      status: 'ok',
      finding: `the service's API answers at ${at} (${raw.status} without credentials, as it should)`,
    };
  }
  if (raw.status >= 200 && raw.status < 300 && /json/i.test(raw.contentType)) {
    f.serviceAnswers = true;
    return { status: 'ok', finding: `the service's API answers at ${at}` };
  }
  if (raw.status === 404)
    return {
      status: 'fail',
      finding: `nothing at ${at} (404): not the service's API, or a path the URL lacks`,
      fix: 'check the URL (its path, e.g. a prefix a reverse proxy adds; the edition: --edition)',
    };
  return {
    status: 'fail',
    finding: `GET ${at} answered ${raw.status}${raw.text ? `: ${raw.text.slice(0, 160).replace(/\s+/g, ' ')}` : ''}`,
    fix:
      raw.status >= 500
        ? 'the service is failing: its administrator can tell why (its logs)'
        : 'check the URL',
  };
}

async function checkClock(_ctx: Context, f: Findings): Promise<Omit<CheckResult, 'check'>> {
  const date = f.serviceDate;
  if (!date) return skip('no answer with a Date header from the service');
  const server = Date.parse(date);
  if (Number.isNaN(server)) return skip(`the service's Date header is not a date: ${date.slice(0, 60)}`);
  // A Date header is whole seconds: its middle is the closest guess of the service's time.
  const skew = Math.round((Date.now() - server - 500) / 1000) * 1000;
  const size = formatDuration(Math.abs(skew), { largest: 2 });
  if (Math.abs(skew) <= SKEW_WARN_MS)
    return { status: 'ok', finding: `within ${SKEW_WARN_MS / 1000}s of the service's (its Date header)` };
  const effect =
    skew > 0
      ? 'tokens look expired early here: dlake renews them, or asks for a login, before it needs to'
      : 'tokens the service has already expired still look valid here: expect refused requests before dlake renews them';
  return {
    status: Math.abs(skew) > SKEW_FAIL_MS ? 'fail' : 'warn',
    finding: `this machine's clock is ${size} ${skew > 0 ? 'ahead of' : 'behind'} the service's: ${effect}; signed tokens (JWT) may be refused`,
    fix: "set this machine's clock (e.g. `timedatectl set-ntp true`)",
  };
}

async function checkLogin(ctx: Context, f: Findings, ms: number): Promise<Omit<CheckResult, 'check'>> {
  const s = ctx.settings();
  if (!s.url) return skip('no URL');
  const [{ usableToken }, { isExpired, timeLeftMs }] = await Promise.all([
    import('../auth/credentials.js'),
    import('../auth/expiry.js'),
  ]);
  const url = requireUrl(s);
  const stored = usableToken(ctx.snapshot(), s, url);
  const renews = s.envClientCredentials
    ? `client credentials of ${s.envClientCredentials.clientId} (DLAKE_CLIENT_ID)`
    : stored?.refreshToken
      ? 'its refresh token'
      : stored?.pat
        ? 'a new exchange of the stored PAT'
        : undefined;
  let what: string;
  if (s.envToken) what = 'a bearer token from DLAKE_TOKEN (stored nowhere)';
  else if (stored) {
    const left = timeLeftMs(stored.expiresAt);
    const owner = stored.username ? ` of ${stored.username}` : '';
    const expiry =
      left === undefined
        ? 'no known expiry'
        : isExpired(stored.expiresAt)
          ? `expired at ${stored.expiresAt}`
          : `${formatDuration(left, { largest: 2 })} left`;
    what = `${stored.kind} token${owner} via ${stored.obtainedVia} (${expiry}${renews ? `; renewed with ${renews}` : ''})`;
    if (isExpired(stored.expiresAt) && !renews)
      return {
        status: 'fail',
        finding: `the ${what} cannot renew itself`,
        fix: loginFix(ctx, stored.username),
      };
  } else if (s.envClientCredentials) what = `none stored; obtained with ${renews}`;
  else
    return {
      status: 'fail',
      finding: `not logged in (profile "${s.profileName.value}" holds no token for ${redactUrl(url)})`,
      fix: loginFix(ctx, s.profile?.username),
    };
  if (!f.serviceAnswers)
    return { status: 'skip', finding: `${what}; not tried: the service's API did not answer` };
  const { whoAmI } = await import('../api/identity.js');
  try {
    const { userName } = await whoAmI(await boundedClient(ctx, ms, true));
    f.loggedIn = true;
    f.userName = userName;
    return {
      status: 'ok',
      finding: `${what}; the service knows you as ${userName ?? 'a user it does not name'}`,
    };
  } catch (e) {
    if (!(e instanceof AuthError)) throw e;
    return {
      status: 'fail',
      finding: `${what}; the service refused it: ${e.message}`,
      fix: s.envToken
        ? 'set a valid token in DLAKE_TOKEN, or unset it to use the profile'
        : loginFix(ctx, stored?.username),
    };
  }
}

function loginFix(ctx: Context, user: string | undefined): string {
  const s = ctx.settings();
  const p = s.profileName.value === 'default' ? '' : ` -p ${s.profileName.value}`;
  if (s.edition.value === 'cloud') return `dlake login${p} --token-stdin < pat.txt (a personal access token)`;
  return `dlake login${p} -u ${user ?? 'USER'} (or --token-stdin for a personal access token)`;
}

async function checkService(ctx: Context, f: Findings, ms: number): Promise<Omit<CheckResult, 'check'>> {
  if (!f.loggedIn) return skip('not logged in');
  const s = ctx.settings();
  const client = await boundedClient(ctx, ms, true);
  if (s.edition.value === 'cloud') {
    const { resolveProject } = await import('../api/engines.js');
    const project = (await resolveProject(client, s.projectId!.value)) as { name?: unknown; state?: unknown };
    return {
      status: 'ok',
      finding: `the hosted edition; project ${String(project.name ?? s.projectId!.value)}${project.state ? ` (${String(project.state)})` : ''}`,
    };
  }
  const { serverInfo } = await import('../api/identity.js');
  const info = await serverInfo(client);
  return {
    status: 'ok',
    finding: info
      ? `the self-hosted edition, version ${info.version}`
      : 'the self-hosted edition; it does not report its version (no /api/v3/info)',
  };
}

async function checkPats(ctx: Context, f: Findings, ms: number): Promise<Omit<CheckResult, 'check'>> {
  if (!f.loggedIn) return skip('not logged in');
  if (ctx.settings().edition.value === 'cloud')
    return { status: 'ok', finding: 'personal access tokens are always on in the hosted edition' };
  if (!f.userName) return skip('the service does not name your user');
  const client = await boundedClient(ctx, ms, true);
  const [{ resolveUser }, { listPats }, { EditionError }] = await Promise.all([
    import('../api/users.js'),
    import('../api/pats.js'),
    import('../api/editions.js'),
  ]);
  try {
    const user = await resolveUser(client, f.userName);
    const pats = await listPats(client, user.id);
    return { status: 'ok', finding: `enabled; ${pats.length} of yours` };
  } catch (e) {
    if (e instanceof EditionError)
      return { status: 'ok', finding: 'not offered by this edition (community)' };
    if (e instanceof AuthError && /disabled/i.test(e.message))
      return {
        status: 'warn',
        finding:
          'personal access tokens are disabled on this service: no login with a PAT, no Flight with a PAT',
        fix: 'an administrator can enable them (support key auth.personal-access-tokens.enabled)',
      };
    throw e;
  }
}

async function checkFlight(ctx: Context, f: Findings, ms: number): Promise<Omit<CheckResult, 'check'>> {
  const [{ flightSetting }, { flightAuthorization }] = await Promise.all([
    import('../export/flight/endpoint.js'),
    import('../export/flight/transport.js'),
  ]);
  const s = ctx.settings();
  const flight = flightSetting(ctx.opts.flightUrl, ctx.env, s.profile, s.profileName.value);
  if (!flight)
    return {
      status: 'ok',
      finding: 'no Flight endpoint set: exports go over REST (`dlake login --flight-url URL` sets one)',
    };
  const { host, port, tls, url } = flight.endpoint;
  const where = `${url} (${flight.origin})`;
  const started = performance.now();
  const left = () => Math.max(1, Math.floor(ms - (performance.now() - started)));
  const tcp = await connectTcp(host, port, left());
  if (!tcp.ok)
    return {
      status: 'fail',
      finding:
        tcp.code === 'ECONNREFUSED'
          ? `connection refused by ${host}:${port}, the Flight endpoint ${where}`
          : `cannot reach the Flight endpoint ${where}: ${tcp.message}`,
      fix: 'check its port (the self-hosted service serves Flight on 32010 unless set otherwise); exports fall back to REST meanwhile',
    };
  if (tls) {
    const checked = await tlsCheck(ctx, host, port, left());
    if (!checked.passed)
      return { status: checked.status, finding: `Flight ${where}: ${checked.finding}`, fix: checked.fix };
  }
  if (!f.loggedIn) return { status: 'skip', finding: `${where} answers; not tried: not logged in` };
  const { FlightClient } = await import('../export/flight/client.js');
  const client = new FlightClient({
    endpoint: flight.endpoint,
    idleMs: left(),
    caFile: s.caFile?.value,
    insecure: ctx.opts.insecure,
  });
  try {
    const authorization = await flightAuthorization(ctx, flight);
    // Planning a query of one row proves the credential: the endpoint takes it on every call.
    await client.getFlightInfo('SELECT 1', authorization, AbortSignal.timeout(left()));
    return {
      status: 'ok',
      finding: `${where} answers over ${tls ? 'TLS' : 'plain gRPC'} and takes your credential`,
    };
  } catch (e) {
    // A gRPC error's words are its `details`; a DlakeError's `details` are field details, its words the message.
    const details = (e as { details?: unknown }).details;
    const why = typeof details === 'string' && details ? details : (e as Error).message;
    return {
      status: 'fail',
      finding: `${where} refused: ${why}`,
      fix: e instanceof DlakeError ? ctx.hint(e) : `run \`dlake login --flight-url ${url}\``,
    };
  } finally {
    client.close();
  }
}

async function checkRateLimits(ctx: Context): Promise<Omit<CheckResult, 'check'>> {
  if (ctx.settings().edition.value !== 'cloud')
    return { status: 'skip', finding: 'not used: the self-hosted edition sets no rate limits' };
  const { paceLimits } = await import('../api/pacing.js');
  const limits = paceLimits(ctx.env);
  const from = ctx.env.DLAKE_RATE_LIMITS ? 'DLAKE_RATE_LIMITS' : 'the published limits';
  return {
    status: 'ok',
    finding: `${describeLimits(limits)} (${from}); dlake keeps below 80 % of each`,
  };
}

function describeLimits({
  limits,
  windowMs,
}: ReturnType<typeof import('../api/pacing.js').paceLimits>): string {
  const per = formatDuration(windowMs, { largest: 1 });
  return `per IP address and ${per}: ${limits.status.toLocaleString('en-US')} job-status, ${limits.results.toLocaleString('en-US')} results-page, ${limits.cancel.toLocaleString('en-US')} cancel and ${limits.api.toLocaleString('en-US')} requests in all`;
}

/** Where tokens are kept: the platform's credential store when one answers, else the 0600 file. */
async function checkCredentialStore(ctx: Context): Promise<Omit<CheckResult, 'check'>> {
  const file = `${ctx.store.credentialsPath} (mode 0600)`;
  const vault = ctx.store.vault;
  const { mode } = vault?.mode() ?? { mode: 'file' };
  if (!vault || mode === 'file') return { status: 'ok', finding: `tokens are kept in ${file}, as chosen` };
  try {
    const absent = await vault.whyAbsent();
    if (!absent)
      return { status: 'ok', finding: 'tokens are kept in the credential store (service "dlake")' };
    if (mode === 'keyring') {
      return {
        status: 'fail',
        finding: `DLAKE_CREDENTIAL_STORE=keyring, but there is none: ${absent}`,
        fix: "start a session's keyring (a Secret Service), or set DLAKE_CREDENTIAL_STORE=file",
      };
    }
    return { status: 'ok', finding: `no credential store (${absent}): tokens are kept in ${file}` };
  } catch (e) {
    return {
      status: 'fail',
      finding: `the credential store does not answer: ${(e as Error).message}`,
      fix: 'unlock the keyring, or set DLAKE_CREDENTIAL_STORE=file',
    };
  }
}
