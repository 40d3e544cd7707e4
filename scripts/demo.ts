// `npm run demo`: a narrated tour of dlake against the embedded emulator. Nothing to install or
// configure: the emulator runs in this process, and dlake keeps its config in a temporary folder.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startEmulator } from 'dlake-emulator';
import { BIN, cleanEnv } from '../test/helpers/dlake.js';

interface Step {
  /** What a newcomer should notice, printed before the command. */
  say: string;
  args: string[];
  /** Standard input (e.g. a password piped in with --password-stdin). */
  input?: string;
  /**
   * Shown in the printed command instead of the real input, e.g. `echo "$PASSWORD" |`; `ECHO` shows the real
   * input itself as `printf '%s' '…' |`, whole, so the command can be pasted into a shell.
   */
  shownInput?: string;
  /** Expected exit code (default 0); the demo stops if another one comes back. */
  expect?: number;
  /** Keep stdout under this name instead of printing it (a secret, like a new PAT). */
  captureAs?: string;
  /** Standard input taken from an earlier step's captured stdout. */
  inputFrom?: string;
  /** The command as printed, where it differs from the real one (a path shown as "$PWD/…"). */
  shown?: string;
  /** Print the first lines of this file (in the demo's work folder) after the command. */
  peek?: string;
}

const SAMPLES = resolve(import.meta.dirname, '../test/fixtures/samples');

const bold = (s: string) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
const dim = (s: string) => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s);

const STEPS: Step[] = [
  {
    say: 'Log in with a password. On a terminal dlake prompts for it; in scripts it comes from stdin, never from argv.',
    args: ['login', '-u', 'admin', '--password-stdin', '--flight-url', '$FLIGHT'],
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
    say: 'Add a NAS source over the sample folder this repository ships; its files appear in the catalog.',
    args: ['source', 'create', 'lake', '--type', 'NAS', '--set', `path=${SAMPLES}`],
    shown: 'dlake source create lake --type NAS --set path="$PWD/test/fixtures/samples"',
  },
  {
    say: 'Paths print in a form you can paste back (quotes where a name needs them).',
    args: ['catalog', 'ls', 'lake'],
  },
  {
    say: 'Promote the sales folder of CSV files to a table, from JSON on stdin (or --file F).',
    args: ['catalog', 'create', '--file', '-'],
    input: JSON.stringify({
      entityType: 'dataset',
      type: 'PHYSICAL_DATASET',
      path: ['lake', 'sales'],
      format: { type: 'Text', fieldDelimiter: ',', extractHeader: true },
    }),
    shownInput: 'ECHO',
  },
  {
    say: 'A space, and a view in it over that table.',
    args: ['catalog', 'create', '--file', '-'],
    input: JSON.stringify({ entityType: 'space', name: 'Sales' }),
    shownInput: 'ECHO',
  },
  {
    say: '',
    args: ['catalog', 'create', '--file', '-'],
    input: JSON.stringify({
      entityType: 'dataset',
      type: 'VIRTUAL_DATASET',
      path: ['Sales', 'by_region'],
      sql: 'SELECT region, SUM(units) AS units FROM lake.sales GROUP BY region',
    }),
    shownInput: 'ECHO',
  },
  {
    say: 'Tag it and document the space; both writes send the current version, so no edit is lost.',
    args: ['catalog', 'tags', 'Sales/by_region', '--set', 'gold', '--set', 'finance'],
  },
  {
    say: '',
    args: ['catalog', 'wiki', 'Sales', '--set-file', '-'],
    input: '# Sales\nUnits sold per region, from lake/sales.\n',
    shownInput: 'ECHO',
  },
  {
    say: 'The whole catalog as a tree (containers are listed concurrently).',
    args: ['catalog', 'tree', '--depth', '2'],
  },
  {
    say: 'Run SQL: dlake submits it, waits (a spinner on a terminal) and prints the rows.',
    args: ['sql', 'SELECT * FROM Sales.by_region ORDER BY units DESC'],
  },
  {
    say: 'In scripts: submit without waiting and keep the job id…',
    args: ['sql', 'SELECT * FROM big', '--no-wait'],
    captureAs: 'ID',
    shownInput: 'ID=$(',
  },
  { say: '…wait for it (exit 6 if it fails or is canceled)…', args: ['job', 'wait', '$ID'] },
  {
    say: '…and stream every row to CSV: pages fetched concurrently, written in order, renamed into place at the end.',
    args: ['job', 'export', '$ID', '--out', 'big.csv'],
    peek: 'big.csv',
  },
  {
    say: "Accelerate the view with a reflection: its fields are checked against the view's schema before it is sent.",
    args: [
      'reflection',
      'create',
      'Sales/by_region',
      '--type',
      'aggregation',
      '--dimension',
      'region',
      '--measure',
      'units:SUM',
    ],
  },
  {
    say: '--query filters any result with JMESPath, in every output format: here, the reflections of the lake.',
    args: ['reflection', 'list', '--query', '[].{name: name, type: type, enabled: enabled}', '-o', 'table'],
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
    say: 'Exports read the result over Arrow Flight where the service offers it (the login stored its endpoint).',
    args: ['sql', 'SELECT * FROM big', '--out', 'big.parquet'],
  },
  {
    say: 'Operate the service: what failed in the last day (the job history, every filter in one query)…',
    args: ['job', 'list', '--status', 'FAILED', '--since', '24h', '--limit', '3'],
  },
  { say: '…what is running now (top, as one snapshot without a terminal)…', args: ['top', '--once'] },
  {
    say: '…and when something does not work, each step to the service checked, with its fix.',
    args: ['doctor'],
  },
  {
    say: 'AI agents get the same through `dlake mcp`, a Model Context Protocol server on stdio (any agent host):',
    args: ['describe', 'mcp'],
  },
  {
    say: 'Errors are one line with a hint, and a documented exit code (here 2: unknown profile).',
    args: ['whoami', '-p', 'staging'],
    expect: 2,
  },
];

async function main(): Promise<void> {
  const emu = await startEmulator({ bigRows: 20_000, jobStepMs: 150, flightPort: 0 });
  // The config store and the exported file live here, and go with it.
  const configDir = mkdtempSync(join(tmpdir(), 'dlake-demo-'));
  const env = {
    DLAKE_URL: emu.url,
    DLAKE_CONFIG_DIR: configDir,
    FORCE_COLOR: process.stdout.isTTY ? '1' : undefined,
  };
  console.log(bold(`dlake demo — an emulated service is running at ${emu.url}`));
  console.log(dim(`(DLAKE_URL=${emu.url}, config in ${configDir})\n`));
  let failed = false;
  // The Flight endpoint, for the login that stores it ("$FLIGHT" in the printed command).
  const captured: Record<string, string> = { FLIGHT: emu.flight!.url };
  try {
    let number = 0;
    for (const step of STEPS) {
      // A step without words continues the one before it.
      if (step.say) console.log(bold(`${++number}. ${step.say}`));
      const command = step.shown ?? `dlake ${step.args.map(quote).join(' ')}`;
      const shownInput =
        step.shownInput === 'ECHO' ? `printf '%s' ${quote(step.input ?? '')} |` : step.shownInput;
      const prefix = shownInput ? `${shownInput}${step.captureAs ? '' : ' '}` : '';
      console.log(`   $ ${prefix}${command}${step.captureAs ? ')' : ''}`);
      const input = step.inputFrom ? captured[step.inputFrom] : step.input;
      const args = step.args.map((a) => (a.startsWith('$') ? (captured[a.slice(1)] ?? a) : a));
      const r = await runInterleaved(args, { env, input, cwd: configDir });
      if (step.captureAs) captured[step.captureAs] = r.stdout.trim();
      // What a terminal would show: stdout and stderr in the order they came ("job … submitted" first).
      const out = (step.captureAs ? r.stderr : r.both).trimEnd();
      if (out) console.log(out.replace(/^/gm, '   '));
      if (step.peek && r.code === 0) {
        console.log(`   $ head -3 ${step.peek}`);
        const head = readFileSync(join(configDir, step.peek), 'utf8').split('\n').slice(0, 3);
        console.log(head.join('\n').replace(/^/gm, '   '));
      }
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

/** Runs dlake like runDlake, also keeping stdout and stderr merged in the order their chunks arrived. */
function runInterleaved(
  args: string[],
  opts: { env: Record<string, string | undefined>; input?: string; cwd: string },
): Promise<{ code: number | null; stdout: string; stderr: string; both: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(opts.env), cwd: opts.cwd });
    let stdout = '';
    let stderr = '';
    let both = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      both += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      both += d;
    });
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr, both }));
    child.stdin.end(opts.input ?? '');
  });
}

function quote(arg: string): string {
  if (/^\$[A-Z]+$/.test(arg)) return `"${arg}"`;
  return /^[\w./:@=,-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

await main();
