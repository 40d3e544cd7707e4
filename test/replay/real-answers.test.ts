// The replay suite: answers recorded from real servers of this API family, or published in the vendor's API
// reference (test/fixtures/real/, origins in its README), served byte for byte by a stub. Every read command
// runs against each in table, json and csv: it must succeed, `-o json` must print the service's objects
// exactly as they came (keys in the server's order), and table/csv must show the answer's values.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../helpers/csv.js';
import { runInProcess } from '../helpers/in-process.js';
import { type StubRoute, startStub } from './stub.js';

const DIR = resolve(import.meta.dirname, '../fixtures/real');
const text = (name: string) => readFileSync(join(DIR, `${name}.json`), 'utf8');
// biome-ignore lint/suspicious/noExplicitAny: recorded answers are free-form JSON
type Body = any;
const json = (name: string): Body => JSON.parse(text(name));
const configDir = mkdtempSync(join(tmpdir(), 'dlake-replay-'));
afterAll(() => rmSync(configDir, { recursive: true, force: true }));

interface Case {
  /** The fixture under test (file name without `.json`). */
  fixture: string;
  args: string[];
  /** What the stub serves; default: the fixture for every GET under /api/v3/. */
  routes?: Array<StubRoute & { fixture: string }>;
  /** What `-o json` must print, as sent: default the whole fixture. */
  printed?: (body: Body) => unknown;
  /** Texts the table and the csv must show. */
  shows: string[];
  /** Not for every format (e.g. the wiki's table format prints the Markdown text itself). */
  formats?: Array<'table' | 'json' | 'csv'>;
  /** More environment (the hosted edition's answers run with DLAKE_EDITION=cloud). */
  env?: Record<string, string>;
}

const get = (path: string, fixture: string): StubRoute & { fixture: string } => ({
  method: 'GET',
  path,
  body: text(fixture),
  fixture,
});
/** Bodies replayed by the tests of writes, logins and errors below. */
const OTHER_REPLAYS = [
  'kanodoe-login',
  'docs-oauth-client-credentials',
  'docs-oauth-token-exchange',
  'docs-sql-submitted',
  'dremio_client-sql-submitted',
  'docs-error',
  // The operations commands' answers, replayed at the end of this file.
  'ddc-sys-jobs-recent',
  'ddc-sys-project-history-jobs',
  'docs-search',
  'cloud-docs-search',
  'dqd-profile',
];
const UUID = '11111111-2222-4333-8444-555555555555';
/** The hosted edition, with UUID as its project. */
const HOSTED = { DLAKE_EDITION: 'cloud', DLAKE_PROJECT_ID: UUID };
/** A space to hang tags and a wiki on. */
const entity = get('/api/v3/catalog/by-path/*', 'docs-space');

const CASES: Case[] = [
  // Catalog listings and entities of every kind.
  ...['docs-catalog-list', 'docs-catalog-list-permissions', 'dremio_client-catalog-list'].map(
    (fixture): Case => ({
      fixture,
      args: ['catalog', 'ls'],
      printed: (b) => b.data,
      shows: json(fixture).data.map((e: { id: string }) => e.id),
    }),
  ),
  ...[
    'docs-folder-fs',
    'docs-folder-acl',
    'docs-folder-space',
    'docs-home',
    'docs-space',
    'docs-space-acl',
    'docs-file',
    'docs-source-s3',
    'docs-table-parquet',
    'docs-table-text',
    'docs-view',
    'docs-view-by-distance',
    'dremio_client-source-adls',
    'dremio_client-folder-nyctaxi',
    'dremio_client-dataset-profiles',
  ].map(
    (fixture): Case => ({
      fixture,
      args: ['catalog', 'get', `--id`, json(fixture).id],
      shows: [json(fixture).id],
    }),
  ),
  ...['docs-source-s3', 'dremio_client-source-adls'].map(
    (fixture): Case => ({
      fixture,
      args: ['source', 'get', json(fixture).name ?? 'src'],
      shows: [json(fixture).id, json(fixture).type],
    }),
  ),
  // Children of containers, file-system folders among them (their names come wrapped in literal quotes).
  ...[
    'docs-folder-fs',
    'docs-folder-space',
    'docs-home',
    'docs-space',
    'dremio_client-source-adls',
    'dremio_client-folder-nyctaxi',
  ].map(
    (fixture): Case => ({
      fixture,
      args: ['catalog', 'ls', '--id', json(fixture).id],
      printed: (b) => b.children,
      shows: json(fixture).children.map((c: { id: string }) => c.id),
    }),
  ),
  // Tags and wiki.
  ...['docs-tags', 'docs-tags-empty'].map(
    (fixture): Case => ({
      fixture,
      args: ['catalog', 'tags', 'Example-Space'],
      routes: [get(`/api/v3/catalog/${json('docs-space').id}/collaboration/tag`, fixture), entity],
      shows: json(fixture).tags,
    }),
  ),
  ...['docs-wiki', 'docs-wiki-empty'].map(
    (fixture): Case => ({
      fixture,
      args: ['catalog', 'wiki', 'Example-Space'],
      routes: [get(`/api/v3/catalog/${json('docs-space').id}/collaboration/wiki`, fixture), entity],
      shows: [],
      formats: ['json', 'csv'],
    }),
  ),
  // Jobs: completed, accelerated, canceled, failed, running; results.
  ...[
    'docs-job-completed-accelerated',
    'docs-job-canceled',
    'docs-job-failed',
    'docs-job-running',
    'dremio_client-job-completed',
  ].map((fixture): Case => ({ fixture, args: ['job', 'get', UUID], shows: [json(fixture).jobState] })),
  {
    fixture: 'dremio_client-job-results',
    args: ['job', 'results', UUID],
    routes: [
      get(`/api/v3/job/${UUID}/results`, 'dremio_client-job-results'),
      get(`/api/v3/job/${UUID}`, 'dremio_client-job-completed'),
    ],
    printed: (b) => b.rows,
    shows: [json('dremio_client-job-results').rows[0].name],
  },
  // Users: local, external, service; PATs.
  ...['docs-user-local', 'docs-user-external', 'docs-user-external-viewer', 'docs-user-service'].map(
    (fixture): Case => ({
      fixture,
      args: ['user', 'get', json(fixture).name],
      shows: [json(fixture).id, json(fixture).name],
    }),
  ),
  ...['docs-user-local', 'docs-user-service'].map(
    (fixture): Case => ({ fixture, args: ['user', 'get', json(fixture).id], shows: [json(fixture).name] }),
  ),
  {
    fixture: 'docs-pat-list',
    args: ['pat', 'list', UUID],
    printed: (b) => b.data,
    shows: json('docs-pat-list').data.map((p: { tid: string }) => p.tid),
  },
  // Queues and the reflection summary.
  {
    fixture: 'docs-queue',
    args: ['queue', 'get', json('docs-queue').id],
    shows: [json('docs-queue').name],
  },
  {
    fixture: 'docs-queue-list',
    args: ['queue', 'list'],
    printed: (b) => b.data,
    shows: json('docs-queue-list').data.map((q: { name: string }) => q.name),
  },
  {
    fixture: 'docs-reflection-summary',
    // One recorded page: --limit stops before its nextPageToken would be followed.
    args: ['reflection', 'summary', '--limit', String(json('docs-reflection-summary').data.length)],
    printed: (b) => b.data,
    shows: json('docs-reflection-summary').data.map((r: { name: string }) => r.name),
  },
  // The hosted edition's published examples, on its roots (docs/api-facts.md §13).
  {
    fixture: 'cloud-docs-project',
    args: ['project', 'get', json('cloud-docs-project').id],
    routes: [get(`/v0/projects/${json('cloud-docs-project').id}`, 'cloud-docs-project')],
    shows: [json('cloud-docs-project').name, 'ACTIVE'],
    env: HOSTED,
  },
  {
    fixture: 'cloud-docs-engine',
    args: ['engine', 'get', json('cloud-docs-engine').id],
    routes: [get(`/v0/projects/${UUID}/engines/${json('cloud-docs-engine').id}`, 'cloud-docs-engine')],
    shows: [json('cloud-docs-engine').name, 'XX_SMALL_V1', '5m'],
    env: HOSTED,
  },
  {
    fixture: 'cloud-docs-engine-rules',
    args: ['engine', 'rules'],
    routes: [get(`/v0/projects/${UUID}/rules`, 'cloud-docs-engine-rules')],
    printed: (b) => b.ruleSet,
    shows: ['UI Previews', 'Reflections', 'All Other Queries', 'preview'],
    env: HOSTED,
  },
  {
    fixture: 'cloud-docs-user',
    args: ['user', 'get', json('cloud-docs-user').id],
    routes: [get(`/v0/users/${json('cloud-docs-user').id}`, 'cloud-docs-user')],
    shows: [json('cloud-docs-user').name, 'REGULAR_USER'],
    env: HOSTED,
  },
];

const FORMATS = ['table', 'json', 'csv'] as const;

describe('real answers, every read command, every format', () => {
  for (const c of CASES) {
    describe(`${c.fixture}: dlake ${c.args.join(' ')}`, () => {
      for (const format of c.formats ?? FORMATS) {
        it(`-o ${format}`, async () => {
          const stub = await startStub(c.routes ?? [get('/api/v3/*', c.fixture)]);
          try {
            const r = await runInProcess([...c.args, '-o', format], {
              env: {
                DLAKE_URL: stub.url,
                DLAKE_TOKEN: 'replay-token',
                DLAKE_CONFIG_DIR: configDir,
                ...c.env,
              },
            });
            expect(r.stderr).not.toMatch(/^error:/m);
            expect(r.code).toBe(0);
            if (format === 'json') {
              const expected = (c.printed ?? ((b) => b))(json(c.fixture));
              // Compared as text, not deeply: the keys must come in the server's order.
              expect(JSON.stringify(JSON.parse(r.stdout))).toBe(JSON.stringify(expected));
            } else {
              // csv: the values of the cells (quotes in ids are doubled in the file).
              const shown = format === 'csv' ? parseCsv(r.stdout).flat().join('\n') : r.stdout;
              for (const s of c.shows) expect(shown).toContain(s);
            }
          } finally {
            await stub.close();
          }
        });
      }
    });
  }
});

describe('real answers to writes, logins and errors', () => {
  /** Runs with a config folder of its own (logins store profiles); `token`: DLAKE_TOKEN for the call. */
  async function against(
    routes: StubRoute[],
    args: string[],
    opts: { input?: string; token?: boolean } = {},
  ) {
    const stub = await startStub(routes);
    const dir = mkdtempSync(join(tmpdir(), 'dlake-replay-'));
    try {
      const env: Record<string, string> = { DLAKE_URL: stub.url, DLAKE_CONFIG_DIR: dir };
      if (opts.token) env.DLAKE_TOKEN = 'replay-token';
      const r = await runInProcess(args, { env, input: opts.input });
      return { ...r, requests: stub.requests, bodies: stub.bodies };
    } finally {
      await stub.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('password login: the legacy login answer of a real server', async () => {
    const login = json('kanodoe-login');
    // Its `expires` lies in the past (the recording is old): the login is stored all the same.
    const r = await against(
      [{ method: 'POST', path: '/apiv2/login', body: text('kanodoe-login') }],
      ['login', '-u', login.userName, '--password-stdin'],
      { input: 'not-a-real-password\n' },
    );
    expect(r.stderr).not.toMatch(/^error:/m);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`as ${login.userName}`);
  });

  for (const fixture of ['docs-oauth-client-credentials', 'docs-oauth-token-exchange']) {
    it(`token endpoint: ${fixture}`, async () => {
      const r = await against(
        [{ method: 'POST', path: '/oauth/token', body: text(fixture) }],
        [
          'token',
          'exchange',
          'client-credentials',
          '--client-id',
          'c',
          '--client-secret-stdin',
          '--print',
          '-p',
          'replay-oauth',
        ],
        { input: 'not-a-real-secret\n' },
      );
      expect(r.stderr).not.toMatch(/^error:/m);
      expect(r.code).toBe(0);
      expect(r.stdout.trim()).toBe(json(fixture).access_token);
    });
  }

  it('user update of a service user, which has no tag: the PUT goes without one', async () => {
    const user = json('docs-user-service');
    const r = await against(
      [
        { method: 'GET', path: `/api/v3/user/by-name/${user.name}`, body: text('docs-user-service') },
        { method: 'GET', path: `/api/v3/user/${user.id}`, body: text('docs-user-service') },
        { method: 'PUT', path: `/api/v3/user/${user.id}`, body: text('docs-user-service') },
      ],
      ['user', 'update', user.name, '--email', 'svc@example.com'],
      { token: true },
    );
    expect(r.stderr).not.toMatch(/^error:/m);
    expect(r.code).toBe(0);
    expect(r.requests).toContain(`PUT /api/v3/user/${user.id}`);
    const sent = JSON.parse(r.bodies.at(-1)!);
    expect(sent).toMatchObject({ id: user.id, name: user.name, email: 'svc@example.com' });
    expect(sent).not.toHaveProperty('tag');
  });

  for (const fixture of ['docs-sql-submitted', 'dremio_client-sql-submitted']) {
    it(`job submission: ${fixture}`, async () => {
      const r = await against(
        [{ method: 'POST', path: '/api/v3/sql', body: text(fixture) }],
        ['sql', 'SELECT 1', '--no-wait'],
        { token: true },
      );
      expect(r.code).toBe(0);
      expect(r.stdout.trim()).toBe(json(fixture).id);
    });
  }

  it.each([
    [404, 4],
    [400, 2],
    [403, 3],
  ])(
    'the published error body with status %i: exit %i, its errorMessage on the error line',
    async (status, code) => {
      const r = await against(
        [{ method: 'GET', path: '/api/v3/*', status, body: text('docs-error') }],
        ['catalog', 'get', '--id', UUID],
        { token: true },
      );
      expect(r.code).toBe(code);
      expect(r.stderr.split('\n').filter((l) => l.startsWith('error:'))).toEqual([
        expect.stringContaining(json('docs-error').errorMessage),
      ]);
      expect(r.stdout).toBe('');
    },
  );
});

describe('file-system paths with literal quotes round-trip', () => {
  it('prints them as the user types them, and a pasted path asks for the bare names', async () => {
    const folder = json('dremio_client-folder-nyctaxi');
    const stub = await startStub([get('/api/v3/*', 'dremio_client-folder-nyctaxi')]);
    try {
      const env = { env: { DLAKE_URL: stub.url, DLAKE_TOKEN: 'replay-token', DLAKE_CONFIG_DIR: configDir } };
      const ls = await runInProcess(['catalog', 'ls', '--id', folder.id, '-o', 'csv'], env);
      expect(ls.code).toBe(0);
      const rows = parseCsv(ls.stdout);
      // The recorded component is `"yellow_tripdata_2009-01.csv"`, quotes included.
      expect(folder.children[0].path[2]).toBe('"yellow_tripdata_2009-01.csv"');
      expect(rows[1]![0]).toBe('adls/nyctaxi/yellow_tripdata_2009-01.csv');
      for (const row of rows.slice(1)) expect(row[0]).not.toContain('"');

      // Pasted back, the path resolves by its bare names (as the service reads the folder itself).
      stub.requests.length = 0;
      const get2 = await runInProcess(['catalog', 'get', rows[1]![0]!, '-o', 'json'], env);
      expect(get2.code).toBe(0);
      expect(stub.requests[0]).toMatch(
        /^GET \/api\/v3\/catalog\/by-path\/adls\/nyctaxi\/yellow_tripdata_2009-01\.csv/,
      );
    } finally {
      await stub.close();
    }
  });
});

// The operations commands (job list, search, job profile) on recorded answers.
const PID = UUID;
const JOB = '2f067496-7cf0-a70e-0222-34d53a5dc800';

/** A history query answered with `results` (a recorded body), under `root` (`/api/v3` or the project's). */
function historyRoutes(root: string, results: string): StubRoute[] {
  return [
    { method: 'POST', path: `${root}/sql`, body: JSON.stringify({ id: JOB }) },
    { method: 'GET', path: `${root}/job/${JOB}/results`, body: results },
    {
      method: 'GET',
      path: `${root}/job/${JOB}`,
      body: JSON.stringify({ jobState: 'COMPLETED', rowCount: 2 }),
    },
  ];
}

async function runStub(routes: StubRoute[], args: string[], env: Record<string, string> = {}) {
  const stub = await startStub(routes);
  try {
    const r = await runInProcess(args, {
      env: { DLAKE_CONFIG_DIR: configDir, DLAKE_URL: stub.url, DLAKE_TOKEN: 'replay-token', ...env },
    });
    return { ...r, requests: stub.requests };
  } finally {
    await stub.close();
  }
}

describe('job list on recorded history tables', () => {
  it('self-hosted sys.jobs_recent (epoch millis, datasets as a string, ids that are not UUIDs)', async () => {
    const r = await runStub(historyRoutes('/api/v3', text('ddc-sys-jobs-recent')), [
      'job',
      'list',
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const [first, second] = JSON.parse(r.stdout);
    expect(first).toMatchObject({
      id: 'Query1',
      state: 'FAILED',
      user: 'dremio_user',
      submittedAt: '2024-04-24T14:26:23.248Z',
      endedAt: '2024-04-24T14:26:23.250Z',
      durationMs: 2,
      queue: null,
      error: "Object 'example_view' not found [...]",
      datasets: [],
    });
    expect(second).toMatchObject({
      id: 'Query2',
      datasets: ['sys.jobs'],
      queue: 'Low Cost User Queries',
      durationMs: 55,
      error: null,
    });
    const table = await runStub(historyRoutes('/api/v3', text('ddc-sys-jobs-recent')), ['job', 'list']);
    expect(table.stdout).toContain('Low Cost User Queries');
  });

  it('hosted sys.project.history.jobs (nanosecond epochs, datasets as arrays, no schema)', async () => {
    const root = `/v0/projects/${PID}`;
    const r = await runStub(
      historyRoutes(root, text('ddc-sys-project-history-jobs')),
      ['job', 'list', '-o', 'json'],
      {
        DLAKE_EDITION: 'cloud',
        DLAKE_PROJECT_ID: PID,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const [first, second] = JSON.parse(r.stdout);
    expect(first).toMatchObject({
      id: '1c38de7b-1028-54d9-e238-87eae52bc200',
      state: 'FAILED',
      user: '$dremio$',
      submittedAt: '2023-01-17T22:30:28.723Z',
      durationMs: 102,
      datasets: [],
      queue: null,
    });
    expect(second).toMatchObject({
      datasets: ['max-margalith-test-s3.eks-test.userdata1.csv'],
      engine: 'preview',
      queue: 'SMALL',
      durationMs: 1873,
    });
    expect(r.requests[0]).toBe(`POST ${root}/sql`);
  });
});

describe('search on the published examples', () => {
  for (const [fixture, env, path] of [
    ['docs-search', {}, '/api/v3/search'],
    ['cloud-docs-search', { DLAKE_EDITION: 'cloud', DLAKE_PROJECT_ID: PID }, `/v0/projects/${PID}/search`],
  ] as const) {
    it(`${fixture}: a result with neither category nor id, lastModifiedAt or modifiedAt`, async () => {
      const r = await runStub(
        [{ method: 'POST', path, body: text(fixture) }],
        ['search', 'orders', '--limit', '1', '-o', 'json'],
        env,
      );
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([
        expect.objectContaining({
          kind: 'table',
          path: ['Prod', 'Sales', 'Orders'],
          id: null,
          lastModifiedAt: '2024-01-01T10:00:00Z',
        }),
      ]);
      // One page for --limit 1, though the answer offers a next one.
      expect(r.requests.filter((q) => q.startsWith('POST'))).toEqual([`POST ${path}`]);
    });
  }
});

describe('job profile on a recorded download', () => {
  it('summarises the profile a real server produced', async () => {
    const { summariseProfile } = await import('../../src/api/profile.js');
    const s = summariseProfile(readFileSync(join(DIR, 'dqd-profile.json')), 2);
    expect(s).toMatchObject({
      user: 'rssvihla',
      totalMs: 1781,
      planningMs: 88,
      queuedMs: 32,
      queue: 'Low Cost User Queries',
    });
    expect(s.operators.map((o) => `${o.operator} ${o.type}`)).toEqual([
      '00-06 HASH_AGGREGATE',
      '00-07 TEXT_SUB_SCAN',
    ]);
  });
});

describe('the collection', () => {
  it('holds at least 30 recorded bodies, each replayed by a test above and named in the README', () => {
    const files = readdirSync(DIR)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -'.json'.length));
    expect(files.length).toBeGreaterThanOrEqual(30);
    const replayed = new Set([
      ...CASES.flatMap((c) => [c.fixture, ...(c.routes ?? []).map((r) => r.fixture)]),
      ...OTHER_REPLAYS,
    ]);
    const readme = readFileSync(join(DIR, 'README.md'), 'utf8');
    for (const f of files) {
      expect(replayed.has(f), `${f} is replayed`).toBe(true);
      expect(readme, `${f} has its origin in the README`).toContain(`\`${f}.json\``);
    }
  });
});
