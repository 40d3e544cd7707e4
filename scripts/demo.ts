// `npm run demo`: a narrated tour of dlake against the embedded emulator. Nothing to install or
// configure: the emulator runs in this process, and dlake keeps its config in a temporary folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startEmulator } from '../test/emulator/server.js';
import { runDlake } from '../test/helpers/dlake.js';

interface Step {
  /** What a newcomer should notice, printed before the command. */
  say: string;
  args: string[];
  /** Standard input (e.g. a password piped in with --password-stdin). */
  input?: string;
  /** Shown in the printed command instead of the real input, e.g. `echo "$PASSWORD" |`. */
  shownInput?: string;
  /** Expected exit code (default 0); the demo stops if another one comes back. */
  expect?: number;
  /** Keep stdout under this name instead of printing it (a secret, like a new PAT). */
  captureAs?: string;
  /** Standard input taken from an earlier step's captured stdout. */
  inputFrom?: string;
}

const bold = (s: string) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
const dim = (s: string) => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s);

const STEPS: Step[] = [
  {
    say: 'Log in with a password. On a terminal dlake prompts for it; in scripts it comes from stdin, never from argv.',
    args: ['login', '-u', 'admin', '--password-stdin'],
    input: 'admin-pass-1',
    shownInput: 'echo "$PASSWORD" |',
  },
  {
    say: 'Who am I, and where does each setting come from? (flag, environment, profile, default)',
    args: ['whoami'],
  },
  {
    say: "Exchange a service user's client credentials for an OAuth access token, stored in its own profile.",
    args: [
      'token',
      'exchange',
      'client-credentials',
      '-p',
      'ci',
      '--client-id',
      'ci-client',
      '--client-secret-stdin',
    ],
    input: 'ci-client-secret-1',
    shownInput: 'echo "$CLIENT_SECRET" |',
  },
  { say: 'Profiles: the current one is marked with *.', args: ['profile', 'list'] },
  {
    say: 'Any endpoint, raw: `dlake api` prints the JSON the service returns.',
    args: ['api', 'GET', '/api/v3/catalog'],
  },
  {
    say: '--query filters any result with JMESPath, in every output format.',
    args: [
      'api',
      'GET',
      '/api/v3/reflection-summary',
      '--paginate',
      '--query',
      'data[:3].{name: name, type: reflectionType}',
      '-o',
      'table',
    ],
  },
  {
    say: 'Administer users: create one with a role (PUBLIC is always added).',
    args: [
      'user',
      'create',
      'bob',
      '--first-name',
      'Bob',
      '--email',
      'bob@example.com',
      '--role',
      'analysts',
    ],
  },
  {
    say: 'Create a personal access token for bob: stdout is the token alone, so $(…) captures it.',
    args: ['pat', 'create', 'bob', '--label', 'demo', '--expires', '7d'],
    captureAs: 'TOKEN',
    shownInput: 'TOKEN=$(',
  },
  {
    say: 'Log in as bob with that token (verified with one call before it is stored).',
    args: ['login', '-p', 'bob', '--token-stdin'],
    inputFrom: 'TOKEN',
    shownInput: 'echo "$TOKEN" |',
  },
  {
    say: 'Workload queues take sizes and durations in human units.',
    args: [
      'queue',
      'create',
      '--name',
      'etl',
      '--cpu-tier',
      'HIGH',
      '--max-memory-per-node',
      '8GiB',
      '--max-run-timeout',
      '15m',
    ],
  },
  { say: '…and print them back the same way.', args: ['queue', 'list'] },
  {
    say: 'Errors are one line with a hint, and a documented exit code (here 2: unknown profile).',
    args: ['whoami', '-p', 'staging'],
    expect: 2,
  },
];

async function main(): Promise<void> {
  const samplesDir = resolve(import.meta.dirname, '../test/fixtures/samples');
  const emu = await startEmulator({ samplesDir, bigRows: 20_000, jobStepMs: 150 });
  const configDir = mkdtempSync(join(tmpdir(), 'dlake-demo-'));
  const env = {
    DLAKE_URL: emu.url,
    DLAKE_CONFIG_DIR: configDir,
    FORCE_COLOR: process.stdout.isTTY ? '1' : undefined,
  };
  console.log(bold(`dlake demo — an emulated service is running at ${emu.url}`));
  console.log(dim(`(DLAKE_URL=${emu.url}, config in ${configDir})\n`));
  let failed = false;
  const captured: Record<string, string> = {};
  try {
    for (const [i, step] of STEPS.entries()) {
      console.log(bold(`${i + 1}. ${step.say}`));
      const command = `dlake ${step.args.map(quote).join(' ')}`;
      const prefix = step.shownInput ? `${step.shownInput}${step.captureAs ? '' : ' '}` : '';
      console.log(`   $ ${prefix}${command}${step.captureAs ? ')' : ''}`);
      const input = step.inputFrom ? captured[step.inputFrom] : step.input;
      const r = await runDlake(step.args, { env, input });
      if (step.captureAs) captured[step.captureAs] = r.stdout.trim();
      const out = ((step.captureAs ? '' : r.stdout) + r.stderr).trimEnd();
      if (out) console.log(out.replace(/^/gm, '   '));
      console.log('');
      if (r.code !== (step.expect ?? 0)) {
        console.error(`demo step failed with exit code ${r.code}`);
        failed = true;
        break;
      }
    }
  } finally {
    await emu.close();
    rmSync(configDir, { recursive: true, force: true });
  }
  console.log(
    failed
      ? 'The demo stopped early.'
      : bold('That was dlake. Run `npm test` for the whole test suite; see README.md for more.'),
  );
  process.exitCode = failed ? 1 : 0;
}

function quote(arg: string): string {
  return /^[\w./:@=,-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

await main();
