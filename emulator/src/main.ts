// Command-line start of the emulator:
//   dlake-emulator --port 9047 [--host H] [--edition community] [--samples DIR | --no-samples] [--big-rows N]
//                  [--jwt-public-key FILE] [--no-pats] [--fault WHAT:[METHOD:]PATH[:TIMES]]…
//                  [--strict-spec] [--secret-placeholder TEXT] [--flight-port N] [--flight-fault F]…
//                  [--flight-batch-rows N] [--flight-encoding KEY=VALUE,…] [--rest-floats java|javascript]
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { EmulatorOptions } from './area.js';
import { DEFAULT_PROJECT_ID, RATE_LIMIT_NAMES, type RateLimitName } from './cloud.js';
import { describeFault, FAULT_FLAG_SYNTAX, type FaultSpec, parseFaultFlag } from './faults.js';
import { type FlightEncoding, parseFlightEncoding } from './flight/encoding.js';
import type { FlightFaultSpec } from './flight/faults.js';
import { type Emulator, startEmulator } from './server.js';
import type { FloatText } from './sql-engine.js';
import { DEFAULT_USERS } from './state.js';

const USAGE = `Usage: dlake-emulator [options]   (in this repository: npm run emulator -- [options])

  --port N              port to listen on (default 9047; 0 picks a free one)
  --host H              address to bind (default 127.0.0.1)
  --edition E           enterprise (default), community, or cloud (the hosted edition's roots)
  --project-id UUID     with --edition cloud: the project served (default ${DEFAULT_PROJECT_ID})
  --rate-limit NAME=N   with --edition cloud: lower a published limit (api, results, status, cancel:
                        requests per window; repeatable); above it the answer is 429 with Retry-After
  --rate-window MS      with --edition cloud: the window of the limits (default 60000, as published)
  --samples DIR         serve DIR as the NAS source "Samples" (default: the emulator's own sample
                        files, CSV, JSON and Parquet; not with --edition cloud)
  --no-samples          no "Samples" source
  --big-rows N          rows of the generated table "big" (default 20000: enough for an export to be
                        seen streaming)
  --job-history N       jobs in the seeded history of the job system tables (default 200)
  --job-retention-ms N  how long a job that ended stays in the job store, after which its id answers 404
                        and only the history tables hold it (default 2592000000: the service's 30 days)
  --no-jobs-recent      an older server: no sys.jobs_recent, every recent job in sys.jobs
  --search FORM         the catalog search a self-hosted emulator has: unified (POST /api/v3/search and
                        GET /api/v3/catalog/search; the Enterprise default) or catalog (the latter only;
                        the community default); the hosted edition has its own
  --jwt-public-key FILE PEM public key (SPKI, RS256 or ES256) that external JWTs are verified against
  --no-pats             switch personal access tokens off
  --fault ${FAULT_FLAG_SYNTAX}
                        arm a fault, to rehearse how a script copes (repeatable; the first
                        armed fault that matches a request answers it):
                          WHAT   an HTTP status 400-599, optionally @SECONDS for Retry-After
                                 (429@2); latency@MS; reset (connection cut mid-body);
                                 truncate (body shorter than promised); html (a proxy's error
                                 page); schema (JSON of the wrong shape); malformed (not JSON)
                          PATH   prefix of the request path; / matches every request
                          TIMES  how many matching requests it hits (default: all of them)
                        e.g. --fault 503:/api/v3/job:3  --fault 429@2:POST:/api/v3/sql:1
  --flight-port N       also serve Arrow Flight (gRPC) on port N (0 picks a free one); TLS when HTTPS is
  --flight-batch-rows N rows of each Flight record batch, 1 to 65536 (default 4095, as the service sends)
  --flight-encoding KEY=VALUE,…
                        the Arrow encodings Flight sends instead of the service's own, e.g.
                        date=day,time=us,timestamp=ns,zone=UTC,strings=dictionary:
                        date=ms|day time=s|ms|us|ns timestamp=s|ms|us|ns zone=NAME|none
                        strings=utf8|large|view|dictionary binary=binary|large|view lists=list|large
                        decimal=128|256 nested=arrow|text intervals=arrow|text
  --flight-fault WHAT[:K][:TIMES]
                        arm a Flight fault (repeatable): refuse-auth (every call unauthenticated),
                        unavailable (GetFlightInfo/DoGet answer UNAVAILABLE), break:K (a stream is cut
                        after K batches), fail:K (a stream ends with a query error after K batches),
                        slow:MS (each batch waits MS);
                        TIMES calls (default: all), e.g. --flight-fault break:2:1
  --rest-floats java|javascript
                        how REST results print FLOAT and DOUBLE: as the service's Java does (1.0, 1.0E300;
                        the default) or as JavaScript does (1, 1e+300)
  --strict-spec         serve only the spec's endpoints (others, e.g. GET /api/v3/info, answer 404)
  --secret-placeholder TEXT
                        what source configs show instead of a stored secret (default $SERVICE_EXISTING_VALUE$)
  -V, --version         print the version and the Node.js that runs it
  -h, --help            show this help`;

function fail(msg: string): never {
  process.stderr.write(`emulator: ${msg}\n\n${USAGE}\n`);
  process.exit(2);
}

/** A start that cannot go on, said in one line (exit 2): no usage text, no stack. */
function refuse(msg: string): never {
  process.stderr.write(`emulator: ${msg}\n`);
  process.exit(2);
}

/**
 * The sample files served as `Samples` when --samples names no folder, so that the README's tour needs nothing
 * but the emulator: dist/samples in the package (scripts/build.mjs copies the repository's test/fixtures/samples
 * there), or, run from the sources, the repository's own.
 */
function shippedSamples(): string {
  const inPackage = join(import.meta.dirname, 'samples');
  return existsSync(inPackage) ? inPackage : resolve(import.meta.dirname, '../../test/fixtures/samples');
}

/** `dlake-emulator 0.1.0` and the Node.js that runs it. */
function versionText(): string {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return `dlake-emulator ${version}\nNode.js ${process.version} on ${process.platform}-${process.arch}\n`;
}

/** `--samples DIR`: a folder that exists (a mistyped one would serve an empty source without a word). */
function samplesOption(dir: string | undefined): string | undefined {
  if (dir === undefined) return undefined;
  let isFolder: boolean;
  try {
    isFolder = statSync(dir).isDirectory();
  } catch {
    refuse(`--samples "${dir}": no such folder`);
  }
  if (!isFolder) refuse(`--samples "${dir}": not a folder`);
  return dir;
}

function intOption(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) fail(`--${name} needs a non-negative integer, got "${value}"`);
  return Number(value);
}

/** `--flight-batch-rows N`: 1 to 65,536 (a service batch is 4,095 rows). */
function batchRowsOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = intOption(value, 'flight-batch-rows', 4095);
  if (n < 1 || n > 65536) fail(`--flight-batch-rows needs 1 to 65536, got ${n}`);
  return n;
}

/** `--flight-encoding date=day,…` (emulator/src/flight/encoding.ts). */
function encodingOption(value: string | undefined): Partial<FlightEncoding> | undefined {
  if (value === undefined) return undefined;
  try {
    return parseFlightEncoding(value);
  } catch (e) {
    fail(`--flight-encoding: ${(e as Error).message}`);
  }
}

/** `--rest-floats java|javascript`. */
function floatsOption(value: string | undefined): FloatText | undefined {
  if (value === undefined || value === 'java' || value === 'javascript') return value;
  fail(`--rest-floats needs java or javascript, got "${value}"`);
}

function faultOption(value: string): FaultSpec {
  try {
    return parseFaultFlag(value);
  } catch (e) {
    fail((e as Error).message);
  }
}

/** `--flight-fault WHAT[:K][:TIMES]`. */
function flightFaultOption(value: string): FlightFaultSpec {
  const [kind, ...nums] = value.split(':');
  const counts = nums.map((n) =>
    /^\d+$/.test(n) ? Number(n) : fail(`--flight-fault: "${n}" is not a count`),
  );
  if (kind === 'break' || kind === 'fail') {
    if (counts.length < 1) fail(`--flight-fault ${kind} needs the batches before it: ${kind}:K`);
    return { kind, afterBatches: counts[0], times: counts[1] };
  }
  if (kind === 'refuse-auth' || kind === 'unavailable') return { kind, times: counts[0] };
  if (kind === 'slow') return { kind, latencyMs: counts[0] ?? 100, times: counts[1] };
  fail(`--flight-fault: unknown fault "${kind}"`);
}

function parseOptions(argv: string[]): EmulatorOptions {
  let values: ReturnType<typeof parse>['values'];
  try {
    ({ values } = parse(argv));
  } catch (e) {
    fail((e as Error).message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  if (values.version) {
    process.stdout.write(versionText());
    process.exit(0);
  }
  if (values.samples !== undefined && values['no-samples'])
    fail('--samples and --no-samples exclude each other');
  const edition = values.edition ?? 'enterprise';
  if (edition !== 'enterprise' && edition !== 'community' && edition !== 'cloud')
    fail(`unknown edition "${edition}"`);
  const rateLimits: Partial<Record<RateLimitName, number>> = {};
  for (const pair of values['rate-limit'] ?? []) {
    const [name, n] = pair.split('=');
    if (!RATE_LIMIT_NAMES.includes(name as RateLimitName)) fail(`unknown limit "${name}"`);
    rateLimits[name as RateLimitName] = intOption(n, 'rate-limit', 0);
  }
  return {
    cloud: {
      projectId: values['project-id'],
      rateLimits,
      rateWindowMs:
        values['rate-window'] === undefined
          ? undefined
          : intOption(values['rate-window'], 'rate-window', 60000),
    },
    port: intOption(values.port, 'port', 9047),
    host: values.host,
    edition,
    samplesDir:
      values['no-samples'] || (values.samples === undefined && edition === 'cloud')
        ? undefined
        : (samplesOption(values.samples) ?? shippedSamples()),
    // The command's default is larger than startEmulator's (1,000, which keeps tests quick): the tour's export
    // of `big` is to be seen streaming.
    bigRows: intOption(values['big-rows'], 'big-rows', 20_000),
    jobRetentionMs:
      values['job-retention-ms'] === undefined
        ? undefined
        : intOption(values['job-retention-ms'], 'job-retention-ms', 0),
    jobHistory:
      values['job-history'] === undefined ? undefined : intOption(values['job-history'], 'job-history', 200),
    jobsRecent: !values['no-jobs-recent'],
    search: searchOption(values.search),
    jwtPublicKeyPem: values['jwt-public-key'] ? readFileSync(values['jwt-public-key'], 'utf8') : undefined,
    patsEnabled: !values['no-pats'],
    faults: (values.fault ?? []).map(faultOption),
    strictSpec: values['strict-spec'] === true,
    secretPlaceholder: values['secret-placeholder'],
    flightPort:
      values['flight-port'] === undefined ? undefined : intOption(values['flight-port'], 'flight-port', 0),
    flightFaults: (values['flight-fault'] ?? []).map(flightFaultOption),
    flightBatchRows: batchRowsOption(values['flight-batch-rows']),
    flightEncoding: encodingOption(values['flight-encoding']),
    restFloats: floatsOption(values['rest-floats']),
  };
}

function searchOption(value: string | undefined): 'unified' | 'catalog' | undefined {
  if (value === undefined || value === 'unified' || value === 'catalog') return value;
  return fail(`--search must be unified or catalog, not "${value}"`);
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    strict: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      edition: { type: 'string' },
      'project-id': { type: 'string' },
      'rate-limit': { type: 'string', multiple: true },
      'rate-window': { type: 'string' },
      samples: { type: 'string' },
      'no-samples': { type: 'boolean' },
      'big-rows': { type: 'string' },
      'job-history': { type: 'string' },
      'job-retention-ms': { type: 'string' },
      'no-jobs-recent': { type: 'boolean' },
      search: { type: 'string' },
      'jwt-public-key': { type: 'string' },
      'no-pats': { type: 'boolean' },
      fault: { type: 'string', multiple: true },
      'strict-spec': { type: 'boolean' },
      'secret-placeholder': { type: 'string' },
      'flight-port': { type: 'string' },
      'flight-fault': { type: 'string', multiple: true },
      'flight-batch-rows': { type: 'string' },
      'flight-encoding': { type: 'string' },
      'rest-floats': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'V' },
    },
  });
}

/**
 * The seeded accounts, so a newcomer can log in at once (these are emulator-only test credentials). The hosted
 * edition has no password login: its users are listed without one (their PATs follow, in hostedPats).
 */
function describeUsers(hosted: boolean): string {
  return DEFAULT_USERS.map((u) => {
    if (u.clientId)
      return `  ${u.name} (service user): client id ${u.clientId}, client secret ${u.clientSecret}`;
    const who = `  ${u.name}${u.admin ? ' (admin)' : ''}`;
    return hosted ? `${who}: log in with the PAT below` : `${who}: password ${u.password}`;
  }).join('\n');
}

/** Why the server could not listen, in words, for the errors a user can fix with --port or --host. */
function listenFailure(e: unknown, options: EmulatorOptions): string | undefined {
  const where = `${options.host ?? '127.0.0.1'}:${options.port}`;
  switch ((e as NodeJS.ErrnoException)?.code) {
    case 'EADDRINUSE':
      return `cannot listen on ${where}: the port is already in use (another emulator?); choose another with --port (0 picks a free one)`;
    case 'EACCES':
      return `cannot listen on ${where}: permission denied; choose a port above 1023 with --port`;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${where}: ${options.host} is not an address of this machine (--host)`;
    default:
      return undefined;
  }
}

/** One PAT per seeded user of the hosted edition, valid a year (emulator-only test credentials). */
function hostedPats(emu: Emulator): string {
  const projectId = emu.cloud!.projectId;
  const lines = [
    `Project: ${projectId}`,
    'Personal access tokens (the hosted edition takes no password), to log in with:',
    `  echo PAT | dlake login --url ${emu.url} --project-id ${projectId} --token-stdin`,
  ];
  for (const u of emu.state.users.values()) {
    if (u.clientId) continue;
    const pat = emu.state.issueToken(u.id, 'pat', 365 * 24 * 3_600_000, { label: 'emulator' });
    lines.push(`  ${u.name}: ${pat.token}`);
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const emu = await startEmulator(options).catch((e: unknown) => {
    const why = listenFailure(e, options);
    if (why) refuse(why);
    throw e;
  });
  const faults = options.faults ?? [];
  const armed = faults.length
    ? `Faults armed:\n${faults.map((f) => `  ${describeFault(f)}`).join('\n')}\n`
    : '';
  // One write, so that whoever waits for "listening on" has the whole banner.
  // The hosted edition has no password login: its users get a PAT each to log in with.
  const pats = emu.cloud ? `${hostedPats(emu)}\n` : '';
  process.stdout.write(
    `Data Lake Query Service emulator (${options.edition}) listening on ${emu.url}\n${emu.flight ? `Arrow Flight on ${emu.flight.url}\n` : ''}${options.samplesDir ? `Source Samples: the files in ${options.samplesDir}\n` : ''}Users:\n${describeUsers(Boolean(emu.cloud))}\n${pats}${armed}`,
  );
  // A reader that went away (`dlake-emulator | head`) must not crash the server.
  process.stdout.on('error', () => {});
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`Received ${signal}, stopping.\n`);
    emu.close().then(
      () => process.exit(0),
      (e: unknown) => {
        process.stderr.write(`emulator: error while stopping: ${String(e)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((e: unknown) => {
  process.stderr.write(`emulator: ${(e as Error)?.message ?? String(e)}\n`);
  process.exit(1);
});
