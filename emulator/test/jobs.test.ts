// The emulator's jobs area: submitting SQL, job states, results paging, cancel, permissions, and catalog
// datasets made queryable under their paths.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AreaContext } from '../src/area.js';
import { type EmuRequest, type Principal, Router } from '../src/http.js';
import { type JobsArea, registerJobs } from '../src/jobs.js';
import { type Emulator, startEmulator } from '../src/server.js';
import { type CatalogDataset, planQuery } from '../src/sql-engine.js';
import { DEFAULT_USERS, EmuState } from '../src/state.js';
import { type Reply, call as request } from './call.js';

const FINAL = ['COMPLETED', 'FAILED', 'CANCELED'];

describe('jobs over HTTP', () => {
  let emu: Emulator;
  let admin: string;
  let analyst: string;

  const call = (method: string, path: string, opts: { auth?: string; body?: unknown } = {}) =>
    request(emu, method, path, { auth: opts.auth, json: opts.body });

  const submit = async (sql: string, auth = admin): Promise<string> => {
    const r = await call('POST', '/api/v3/sql', { auth, body: { sql } });
    expect(r.status).toBe(200);
    return r.json.id as string;
  };

  const settle = async (id: string, auth = admin): Promise<Reply> => {
    for (let i = 0; i < 500; i++) {
      const r = await call('GET', `/api/v3/job/${id}`, { auth });
      if (r.status !== 200 || FINAL.includes(r.json.jobState)) return r;
      await new Promise((res) => setTimeout(res, 5));
    }
    throw new Error(`job ${id} did not settle`);
  };

  const waitForState = async (id: string, state: string): Promise<void> => {
    for (let i = 0; i < 500; i++) {
      const r = await call('GET', `/api/v3/job/${id}`, { auth: admin });
      if (r.json.jobState === state) return;
      await new Promise((res) => setTimeout(res, 5));
    }
    throw new Error(`job ${id} never reached ${state}`);
  };

  beforeAll(async () => {
    emu = await startEmulator({ bigRows: 2000, jobStepMs: 5 });
    const token = (name: string): string =>
      `_service${emu.state.issueToken(emu.state.userByName(name)!.id, 'session', 3600_000).token}`;
    admin = token('admin');
    analyst = token('analyst');
  });
  afterAll(async () => {
    await emu?.close();
  });

  it('submits a query and reports its status until COMPLETED', async () => {
    const id = await submit('SELECT * FROM big');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const first = await call('GET', `/api/v3/job/${id}`, { auth: admin });
    expect(first.status).toBe(200);
    expect(FINAL).not.toContain(first.json.jobState);
    expect(first.json).toMatchObject({
      rowCount: 0,
      errorMessage: '',
      cancellationReason: '',
      queryType: 'REST',
    });
    expect(first.json.endedAt).toBeUndefined();

    const done = await settle(id);
    expect(done.json).toMatchObject({
      jobState: 'COMPLETED',
      rowCount: 2000,
      errorMessage: '',
      queueName: '',
      queueId: '',
      cancellationReason: '',
    });
    for (const f of ['startedAt', 'endedAt', 'resourceSchedulingStartedAt', 'resourceSchedulingEndedAt']) {
      expect(done.json[f]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    const rels = done.json.acceleration.reflectionRelationships;
    expect(rels.map((r: { relationship: string }) => r.relationship)).toEqual([
      'CHOSEN',
      'MATCHED',
      'CONSIDERED',
    ]);
    expect(rels[0].reflectionId).toMatch(/^[0-9a-f-]{36}$/);
    // Reflections on the dataset the job read, as the summary names them: none on a dataset of no catalog.
    const summary = await call('GET', '/api/v3/reflection-summary?maxResults=100', { auth: admin });
    const more = await call('GET', `/api/v3/reflection-summary?pageToken=${summary.json.nextPageToken}`, {
      auth: admin,
    });
    const byId = new Map(
      [...summary.json.data, ...more.json.data].map((r: { id: string; datasetPath: string[] }) => [r.id, r]),
    );
    for (const rel of rels) {
      expect(byId.get(rel.reflectionId)).toMatchObject({ datasetPath: ['big'], datasetId: rel.datasetId });
    }
  });

  it('pages through results with the service types and the awkward values intact', async () => {
    const id = await submit('SELECT * FROM big ORDER BY id');
    await settle(id);
    // biome-ignore lint/suspicious/noExplicitAny: rows are loose JSON
    const rows: any[] = [];
    for (let offset = 0; ; offset += 500) {
      const r = await call('GET', `/api/v3/job/${id}/results?offset=${offset}&limit=500`, { auth: admin });
      expect(r.status).toBe(200);
      expect(r.json.rowCount).toBe(2000);
      rows.push(...r.json.rows);
      if (r.json.rows.length < 500) {
        expect(r.json.schema).toEqual([
          { name: 'id', type: { name: 'BIGINT' } },
          { name: 'name', type: { name: 'VARCHAR' } },
          { name: 'amount', type: { name: 'DOUBLE' } },
          { name: 'flag', type: { name: 'BOOLEAN' } },
          { name: 'note', type: { name: 'VARCHAR' } },
        ]);
        break;
      }
    }
    expect(rows).toHaveLength(2000);
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
    const byId = (n: number) => rows[n - 1];
    expect(typeof byId(1).id).toBe('number');
    expect(byId(11).note).toBe('with, commas, inside');
    expect(byId(12).note).toBe('with "double quotes" inside');
    expect(byId(13).note).toBe('line one\nline two');
    expect(byId(14).note).toBe('crlf one\r\ncrlf two');
    expect(byId(15).note).toBe('naïve café – 東京 🚀');
    expect(byId(16).note).toBe('');
    expect(byId(17).note).toBeNull();
    expect(byId(97).name).toBeNull();
    expect(byId(89).amount).toBeNull();
    expect(byId(53).flag).toBeNull();
    expect(byId(2)).toMatchObject({ name: 'user_2', flag: true });
    expect(typeof byId(2).amount).toBe('number');

    const dflt = await call('GET', `/api/v3/job/${id}/results`, { auth: admin });
    expect(dflt.json.rows).toHaveLength(100);
    const past = await call('GET', `/api/v3/job/${id}/results?offset=5000`, { auth: admin });
    expect(past.json).toMatchObject({ rowCount: 2000, rows: [] });
  });

  it('maps DuckDB types to the service names and encodings', async () => {
    const id = await submit(
      `SELECT 7::INTEGER AS i, 3::TINYINT AS ti, 5::SMALLINT AS si, 1.25::DECIMAL(5,2) AS d, 1.5::FLOAT AS f,
        DATE '2024-02-29' AS dt, TIMESTAMP '2024-01-02 03:04:05.678' AS ts, TIME '12:34:56.789' AS t,
        [1, 2, NULL] AS l, {'a': 1, 'b': 'x'} AS s, 'hi'::BLOB AS b, 10::HUGEINT AS h`,
    );
    await settle(id);
    const r = await call('GET', `/api/v3/job/${id}/results`, { auth: admin });
    const types = Object.fromEntries(
      r.json.schema.map((c: { name: string; type: unknown }) => [c.name, c.type] as const),
    );
    expect(types).toEqual({
      i: { name: 'INTEGER' },
      ti: { name: 'TINYINT' },
      si: { name: 'SMALLINT' },
      d: { name: 'DECIMAL', precision: 5, scale: 2 },
      f: { name: 'FLOAT' },
      dt: { name: 'DATE' },
      ts: { name: 'TIMESTAMP' },
      t: { name: 'TIME' },
      l: { name: 'LIST', subSchema: [{ type: { name: 'INTEGER' } }] },
      s: {
        name: 'STRUCT',
        subSchema: [
          { name: 'a', type: { name: 'INTEGER' } },
          { name: 'b', type: { name: 'VARCHAR' } },
        ],
      },
      b: { name: 'VARBINARY' },
      h: { name: 'BIGINT' },
    });
    expect(r.json.rows[0]).toEqual({
      i: 7,
      ti: 3,
      si: 5,
      d: 1.25,
      f: 1.5,
      dt: '2024-02-29',
      ts: '2024-01-02 03:04:05.678',
      t: '12:34:56.789',
      l: [1, 2, null],
      s: { a: 1, b: 'x' },
      b: Buffer.from('hi').toString('base64'),
      h: 10,
    });
  });

  it('checks limit before the job, and reads bad numbers as JAX-RS does', async () => {
    const over = await call('GET', '/api/v3/job/no-such-job/results?limit=501', { auth: admin });
    expect(over.status).toBe(400);
    expect(over.json).toEqual({ errorMessage: 'limit can not exceed 500 rows', moreInfo: '' });
    const id = await submit('SELECT 1 AS x');
    await settle(id);
    const abc = await call('GET', `/api/v3/job/${id}/results?limit=abc`, { auth: admin });
    expect(abc.status).toBe(404);
    expect(abc.json.errorMessage).toBe(
      'HTTP 404 Not Found: QueryParam limit (default: 100). For input string: "abc"',
    );
    const neg = await call('GET', `/api/v3/job/${id}/results?offset=-1`, { auth: admin });
    expect(neg.status).toBe(400);
    const exact = await call('GET', `/api/v3/job/${id}/results?limit=500`, { auth: admin });
    expect(exact.json).toMatchObject({ rowCount: 1, rows: [{ x: 1 }] });
  });

  it('refuses results of a job that is still running, naming its state', async () => {
    const id = await submit('/* sleep:3000 */ SELECT * FROM big');
    await waitForState(id, 'RUNNING');
    const r = await call('GET', `/api/v3/job/${id}/results`, { auth: admin });
    expect(r.status).toBe(400);
    const msg = 'Can not fetch details for a job that is in [RUNNING] state.';
    expect(r.json).toEqual({ errorMessage: msg, moreInfo: msg });
    expect((await call('POST', `/api/v3/job/${id}/cancel`, { auth: admin })).status).toBe(204);
  });

  it('fails a job with the engine error and no results', async () => {
    const id = await submit('SELECT * FROM no_such_table');
    const done = await settle(id);
    expect(done.json.jobState).toBe('FAILED');
    expect(done.json.errorMessage).toMatch(/no_such_table/);
    expect(done.json.rowCount).toBe(0);
    expect(done.json.acceleration).toBeUndefined();
    expect(done.json.endedAt).toBeDefined();
    const r = await call('GET', `/api/v3/job/${id}/results`, { auth: admin });
    expect(r.status).toBe(400);
    expect(r.json.errorMessage).toBe('Can not fetch details for a job that is in [FAILED] state.');
  });

  it('cancels a sleeping job; a finished job cannot be canceled', async () => {
    const id = await submit('SELECT count(*) AS c FROM big /* sleep:5000 */', analyst);
    await waitForState(id, 'RUNNING');
    const c = await call('POST', `/api/v3/job/${id}/cancel`, { auth: analyst });
    expect(c.status).toBe(204);
    expect(c.text).toBe('');
    const right = await call('GET', `/api/v3/job/${id}`, { auth: analyst });
    expect(['CANCELLATION_REQUESTED', 'CANCELED']).toContain(right.json.jobState);
    const done = await settle(id, analyst);
    expect(done.json).toMatchObject({
      jobState: 'CANCELED',
      cancellationReason: "Query cancelled by user 'analyst'",
      errorMessage: '',
      rowCount: 0,
    });
    const again = await call('POST', `/api/v3/job/${id}/cancel`, { auth: analyst });
    expect(again.status).toBe(404);
    expect(again.json.errorMessage).toBe(`Could not find a job with id [${id}]`);
    const r = await call('GET', `/api/v3/job/${id}/results`, { auth: analyst });
    expect(r.json.errorMessage).toBe('Can not fetch details for a job that is in [CANCELED] state.');
  });

  it('interrupts a query that DuckDB is executing', async () => {
    // Billions of row combinations: only an interrupt ends this within the test's time.
    const id = await submit(
      'SELECT count(*) AS c FROM big a, big b, big c WHERE a.amount + b.amount > c.amount',
    );
    await waitForState(id, 'RUNNING');
    await new Promise((res) => setTimeout(res, 100));
    expect((await call('POST', `/api/v3/job/${id}/cancel`, { auth: admin })).status).toBe(204);
    const done = await settle(id);
    expect(done.json).toMatchObject({
      jobState: 'CANCELED',
      cancellationReason: "Query cancelled by user 'admin'",
    });
  });

  it('answers 404 for unknown jobs and 403 for another user’s job', async () => {
    for (const [method, suffix] of [
      ['GET', ''],
      ['GET', '/results'],
      ['POST', '/cancel'],
    ] as const) {
      const r = await call(method, `/api/v3/job/nope-123${suffix}`, { auth: admin });
      expect(r.status).toBe(404);
      expect(r.json).toEqual({ errorMessage: 'Could not find a job with id [nope-123]', moreInfo: '' });
    }
    const mine = await submit('SELECT 1 AS one', admin);
    const denied = await call('GET', `/api/v3/job/${mine}`, { auth: analyst });
    expect(denied.status).toBe(403);
    expect(denied.json.errorMessage).toBe(`Permission denied on user [analyst] to access job [${mine}]`);
    expect((await call('GET', `/api/v3/job/${mine}/results`, { auth: analyst })).status).toBe(403);
    const theirs = await submit('SELECT 2 AS two', analyst);
    expect((await settle(theirs, admin)).json.jobState).toBe('COMPLETED');
  });

  it('validates the /sql body and needs credentials', async () => {
    const unknown = await call('POST', '/api/v3/sql', { auth: admin, body: { sql: 'SELECT 1', foo: 1 } });
    expect(unknown.status).toBe(400);
    expect(unknown.json).toEqual({ errorMessage: 'Invalid value found at: foo' });
    expect((await call('POST', '/api/v3/sql', { auth: admin, body: {} })).status).toBe(400);
    expect((await call('POST', '/api/v3/sql', { auth: admin, body: { sql: '  ' } })).status).toBe(400);
    const ctx = await call('POST', '/api/v3/sql', { auth: admin, body: { sql: 'SELECT 1', context: 'x' } });
    expect(ctx.json.errorMessage).toBe('Invalid value found at: context');
    const bad = await call('POST', '/api/v3/sql', { auth: admin, body: '{"sql": ' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/text\/plain/);
    const ok = await call('POST', '/api/v3/sql', {
      auth: admin,
      body: {
        sql: 'SELECT 1',
        context: ['Samples'],
        references: { nessie: { type: 'BRANCH', value: 'main' } },
        engineName: 'e1',
      },
    });
    expect(ok.status).toBe(200);
    const anon = await call('POST', '/api/v3/sql', { body: { sql: 'SELECT 1' } });
    expect(anon.status).toBe(401);
    expect(anon.text).toBe('');
  });
});

describe('catalog datasets in queries', () => {
  let dir: string;
  let area: AreaContext;
  let face: JobsArea;
  let closers: Array<() => Promise<void> | void>;
  const datasets: CatalogDataset[] = [];
  const viewFields = new Map<string, unknown[]>();

  const principal = (name: string): Principal => {
    const u = area.state.userByName(name)!;
    return { userId: u.id, userName: u.name, admin: u.admin, tokenKind: 'session', token: 't' };
  };

  /** Calls a route handler directly (this area has no HTTP server). */
  const invoke = async (method: string, path: string, body = '', user = 'admin') => {
    const m = area.router.match(method, path);
    if (!m || !('handler' in m)) throw new Error(`no route ${method} ${path}`);
    const req: EmuRequest = {
      method,
      rawPath: path,
      params: m.params,
      query: new URLSearchParams(),
      headers: {},
      body,
      principal: principal(user),
    };
    return m.handler(req);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dlake-jobs-'));
    mkdirSync(join(dir, 'sales'));
    writeFileSync(
      join(dir, 'sales', '2024.csv'),
      'id,region,amount,comment\n1,north,12.5,"hello, world"\n2,south,7.25,"say ""hi"""\n3,east,30,plain\n',
    );
    writeFileSync(join(dir, 'sales', '2023.csv'), 'id,region,amount,comment\n10,west,1.5,old\n');
    writeFileSync(join(dir, 'semi.txt'), 'exported by a tool\nid;label\n1;a,b\n2;c\n');
    writeFileSync(join(dir, 'customers.json'), '[{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bo"}]');
    const duck = await DuckDBInstance.create(':memory:');
    const conn = await duck.connect();
    await conn.run(
      `COPY (SELECT range AS k, 'v' || range AS v FROM range(5)) TO '${join(dir, 'kv.parquet')}'`,
    );
    conn.closeSync();
    duck.closeSync();

    datasets.push(
      {
        path: ['Samples', 'sales', '2024.csv'],
        kind: 'file',
        filePath: join(dir, 'sales', '2024.csv'),
        format: 'csv',
      },
      { path: ['Samples', 'sales'], kind: 'file', filePath: join(dir, 'sales'), format: 'csv' },
      {
        path: ['Samples', 'semi.txt'],
        kind: 'file',
        filePath: join(dir, 'semi.txt'),
        format: 'csv',
        csv: { delimiter: ';', header: true, skipFirstLine: true },
      },
      {
        path: ['Samples', 'customers.json'],
        kind: 'file',
        filePath: join(dir, 'customers.json'),
        format: 'json',
      },
      { path: ['Samples', 'kv.parquet'], kind: 'file', filePath: join(dir, 'kv.parquet'), format: 'parquet' },
      {
        path: ['myspace', 'folder', 'myview'],
        kind: 'view',
        sql: 'SELECT id, amount FROM sales."2024.csv" WHERE amount > 10;',
        sqlContext: ['Samples'],
      },
      {
        path: ['myspace', 'on view'],
        kind: 'view',
        sql: 'SELECT sum(amount) AS total FROM myspace.folder.myview',
      },
    );
    closers = [];
    area = {
      router: new Router(),
      state: new EmuState(DEFAULT_USERS),
      options: { bigRows: 50, jobStepMs: 1 },
      onClose: (fn) => closers.push(fn),
    };
    face = await registerJobs(area, {
      datasets: () => datasets,
      recordFields: (path, fields) => viewFields.set(path.join('.'), fields),
    });
  });
  afterAll(async () => {
    for (const fn of closers) await fn();
    rmSync(dir, { recursive: true, force: true });
  });

  const query = (sql: string, context?: string[]) => face.runEngineQuery(sql, context);

  it('reads promoted files and folders by their dotted, quoted paths', async () => {
    expect(await query('SELECT id, comment FROM Samples.sales."2024.csv" ORDER BY id')).toEqual([
      { id: 1, comment: 'hello, world' },
      { id: 2, comment: 'say "hi"' },
      { id: 3, comment: 'plain' },
    ]);
    expect(await query('SELECT count(*) AS c FROM samples.SALES')).toEqual([{ c: 4 }]);
    expect(await query('SELECT name FROM Samples."customers.json" WHERE id = 2')).toEqual([{ name: 'Bo' }]);
    expect(await query('SELECT v FROM "Samples"."kv.parquet" WHERE k = 3')).toEqual([{ v: 'v3' }]);
    expect(await query('SELECT * FROM Samples."semi.txt"')).toEqual([
      { id: 1, label: 'a,b' },
      { id: 2, label: 'c' },
    ]);
  });

  it('resolves references in the query context and keeps the leaf name usable as a qualifier', async () => {
    expect(await query('SELECT count(*) AS c FROM "2024.csv"', ['Samples', 'sales'])).toEqual([{ c: 3 }]);
    expect(await query('SELECT "2024.csv".id FROM Samples.sales."2024.csv" WHERE id = 3')).toEqual([
      { id: 3 },
    ]);
    expect(
      await query(
        'SELECT s.id FROM Samples.sales."2024.csv" s JOIN Samples."customers.json" AS c ON s.id = c.id',
      ),
    ).toHaveLength(2);
  });

  it('expands virtual datasets recursively in their own context', async () => {
    expect(await query('SELECT * FROM myspace.folder.myview ORDER BY id')).toEqual([
      { id: 1, amount: 12.5 },
      { id: 3, amount: 30 },
    ]);
    expect(await query('SELECT total FROM myspace."on view"')).toEqual([{ total: 42.5 }]);
  });

  it('leaves string literals and comments alone', () => {
    const plan = planQuery(
      "SELECT 'Samples.sales' AS s /* Samples.sales */ FROM Samples.sales",
      [],
      datasets,
    );
    expect(plan.sql).toMatch(
      /^SELECT 'Samples\.sales' AS s \/\* Samples\.sales \*\/ FROM "ds_[0-9a-f]+" AS "sales"$/,
    );
    expect(plan.touched).toEqual([{ path: ['Samples', 'sales'] }]);
  });

  it('records submitted jobs for tests and matches runEngineQuery', async () => {
    const sql = 'SELECT * FROM big ORDER BY id';
    const reply = await invoke('POST', '/api/v3/sql', JSON.stringify({ sql }), 'analyst');
    const { id } = reply.json as { id: string };
    const jobs = face.jobs;
    expect(jobs.list().filter((j) => j.sql === sql)).toEqual([
      expect.objectContaining({ id, sql, user: 'analyst' }),
    ]);
    for (let i = 0; i < 200 && jobs.get(id)?.state !== 'COMPLETED'; i++)
      await new Promise((r) => setTimeout(r, 5));
    expect(jobs.get(id)).toMatchObject({ state: 'COMPLETED', rowCount: 50, errorMessage: '' });
    const page = await invoke('GET', `/api/v3/job/${id}/results`, '', 'analyst');
    expect(JSON.parse(page.json as string).rows).toEqual(await query(sql));
  });

  it('tells the catalog the columns of the views a job expanded', async () => {
    const reply = await invoke(
      'POST',
      '/api/v3/sql',
      JSON.stringify({ sql: 'SELECT * FROM myspace."on view"' }),
    );
    const { id } = reply.json as { id: string };
    const jobs = face.jobs;
    for (let i = 0; i < 200 && jobs.get(id)?.state !== 'COMPLETED'; i++)
      await new Promise((r) => setTimeout(r, 5));
    expect(jobs.get(id)?.state).toBe('COMPLETED');
    expect(viewFields.get('myspace.on view')).toEqual([{ name: 'total', type: { name: 'DOUBLE' } }]);
    expect(viewFields.get('myspace.folder.myview')).toEqual([
      { name: 'id', type: { name: 'BIGINT' } },
      { name: 'amount', type: { name: 'DOUBLE' } },
    ]);
  });
});
