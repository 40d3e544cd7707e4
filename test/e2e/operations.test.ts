// The operations commands against the emulator on both editions (docs/cli-contract.md "Operations insight"):
// job list (every filter in one SQL query, both tables' shapes in one JSON shape, every format, --out), job why,
// job profile, top --once and search, with the bad inputs the contract names.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../helpers/csv.js';
import { ADMIN, expectFailure, type Fixture, startFixture, useFixture } from '../helpers/fixture.js';
import { type HostileServer, startHostileServer } from '../helpers/hostile/server.js';
import { runInProcess } from '../helpers/in-process.js';
import { until } from '../helpers/until.js';
import { type StubRoute, startStub } from '../replay/stub.js';

const dir = mkdtempSync(join(tmpdir(), 'dlake-ops-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sqlOf = (fx: Fixture) =>
  fx.emu.log.entries.filter((e) => e.method === 'POST' && e.path.endsWith('/sql')).length;
/** A query without the mark of dlake's own history reads (test/e2e/admin-day.test.ts checks it). */
const unmarked = (sql: string) =>
  sql
    .replace("query NOT LIKE '%/* dlake: job history */%' AND ", '')
    .replace(" WHERE query NOT LIKE '%/* dlake: job history */%'", '')
    .replace(' /* dlake: job history */', '');
/** The last query run, unmarked. */
const lastSql = (fx: Fixture) => unmarked(fx.emu.jobs.list().at(-1)!.sql);

/**
 * Each command line in every output format: exit 0, and JSON or NDJSON that parses. The runs go at once (each
 * mostly waits for its queries' jobs).
 */
async function everyFormat(fx: Fixture, commands: string[][], env?: Record<string, string>): Promise<void> {
  const runs = ['table', 'csv', 'ndjson', 'json'].flatMap((format) =>
    commands.map((args) => ({ format, args: [...args, '-o', format] })),
  );
  const results = await Promise.all(runs.map(({ args }) => fx.run(args, { env })));
  for (const [k, { format, args }] of runs.entries()) {
    const r = results[k]!;
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    if (format === 'json') JSON.parse(r.stdout);
    if (format === 'ndjson') for (const line of r.stdout.split('\n').filter(Boolean)) JSON.parse(line);
  }
}

describe('self-hosted', () => {
  const fx = useFixture({ jobHistory: 100_000 });

  it('job list: one query on sys.jobs_recent, whatever the history holds, newest first', async () => {
    const r = await fx.run(['job', 'list', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const jobs = JSON.parse(r.stdout);
    expect(jobs).toHaveLength(50);
    expect(sqlOf(fx)).toBe(1);
    expect(lastSql(fx)).toBe('SELECT * FROM sys.jobs_recent ORDER BY submitted_ts DESC LIMIT 50');
    expect(Object.keys(jobs[0])).toEqual([
      'id',
      'state',
      'user',
      'queryType',
      'submittedAt',
      'endedAt',
      'durationMs',
      'rowsReturned',
      'rowsScanned',
      'bytesScanned',
      'queue',
      'engine',
      'accelerated',
      'error',
      'datasets',
      'query',
    ]);
    const times = jobs.map((j: { submittedAt: string }) => Date.parse(j.submittedAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    // Results pages read: one (50 rows), whatever the 100,000 jobs of the history.
    expect(fx.emu.log.entries.filter((e) => e.path.endsWith('/results'))).toHaveLength(1);
  });

  it('job list: every filter goes into the SQL, names with quotes survive', async () => {
    const r = await fx.run([
      'job',
      'list',
      '--status',
      'failed,canceled',
      '--user',
      "o'brien",
      '--since',
      '30d',
      '--type',
      'ui_run',
      '--min-duration',
      '1s',
      '--text',
      "50%_'x",
      '--not-accelerated',
      '--queue',
      'Low Cost User Queries',
      '--limit',
      '7',
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const sql = lastSql(fx);
    expect(sql).toContain("status IN ('FAILED', 'CANCELED')");
    expect(sql).toContain("user_name = 'o''brien'");
    expect(sql).toContain("query_type = 'UI_RUN'");
    expect(sql).toContain("queue_name = 'Low Cost User Queries'");
    expect(sql).toContain('final_state_epoch_millis - submitted_epoch_millis >= 1000');
    expect(sql).toContain("LOWER(query) LIKE '%50\\%\\_''x%' ESCAPE '\\'");
    expect(sql).toContain('accelerated = FALSE');
    expect(sql).toMatch(/submitted_ts >= TIMESTAMP '\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}'/);
    expect(sql.endsWith('ORDER BY submitted_ts DESC LIMIT 7')).toBe(true);
    expect(JSON.parse(r.stdout)).toEqual([]);
    const obrien = JSON.parse(
      (await fx.run(['job', 'list', '--user', "o'brien", '--limit', '3', '-o', 'json'])).stdout,
    );
    expect(obrien).toHaveLength(3);
    for (const j of obrien) expect(j).toMatchObject({ user: "o'brien" });
    const failed = JSON.parse(
      (await fx.run(['job', 'list', '--user', 'analyst', '--status', 'FAILED', '--limit', '3', '-o', 'json']))
        .stdout,
    );
    expect(failed).toHaveLength(3);
    for (const j of failed)
      expect(j).toMatchObject({
        user: 'analyst',
        state: 'FAILED',
        error: expect.stringMatching(/not found/),
      });
  });

  it('job list in every format, and --out a CSV file', async () => {
    // The runs at once (each waits for its query's job).
    const formats = ['table', 'csv', 'ndjson'];
    const files = ['jobs.csv', 'jobs.parquet', 'jobs.ndjson.gz', 'jobs.json'];
    const [shown, written] = await Promise.all([
      Promise.all(formats.map((format) => fx.run(['job', 'list', '--limit', '3', '-o', format]))),
      Promise.all(files.map((file) => fx.run(['job', 'list', '--limit', '5', '--out', join(dir, file)]))),
    ]);
    for (const [k, format] of formats.entries()) {
      const r = shown[k]!;
      expect(r.code, r.stderr).toBe(0);
      if (format === 'table') expect(r.stdout).toMatch(/JOB ID\s+STATE\s+USER/);
      if (format === 'csv') expect(parseCsv(r.stdout)[0]).toContain('submittedAt');
      if (format === 'ndjson') expect(r.stdout.trim().split('\n')).toHaveLength(3);
    }
    for (const [k, file] of files.entries()) {
      const w = written[k]!;
      expect(w.code, w.stderr).toBe(0);
      expect(w.stderr).toContain(`wrote 5 jobs to ${join(dir, file)}`);
    }
    const rows = parseCsv(readFileSync(join(dir, 'jobs.csv'), 'utf8'));
    expect(rows).toHaveLength(6);
    expect(rows[0]![0]).toBe('id');
    expect(readFileSync(join(dir, 'jobs.parquet')).subarray(0, 4).toString()).toBe('PAR1');
    expect(JSON.parse(readFileSync(join(dir, 'jobs.json'), 'utf8'))).toHaveLength(5);
  });

  it('every output format of job why, job profile, top and search', async () => {
    await fx.run(['sql', 'SELECT COUNT(*) AS n FROM big']);
    const id = fx.emu.jobs.list().at(-1)!.id;
    await everyFormat(fx, [
      ['job', 'why', id],
      ['job', 'profile', id],
      ['top', '--once'],
      ['search', 'orders'],
    ]);
  });

  it('job list refuses a malformed --since with exit 2 before any request', async () => {
    const r = await fx.run(['job', 'list', '--since', 'yesterday']);
    expectFailure(r, 2, '--since "yesterday" is neither a duration back from now nor an ISO 8601 time');
    expect(fx.emu.log.entries).toEqual([]);
  });

  it('job list refuses a day the calendar lacks and a time before the year 1 (exit 2), sending nothing', async () => {
    fx.emu.log.clear();
    expectFailure(
      await fx.run(['job', 'list', '--since', '2026-02-30']),
      2,
      '--since "2026-02-30" is neither a duration back from now nor an ISO 8601 time',
    );
    expectFailure(
      await fx.run(['job', 'list', '--until', '2025-02-29T10:00:00Z']),
      2,
      '--until "2025-02-29T10:00:00Z" is neither',
    );
    expectFailure(
      await fx.run(['job', 'list', '--since', '100000000d']),
      2,
      '--since "100000000d" goes back before the year 1',
    );
    expect(fx.emu.log.entries).toEqual([]);
    // A leap day that exists, and a long way back that does not cross the year 1, are taken.
    expect((await fx.run(['job', 'list', '--since', '2024-02-29', '--limit', '1'])).code).toBe(0);
    expect((await fx.run(['job', 'list', '--since', '700000d', '--limit', '1'])).code).toBe(0);
  });

  it('job list --wait-timeout bounds the wait for its query: exit 7 naming it', async () => {
    // Every status poll takes 10 s: the query is never seen to end within the bound.
    fx.emu.fault({ kind: 'latency', method: 'GET', path: '/api/v3/job/', latencyMs: 10_000 });
    try {
      const r = await fx.run(['job', 'list', '--wait-timeout', '500ms']);
      expectFailure(r, 7, '500ms');
    } finally {
      fx.emu.faults.clear();
    }
  });

  it('job why: timings, queue and rule, reflections with their datasets; unknown ids exit 4, bad ids 2', async () => {
    const run = await fx.run(['sql', 'SELECT COUNT(*) AS n FROM big', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    const id = fx.emu.jobs.list().at(-1)!.id;
    const r = await fx.run(['job', 'why', id, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const why = JSON.parse(r.stdout);
    expect(why).toMatchObject({ id, state: 'COMPLETED', rowsReturned: 1, datasets: ['big'] });
    expect(why.timings.executionMs).toBeGreaterThanOrEqual(0);
    expect(why.reflections.map((x: { relationship: string }) => x.relationship)).toEqual([
      'CHOSEN',
      'MATCHED',
      'CONSIDERED',
    ]);
    expect(lastSql(fx)).toBe(`SELECT * FROM sys.jobs_recent WHERE job_id = '${id}'`);
    const table = await fx.run(['job', 'why', id]);
    expect(table.stdout).toMatch(/reflections chosen/);
    fx.emu.log.clear();
    const unknown = await fx.run(['job', 'why', '11111111-2222-4333-8444-555555555555']);
    expectFailure(unknown, 4, 'not found: job 11111111-2222-4333-8444-555555555555');
    expect(unknown.stderr).toContain('dlake job list');
    fx.emu.log.clear();
    const bad = await fx.run(['job', 'why', "x' OR 1=1 --"]);
    expectFailure(bad, 2, 'is not a job id');
    // The id was never looked up: the listing shows what one looks like.
    expect(bad.stderr).toContain('hint: copy one from the ID column of `dlake job list`');
    expect(fx.emu.log.entries).toEqual([]);
  });

  it('job profile: a summary from the download, and --out saves the zip whole', async () => {
    await fx.run(['sql', 'SELECT * FROM big ORDER BY id', '--max-rows', '1']);
    const id = fx.emu.jobs.list().at(-1)!.id;
    const r = await fx.run(['job', 'profile', id, '--top', '3', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const p = JSON.parse(r.stdout);
    expect(p.operators).toHaveLength(3);
    expect(p.operators[0]).toMatchObject({ operator: '00-02', type: 'EXTERNAL_SORT' });
    expect(p.spills).toContainEqual({
      operator: '00-02',
      type: 'EXTERNAL_SORT',
      metric: 'SPILL_COUNT',
      value: 2,
    });
    expect(p.reflections).toHaveLength(1);
    const out = join(dir, 'p.zip');
    const s = await fx.run(['job', 'profile', id, '--out', out]);
    expect(s.code, s.stderr).toBe(0);
    expect(readFileSync(out).readUInt32LE(0)).toBe(0x04034b50);
    const unknown = await fx.run(['job', 'profile', '11111111-2222-4333-8444-555555555555']);
    expectFailure(unknown, 4, 'not found: job 11111111-2222-4333-8444-555555555555');
    expect(unknown.stderr).toContain('dlake job list');
  });

  it('top --once: the running jobs as job list objects, without its own query; one query', async () => {
    // Held running (the emulator's `sleep:` hint) until the test cancels it.
    const held = 'SELECT /* sleep:600000 */ 1 AS x';
    const id = (await fx.run(['sql', held, '--no-wait'])).stdout.trim();
    await until(() => fx.emu.jobs.get(id)?.state === 'RUNNING', 'the job runs');
    fx.emu.log.clear();
    const r = await fx.run(['top', '--once', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const jobs = JSON.parse(r.stdout);
    expect(jobs.map((j: { query: string }) => j.query)).toEqual([held]);
    expect(sqlOf(fx)).toBe(1);
    expect(lastSql(fx)).toMatch(/^SELECT \* FROM sys\.jobs WHERE status NOT IN/);
    expect((await fx.run(['job', 'cancel', id, '-y'])).code).toBe(0);
  });

  it('search: the unified form, pages followed to --limit, the form remembered in the profile', async () => {
    const create = (entity: object) =>
      fx.run(['catalog', 'create', '--file', '-'], { input: JSON.stringify(entity) });
    expect((await create({ entityType: 'space', name: 'OpsSearch' })).code).toBe(0);
    for (let i = 0; i < 3; i++) {
      expect((await create({ entityType: 'folder', path: ['OpsSearch', `orders_${i}`] })).code).toBe(0);
    }
    fx.emu.log.clear();
    const r = await fx.run(['search', 'orders_', '--type', 'folder', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).map((h: { path: string[] }) => h.path.join('/'))).toEqual([
      'OpsSearch/orders_0',
      'OpsSearch/orders_1',
      'OpsSearch/orders_2',
    ]);
    expect(fx.emu.log.entries.map((e) => `${e.method} ${e.path}`)).toEqual(['POST /api/v3/search']);
    expect(fx.readJson('config.json').profiles.default.searchForm).toBe('unified');
  });

  it('search follows pages to --limit: at most ⌈limit/page⌉ requests', async () => {
    const store = fx.emu.catalog.store;
    for (let i = 0; i < 130; i++) {
      store.insert({
        ...store.stamp(),
        kind: 'folder',
        path: ['OpsSearch', `many_${String(i).padStart(3, '0')}`],
      });
    }
    fx.emu.log.clear();
    const r = await fx.run(['search', 'many_', '--limit', '70', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const hits = JSON.parse(r.stdout);
    expect(hits).toHaveLength(70);
    expect(hits[69].path).toEqual(['OpsSearch', 'many_069']);
    expect(fx.emu.log.entries.map((e) => `${e.method} ${e.path}`)).toEqual([
      'POST /api/v3/search',
      'POST /api/v3/search',
    ]);
  });
});

describe('search inside sources, in both forms of the service', () => {
  for (const form of ['unified', 'catalog'] as const) {
    it(`${form}: a source's folders at any depth, and its files once they are tables; never a plain file`, async () => {
      const fx = await startFixture({
        search: form,
        samplesDir: join(import.meta.dirname, '../fixtures/samples'),
      });
      try {
        expect((await fx.login()).code).toBe(0);
        const hits = async (...args: string[]) => {
          const r = await fx.run(['search', ...args, '-o', 'json']);
          expect(r.code, r.stderr).toBe(0);
          return (JSON.parse(r.stdout) as { kind: string; path: string[] }[]).map(
            (h) => `${h.kind} ${h.path.join('/')}`,
          );
        };
        expect(await hits('deeper')).toEqual(['folder Samples/nested/deeper']);
        expect(await hits('e', '--type', 'folder')).toEqual([
          'folder Samples/nested',
          'folder Samples/nested/deeper',
          'folder Samples/sales',
        ]);
        // A file is no entry of the catalog until it is a table (here, made one by the first query that reads it).
        expect(await hits('events')).toEqual([]);
        expect((await fx.run(['sql', 'SELECT COUNT(*) AS n FROM Samples."events.parquet"'])).code).toBe(0);
        // (The unified form finds the job that read it too: a job hit, which has no path.)
        expect(await hits('events', '--type', 'table')).toEqual(['table Samples/events.parquet']);
        // The table prints KIND and PATH as catalog get takes it back.
        const table = await fx.run(['search', 'deeper']);
        expect(table.stdout).toMatch(/^FOLDER +Samples\/nested\/deeper +service:\/Samples\/nested\/deeper$/m);
        const id = (await fx.run(['catalog', 'get', 'Samples/nested/deeper', '-o', 'json'])).stdout;
        expect(JSON.parse(id).id).toBe('service:/Samples/nested/deeper');
      } finally {
        await fx.close();
      }
    });
  }
});

describe('search against a server that changes or repeats itself', () => {
  let hostile: HostileServer;
  const fx = useFixture({}, { login: false });
  beforeAll(async () => {
    hostile = await startHostileServer(fx.emu.url);
    const login = await fx.run(['login', '-u', ADMIN.name, '--password-stdin', '--url', hostile.url], {
      input: `${ADMIN.password}\n`,
      url: false,
    });
    expect(login.code, login.stderr).toBe(0);
    const store = fx.emu.catalog.store;
    store.insert({ ...store.stamp(), kind: 'space', path: ['Loop'] });
    for (let i = 0; i < 3; i++)
      store.insert({ ...store.stamp(), kind: 'folder', path: ['Loop', `page_${i}`] });
  });
  afterAll(async () => {
    await hostile.close();
  });

  it('an empty page ends the search, whatever token it carries', async () => {
    hostile.reset({ rule: { kind: 'pages', how: 'empty-with-token' }, reach: { from: 0, times: 'all' } });
    const r = await fx.run(['search', 'page_', '-o', 'json'], { url: false });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
    expect(hostile.exchanges).toHaveLength(1);
  });

  it.each([
    ['repeat-token', 'the service sent the same nextPageToken twice while listing POST /api/v3/search'],
    ['identical-pages', 'the service sent the same page twice while listing POST /api/v3/search'],
  ] as const)('%s: exit 7 after one repeat, nothing printed', async (how, message) => {
    hostile.reset({ rule: { kind: 'pages', how }, reach: { from: 0, times: 'all' } });
    const r = await fx.run(['search', 'page_'], { url: false });
    expectFailure(r, 7, message);
    expect(hostile.exchanges.length).toBeLessThanOrEqual(3);
  });

  it.each([[['job', 'list', '-o', 'json']], [['top', '--once', '-o', 'json']]])(
    '%j: a history row whose times are out of any calendar is shown without them, not a crash',
    async (args) => {
      expect((await fx.run(['sql', 'SELECT 1 AS x'], { url: false })).code).toBe(0);
      for (const value of [8.64e15 + 1, -1e20, 1e300]) {
        hostile.reset({ rule: { kind: 'times', value }, reach: { from: 0, times: 'all' } });
        const r = await fx.run(args, { url: false });
        expect(r.stderr).not.toMatch(/Invalid time value|unexpected failure/);
        expect(r.code, r.stderr).toBe(0);
      }
    },
  );

  it('the remembered form is detected again when it answers 404 (the server changed)', async () => {
    hostile.reset();
    expect((await fx.run(['search', 'page_'], { url: false })).code).toBe(0);
    expect(fx.readJson('config.json').profiles.default.searchForm).toBe('unified');
    // The server now serves the open-source form only.
    hostile.reset({
      rule: { kind: 'status', status: 404, body: 'empty' },
      reach: { from: 0, times: 1 },
    });
    const r = await fx.run(['search', 'page_', '-o', 'json'], { url: false });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(3);
    expect(hostile.exchanges.map((e) => `${e.method} ${e.path.split('?')[0]}`)).toEqual([
      'POST /api/v3/search',
      'GET /api/v3/catalog/search',
    ]);
    expect(fx.readJson('config.json').profiles.default.searchForm).toBe('catalog');
  });
});

describe('self-hosted without sys.jobs_recent, with the open-source search', () => {
  const fx = useFixture({ jobsRecent: false, search: 'catalog', jobHistory: 30 });

  it('job list falls back to sys.jobs', async () => {
    const r = await fx.run(['job', 'list', '--limit', '4', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(4);
    expect(
      fx.emu.jobs
        .list()
        .slice(-2)
        .map((j) => j.sql.split(' WHERE')[0]),
    ).toEqual(['SELECT * FROM sys.jobs_recent', 'SELECT * FROM sys.jobs']);
  });

  it('search detects the open-source form on 404, remembers it, and asks it alone next time', async () => {
    const c = await fx.run(['catalog', 'create', '--file', '-'], {
      input: '{"entityType": "space", "name": "Sales"}',
    });
    expect(c.code, c.stderr).toBe(0);
    fx.emu.log.clear();
    const r = await fx.run(['search', 'sal', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)[0]).toMatchObject({ kind: 'space', path: ['Sales'] });
    expect(fx.emu.log.entries.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([
      'POST /api/v3/search 404',
      'GET /api/v3/catalog/search 200',
    ]);
    fx.emu.log.clear();
    expect((await fx.run(['search', 'sal'])).code).toBe(0);
    expect(fx.emu.log.entries.map((e) => `${e.method} ${e.path}`)).toEqual(['GET /api/v3/catalog/search']);
  });
});

describe('hosted', () => {
  const PID = '11111111-2222-4333-8444-555555555555';
  let env: Record<string, string>;
  // The emulator's rate limits ten times the published ones: the runs of one test go at once (everyFormat), which
  // the published limits, counting every request from this one address (docs/api-facts.md §13.5), met with 429s
  // and Retry-After waits of up to a minute. Keeping within them is test/e2e/hosted-pacing.test.ts's.
  const fx = useFixture(
    {
      edition: 'cloud',
      cloud: { projectId: PID, rateLimits: { api: 12_000, results: 10_000, status: 1_000, cancel: 1_000 } },
      jobHistory: 500,
    },
    { login: false },
  );
  beforeAll(async () => {
    const pat = fx.emu.state.issueToken(fx.emu.state.userByName('admin')!.id, 'pat', 3_600_000).token;
    env = { DLAKE_EDITION: 'cloud', DLAKE_PROJECT_ID: PID, DLAKE_TOKEN: pat };
  });

  it('job list reads sys.project.history.jobs and sys.project.jobs: nanosecond epochs and dataset arrays in the one shape', async () => {
    const r = await fx.run(['job', 'list', '--limit', '3', '--min-duration', '1s', '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const where = 'WHERE final_state_epoch > 0 AND final_state_epoch - submitted_epoch >= 1000000000';
    expect(
      fx.emu.jobs
        .list()
        .slice(-2)
        .map((j) => unmarked(j.sql)),
    ).toEqual([
      `SELECT * FROM sys.project.history.jobs ${where} ORDER BY submitted_ts DESC LIMIT 3`,
      `SELECT * FROM sys.project.jobs ${where} ORDER BY submitted_ts DESC LIMIT 3`,
    ]);
    const jobs = JSON.parse(r.stdout);
    expect(jobs).toHaveLength(3);
    for (const j of jobs) {
      expect(j.durationMs).toBeGreaterThanOrEqual(1000);
      expect(j.datasets[0]).toMatch(/^(Sales|Samples)\./);
      expect(j.engine).toMatch(/default|preview/);
    }
    expect(fx.emu.log.entries.filter((e) => e.path.endsWith('/sql')).map((e) => e.path)).toEqual([
      `/v0/projects/${PID}/sql`,
      `/v0/projects/${PID}/sql`,
    ]);
  });

  it('job list has the last hour the history lacks: both tables merged, newest first, each job once', async () => {
    const ids = async (table: string) => {
      const sql = `SELECT job_id, submitted_epoch FROM ${table} ORDER BY submitted_ts DESC LIMIT 200`;
      const r = await fx.run(['sql', sql, '-o', 'json'], { env });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as Array<{ job_id: string; submitted_epoch: number | string }>;
    };
    const history = await ids('sys.project.history.jobs');
    const live = await ids('sys.project.jobs');
    const r = await fx.run(['job', 'list', '--limit', '200', '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const listed: string[] = JSON.parse(r.stdout).map((j: { id: string }) => j.id);
    // The jobs this test ran itself are the newest; the seeded ones follow, one a minute.
    const ran = new Set(fx.emu.jobs.list().map((j) => j.id));
    const seeded = listed.filter((id) => !ran.has(id));
    const byTime = new Map([...history, ...live].map((j) => [j.job_id, BigInt(j.submitted_epoch)]));
    const expected = [...byTime.keys()]
      .filter((id) => !ran.has(id))
      .sort((a, b) => (byTime.get(b)! > byTime.get(a)! ? 1 : -1))
      .slice(0, seeded.length);
    expect(seeded).toEqual(expected);
    expect(new Set(listed).size).toBe(listed.length);
    // The last hour is only in the live table, an overlap is in both, and the listing has all three.
    const inHistory = new Set(history.map((j) => j.job_id));
    const inLive = new Set(live.map((j) => j.job_id));
    expect(seeded.some((id) => inLive.has(id) && !inHistory.has(id))).toBe(true);
    expect(seeded.some((id) => inLive.has(id) && inHistory.has(id))).toBe(true);
    expect(seeded.some((id) => !inLive.has(id) && inHistory.has(id))).toBe(true);
  });

  it('job list --engine and --accelerated on the hosted table', async () => {
    const r = await fx.run(
      ['job', 'list', '--engine', 'preview', '--accelerated', '--limit', '4', '-o', 'json'],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(lastSql(fx)).toContain("WHERE engine = 'preview' AND accelerated = TRUE ORDER BY");
    const jobs = JSON.parse(r.stdout);
    expect(jobs).toHaveLength(4);
    for (const j of jobs) expect(j).toMatchObject({ engine: 'preview', accelerated: true });
  });

  it('job why reads the job status and its row of either table: a job of the last hour is in sys.project.jobs', async () => {
    const q = await fx.run(['sql', 'SELECT 42 AS answer', '-o', 'json'], { env });
    expect(q.code, q.stderr).toBe(0);
    const id = fx.emu.jobs.list().at(-1)!.id;
    const r = await fx.run(['job', 'why', id, '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      id,
      state: 'COMPLETED',
      engine: 'default',
      rowsReturned: 1,
      reflections: [],
    });
    expect(
      fx.emu.jobs
        .list()
        .slice(-2)
        .map((j) => unmarked(j.sql)),
    ).toEqual([
      `SELECT * FROM sys.project.history.jobs WHERE job_id = '${id}'`,
      `SELECT * FROM sys.project.jobs WHERE job_id = '${id}'`,
    ]);
  });

  it('every output format of job list, job why, top and search', async () => {
    expect((await fx.run(['sql', 'SELECT 1 AS one'], { env })).code).toBe(0);
    const id = fx.emu.jobs.list().at(-1)!.id;
    await everyFormat(
      fx,
      [
        ['job', 'list', '--limit', '2'],
        ['job', 'why', id],
        ['top', '--once'],
        ['search', 'sample'],
      ],
      env,
    );
  });

  it('job profile: exit 2 naming the edition, nothing sent', async () => {
    const r = await fx.run(['job', 'profile', PID], { env });
    expectFailure(r, 2, 'the hosted edition (--edition cloud) has no public profile download');
    expect(fx.emu.log.entries).toEqual([]);
  });

  it('top --once reads sys.project.jobs; search uses the project path', async () => {
    const r = await fx.run(['top', '--once', '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
    expect(lastSql(fx)).toMatch(/FROM sys\.project\.jobs WHERE/);
    fx.emu.log.clear();
    const s = await fx.run(['search', 'sample', '-o', 'json'], { env });
    expect(s.code, s.stderr).toBe(0);
    expect(fx.emu.log.entries.map((e) => `${e.method} ${e.path}`)).toEqual([
      `POST /v0/projects/${PID}/search`,
    ]);
  });
});

describe('servers that lack what the commands read', () => {
  const FAILED = (msg: string) => JSON.stringify({ jobState: 'FAILED', rowCount: 0, errorMessage: msg });
  const JOB = '2f067496-7cf0-a70e-0222-34d53a5dc800';

  async function withStub(routes: StubRoute[], args: string[]) {
    const stub = await startStub(routes);
    try {
      const r = await runInProcess(args, {
        env: { DLAKE_CONFIG_DIR: dir, DLAKE_URL: stub.url, DLAKE_TOKEN: 'stub-token' },
      });
      return { ...r, requests: stub.requests };
    } finally {
      await stub.close();
    }
  }

  it('job list on a server with neither sys.jobs_recent nor sys.jobs: exit 7 naming both', async () => {
    const r = await withStub(
      [
        { method: 'POST', path: '/api/v3/sql', body: JSON.stringify({ id: JOB }) },
        {
          method: 'GET',
          path: `/api/v3/job/${JOB}`,
          body: FAILED("Object 'jobs_recent' not found within 'sys'"),
        },
      ],
      ['job', 'list'],
    );
    expectFailure(r, 7, 'this server has neither sys.jobs_recent nor sys.jobs');
    expect(r.requests.filter((q) => q.startsWith('POST'))).toHaveLength(2);
  });

  it('job profile on a server without the download: exit 7 naming it', async () => {
    const r = await withStub([], ['job', 'profile', JOB]);
    expectFailure(r, 7, 'this server has no profile download');
    expect(r.requests).toEqual([`POST /apiv2/support/${JOB}/download`]);
  });

  it('search on a server with no form of search: exit 7 after one request per form', async () => {
    const r = await withStub([], ['search', 'orders']);
    expectFailure(r, 7, 'this server answered no form of catalog search');
    expect(r.requests).toEqual(['POST /api/v3/search', 'GET /api/v3/catalog/search?query=orders']);
  });

  it('usage errors before any request: both --accelerated flags, a --limit of 0, an unknown --type', async () => {
    for (const [args, msg] of [
      [['job', 'list', '--accelerated', '--not-accelerated'], 'cannot be used with'],
      [['job', 'list', '--limit', '0'], '--limit must be a whole number from 1'],
      [['search', 'x', '--type', 'cube'], '--type "cube" is not one of'],
      [['job', 'profile', 'not-a-uuid'], 'is not a job id'],
      [['job', 'list', '--since', '2h', '--until', '3h'], '--since must be earlier than --until'],
    ] as const) {
      const r = await withStub([], [...args]);
      expectFailure(r, 2, msg);
      expect(r.requests).toEqual([]);
    }
  });
});
