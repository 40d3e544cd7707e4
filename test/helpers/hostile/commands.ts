// The command lines the invariant properties run: every command of the tree (./../command-tree.ts), with
// arguments that reach the service where a realistic line is known (a job that exists, a catalog path, a saved
// plan), and placeholders otherwise. A command added later is run with placeholders until a line is written here.
import fc from 'fast-check';
import { type Leaf, leafCommands } from '../command-tree.js';

/** What the setup made that command lines name. */
export interface Places {
  /** A job of 1,200 rows (three results pages), completed. */
  bigJob: string;
  /** A small completed job. */
  smallJob: string;
  /** The folder every case may write into (its files are checked). */
  out: string;
  /** A pulled definitions folder and a plan saved from it, copied into `out` for each case. */
  defs: string;
  plan: string;
  /** A space definition file for catalog create/update. */
  entityFile: string;
  /** An empty folder of its own for a NAS source a case creates (a pull lists what it holds). */
  nasDir: string;
  password: string;
}

export interface CommandLine {
  args: string[];
  input?: string;
}

type Lines = (p: Places) => CommandLine[];

const a = (...args: string[]): CommandLine => ({ args });

/** Lines for the commands that have them; each a few variants. */
const LINES: Record<string, Lines> = {
  login: (p) => [{ args: ['login', '-u', 'admin', '--password-stdin'], input: `${p.password}\n` }],
  whoami: () => [a('whoami'), a('whoami', '--check')],
  'token exchange pat': () => [
    { args: ['token', 'exchange', 'pat', '--subject-token-stdin'], input: 'not-a-pat\n' },
  ],
  'catalog ls': () => [a('catalog', 'ls'), a('catalog', 'ls', 'Samples')],
  'catalog get': () => [a('catalog', 'get', 'Samples'), a('catalog', 'get', 'Samples/sales')],
  'catalog tree': () => [a('catalog', 'tree', 'Samples')],
  'catalog create': (p) => [a('catalog', 'create', '--file', p.entityFile)],
  'catalog update': (p) => [a('catalog', 'update', 'Lab', '--file', p.entityFile)],
  'catalog delete': () => [a('catalog', 'delete', 'Lab', '--yes')],
  'catalog refresh': () => [a('catalog', 'refresh', 'Samples')],
  'catalog tags': () => [a('catalog', 'tags', 'Samples/sales')],
  'catalog wiki': () => [a('catalog', 'wiki', 'Samples')],
  'catalog grants': () => [a('catalog', 'grants', 'Samples')],
  'catalog lineage': () => [a('catalog', 'lineage', 'Samples/sales')],
  'source list': () => [a('source', 'list')],
  'source get': () => [a('source', 'get', 'Samples')],
  'source types': () => [a('source', 'types'), a('source', 'types', 'NAS')],
  'source create': (p) => [a('source', 'create', 'nas2', '--type', 'NAS', '--set', `path=${p.nasDir}`)],
  sql: (p) => [
    a('sql', 'SELECT * FROM big'),
    a('sql', 'SELECT 1 AS x', '--out', `${p.out}/rows.csv`),
    a('sql', 'SELECT * FROM big', '--out', `${p.out}/rows.parquet`),
    a('sql', 'SELECT * FROM big', '--out', '-'),
  ],
  'job list': () => [a('job', 'list'), a('job', 'list', '--since', '1d')],
  'job get': (p) => [a('job', 'get', p.smallJob)],
  'job why': (p) => [a('job', 'why', p.smallJob)],
  'job profile': (p) => [
    a('job', 'profile', p.smallJob),
    a('job', 'profile', p.smallJob, '--out', `${p.out}/p.zip`),
  ],
  'job wait': (p) => [a('job', 'wait', p.smallJob)],
  'job cancel': (p) => [a('job', 'cancel', p.smallJob, '--yes')],
  'job results': (p) => [a('job', 'results', p.bigJob), a('job', 'results', p.smallJob)],
  'job export': (p) => [
    a('job', 'export', p.bigJob, '--out', `${p.out}/big.csv`),
    a('job', 'export', p.bigJob, '--out', `${p.out}/big.ndjson`),
  ],
  top: () => [a('top', '--once')],
  // An agent host's files live in the home folder (each case's own, harness.ts): dry runs leave them as they were.
  'agents install': () => [a('agents', 'install', '--dry-run')],
  'agents uninstall': () => [a('agents', 'uninstall', '--dry-run')],
  search: () => [a('search', 'sales')],
  'reflection summary': () => [a('reflection', 'summary')],
  'user get': () => [a('user', 'get', 'admin')],
  'role get': () => [a('role', 'get', 'PUBLIC')],
  'access why': () => [a('access', 'why', 'admin', 'Samples')],
  'pat list': () => [a('pat', 'list')],
  'pat create': () => [a('pat', 'create', 'admin', '--label', 'ci')],
  'queue get': () => [a('queue', 'get', 'High Cost User Queries')],
  pull: (p) => [a('pull', '--dir', `${p.out}/pulled`)],
  plan: (p) => [a('plan', '--dir', p.defs), a('plan', '--dir', p.defs, '--out', `${p.out}/plan.json`)],
  apply: (p) => [a('apply', '--dir', p.defs), a('apply', '--plan', p.plan, '--dry-run')],
  api: () => [a('api', 'GET', '/api/v3/catalog'), a('api', 'GET', '/api/v3/user', '--paginate')],
  describe: () => [a('describe', 'job', 'list')],
  completion: () => [a('completion', 'bash')],
  mcp: () => [
    {
      args: ['mcp'],
      input: [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 't', version: '1' },
          },
        },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_catalog', arguments: {} } },
      ]
        .map((m) => JSON.stringify(m))
        .join('\n')
        .concat('\n'),
    },
  ],
};

/** The lines of one command: its own, else its words with placeholders. */
function linesOf(leaf: Leaf, p: Places): CommandLine[] {
  const own = LINES[leaf.words.join(' ')];
  if (own) return own(p);
  return [{ args: [...leaf.words, ...leaf.requiredArgs.map(() => 'x'), ...leaf.mandatory] }];
}

const FORMATS: (string[] | [])[] = [[], [], ['-o', 'json'], ['-o', 'csv'], ['-o', 'ndjson']];

export interface Case extends CommandLine {
  /** Standard output and error are a terminal (80 columns). */
  tty: boolean;
}

/** Every command line of the tree, as a fast-check arbitrary of cases (an output format and a terminal or not). */
export async function caseArbitrary(
  p: Places,
): Promise<{ arbitrary: fc.Arbitrary<Case>; commands: number; lines: CommandLine[] }> {
  const leaves = await leafCommands();
  const lines = leaves.flatMap((leaf) => linesOf(leaf, p));
  const arbitrary = fc
    .record({ line: fc.constantFrom(...lines), format: fc.constantFrom(...FORMATS), tty: fc.boolean() })
    .map(({ line, format, tty }) => ({ args: [...line.args, ...format], input: line.input, tty }));
  return { arbitrary, commands: leaves.length, lines };
}
