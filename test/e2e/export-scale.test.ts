// Export at scale end to end: the format from the extension, gzip as it streams, Parquet read back by DuckDB
// (row for row, type for type), the row count checked against the job's rowCount, and --resume after
// SIGTERM at several points giving a file byte for byte the uninterrupted export.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { JobsTestApi } from 'dlake-emulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseCsv } from '../helpers/csv.js';
import { startDlake } from '../helpers/dlake.js';
import { expectFailure, useFixture } from '../helpers/fixture.js';
import { until } from '../helpers/until.js';

const ROWS = 120_000;
const QUERY = 'SELECT * FROM big ORDER BY id';
/** The columns of `big`, in order. */
const COLUMNS = 'id, name, amount, flag, note';

let dir: string;
const jobs = (): JobsTestApi => fx.emu.jobs;
const engine = (sql: string) => fx.emu.runEngineQuery(sql);

const fx = useFixture({ bigRows: ROWS, jobStepMs: 5 });
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-export-scale-'));
  fx.emu.faults.clear();
  return () => rmSync(dir, { recursive: true, force: true });
});

/** A completed job of `sql`. */
async function completedJob(sql: string): Promise<string> {
  const r = await fx.run(['sql', sql, '--no-wait']);
  expect(r.code, r.stderr).toBe(0);
  const id = r.stdout.trim();
  await until(() => jobs().get(id)?.state === 'COMPLETED', 'the job completes');
  return id;
}

/** Column names and types of a Parquet file, as the emulator's DuckDB reads it. */
async function parquetTypes(file: string): Promise<string[]> {
  const cols = await engine(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
  return cols.map((c) => `${c.column_name} ${c.column_type}`);
}

describe('format from the extension, and gzip', () => {
  it('.csv.gz, .json.gz and .ndjson.gz gunzip to exactly the plain exports', async () => {
    const id = await completedJob('SELECT * FROM big ORDER BY id LIMIT 3000');
    for (const ext of ['csv', 'json', 'ndjson']) {
      const plain = join(dir, `rows.${ext}`);
      const gz = `${plain}.gz`;
      expect((await fx.run(['job', 'export', id, '--out', plain])).code).toBe(0);
      const r = await fx.run(['job', 'export', id, '--out', gz]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`(${ext.toUpperCase()}, gzip)`);
      expect(gunzipSync(readFileSync(gz)).equals(readFileSync(plain))).toBe(true);
    }
  });

  it('--format wins over the extension; .parquet.gz is refused before the query runs (exit 2)', async () => {
    const id = await completedJob('SELECT * FROM big ORDER BY id LIMIT 10');
    const file = join(dir, 'rows.parquet');
    const r = await fx.run(['job', 'export', id, '--out', file, '--format', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(file, 'utf8').split('\n')[0]).toBe('id,name,amount,flag,note');
    const gz = await fx.run(['sql', 'SELECT 1', '--out', join(dir, 'x.parquet.gz')]);
    expectFailure(gz, 2, 'cannot gzip a Parquet export');
    expect(fx.emu.log.find('POST', '/api/v3/sql')).toHaveLength(1);
  });
});

describe('Parquet', () => {
  it('DuckDB reads every row back as the service returned it, with typed columns; null and "" stay apart', async () => {
    const file = join(dir, 'big.parquet');
    const r = await fx.run(['sql', QUERY, '--out', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`wrote 120,000 rows to ${file} (PARQUET)`);
    expect(readdirSync(dir)).toEqual(['big.parquet']);
    expect(await parquetTypes(file)).toEqual([
      'id BIGINT',
      'name VARCHAR',
      'amount DOUBLE',
      'flag BOOLEAN',
      'note VARCHAR',
    ]);
    // Row for row, compared inside DuckDB: the file's k-th row against the k-th row of the query (a row
    // missing from either side differs too). Only differing rows are read out, to show them.
    const pairs = `WITH back AS (SELECT file_row_number AS k, struct_pack(${COLUMNS}) AS row
        FROM read_parquet('${file}', file_row_number = true)),
      want AS (SELECT row_number() OVER (ORDER BY id) - 1 AS k, struct_pack(${COLUMNS}) AS row FROM big)
      SELECT k, back.row AS back, want.row AS want FROM back FULL JOIN want USING (k)`;
    const [compared] = await engine(
      `SELECT count(*)::INTEGER AS rows, count(*) FILTER (WHERE back IS DISTINCT FROM want)::INTEGER AS differ FROM (${pairs})`,
    );
    if (compared?.differ !== 0) {
      const first = await engine(
        `SELECT * FROM (${pairs}) WHERE back IS DISTINCT FROM want ORDER BY k LIMIT 3`,
      );
      expect(first, 'the first rows that differ').toEqual([]);
    }
    expect(compared).toEqual({ rows: ROWS, differ: 0 });
    // The note column cycles through '' and NULL: both survive, apart.
    const [counts] = await engine(
      `SELECT count(*) FILTER (WHERE note = '') AS empty, count(*) FILTER (WHERE note IS NULL) AS nulls FROM read_parquet('${file}')`,
    );
    expect(counts).toEqual({ empty: ROWS / 10, nulls: ROWS / 10 });
  });

  it('DATE, TIMESTAMP and DECIMAL as their logical types, INTEGER as int32, a LIST as a Parquet LIST', async () => {
    const sql = `SELECT id,
        (DATE '2024-02-28' + (id % 5)::INTEGER) AS day,
        (TIMESTAMP '2024-03-01 10:20:30.123' + to_seconds(id)) AS ts,
        CAST(id / 8.0 AS DECIMAL(12,3)) AS price,
        CAST(id * 1000000000000 AS DECIMAL(30,2)) AS huge,
        CAST(id AS INTEGER) AS small,
        [id, id + 1] AS pair
      FROM big ORDER BY id LIMIT 1500`;
    const id = await completedJob(sql);
    const file = join(dir, 'typed.parquet');
    const r = await fx.run(['job', 'export', id, '--out', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(await parquetTypes(file)).toEqual([
      'id BIGINT',
      'day DATE',
      // Not adjusted to UTC: the service's TIMESTAMP has no zone.
      'ts TIMESTAMP',
      'price DECIMAL(12,3)',
      'huge DECIMAL(30,2)',
      'small INTEGER',
      'pair BIGINT[]',
    ]);
    const back = await engine(
      `SELECT id, day, ts::TIMESTAMP AS ts, price, huge, small, pair FROM read_parquet('${file}')`,
    );
    const expected = await engine(sql);
    expect(back).toEqual(expected);
  });
});

describe('CSV pages read straight from their bytes', () => {
  it('a page off the common shape (a nested value) is written the ordinary way, the others straight', async () => {
    const id = await completedJob('SELECT * FROM big ORDER BY id LIMIT 1500');
    const plain = join(dir, 'plain.csv');
    expect((await fx.run(['job', 'export', id, '--out', plain])).code).toBe(0);
    // The first page again, its first note an object: JSON text in the CSV, as `-o csv` writes it.
    const rows = await engine('SELECT * FROM big ORDER BY id LIMIT 500');
    rows[0]!.note = { x: [1, 'a,b'] };
    const schema = ['id BIGINT', 'name VARCHAR', 'amount DOUBLE', 'flag BOOLEAN', 'note VARCHAR'].map((c) => {
      const [name, type] = c.split(' ');
      return { name, type: { name: type } };
    });
    fx.emu.log.clear();
    fx.emu.fault({ kind: 'schema', path: /\/results$/, times: 1, body: { rowCount: 1500, schema, rows } });
    const file = join(dir, 'mixed.csv');
    const r = await fx.run(['job', 'export', id, '--out', file]);
    expect(r.code, r.stderr).toBe(0);
    const expected = parseCsv(readFileSync(plain, 'utf8'));
    expected[1]![4] = '{"x":[1,"a,b"]}';
    expect(parseCsv(readFileSync(file, 'utf8'))).toEqual(expected);
    const pages = fx.emu.log.entries.filter((e) => e.path.endsWith('/results'));
    expect(pages.map((e) => [e.query.offset, e.fault])).toEqual([
      ['0', 'schema'],
      ['500', undefined],
      ['1000', undefined],
    ]);
  });
});

describe('verified counts', () => {
  it('a service that returns fewer rows than rowCount: exit 7 naming both numbers, no FILE', async () => {
    const id = await completedJob('SELECT * FROM big ORDER BY id LIMIT 2000');
    // The first page comes back with 2 rows while the job says 2000: paging stops at a short page.
    const [a, b] = await engine('SELECT * FROM big ORDER BY id LIMIT 2');
    fx.emu.fault({
      kind: 'schema',
      path: /\/results$/,
      times: 1,
      body: {
        rowCount: 2000,
        schema: [
          { name: 'id', type: { name: 'BIGINT' } },
          { name: 'name', type: { name: 'VARCHAR' } },
          { name: 'amount', type: { name: 'DOUBLE' } },
          { name: 'flag', type: { name: 'BOOLEAN' } },
          { name: 'note', type: { name: 'VARCHAR' } },
        ],
        rows: [a, b],
      },
    });
    const file = join(dir, 'short.csv');
    const r = await fx.run(['job', 'export', id, '--out', file]);
    expectFailure(r, 7, /the service returned 2 rows but the job's rowCount is 2,000/);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('--resume', () => {
  // One completed job of every row for all these tests, and its uninterrupted export once per file name: an
  // export never changes the job, and each test still stops and resumes an export of its own.
  let id: string;
  let wholes: string;
  beforeAll(async () => {
    id = await completedJob(QUERY);
    wholes = mkdtempSync(join(tmpdir(), 'dlake-export-whole-'));
  });
  afterAll(() => rmSync(wholes, { recursive: true, force: true }));
  async function wholeExport(name: string): Promise<string> {
    const whole = join(wholes, name);
    if (!existsSync(whole)) expect((await fx.run(['job', 'export', id, '--out', whole])).code).toBe(0);
    return whole;
  }

  /**
   * Starts an export slowed down by the service, and SIGTERMs it once the service has been asked for the
   * page at `cut` of the rows (the file itself grows a MiB at a time).
   */
  async function interruptAt(file: string, cut: number, extra: string[] = []) {
    fx.emu.log.clear();
    fx.emu.fault({ kind: 'latency', path: /\/results$/, latencyMs: 15 });
    const child = startDlake(['job', 'export', id, '--out', file, '--concurrency', '2', ...extra], {
      env: { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url },
    });
    const asked = () => fx.emu.log.find('GET', /\/results$/).map((e) => Number(e.query.offset));
    await until(() => asked().some((o) => o >= cut * ROWS), 'the export goes on', 60_000);
    child.terminate();
    const r = await child.done;
    fx.emu.faults.clear();
    return r;
  }

  // Three cut points, one format each: early, middle, late; Parquet (a row group is ~40,000 of these rows)
  // after its first and after its second row group.
  it.each([
    ['csv', 0.1],
    ['ndjson', 0.45],
    ['json', 0.8],
    ['parquet', 0.45],
    ['parquet', 0.8],
  ] as const)(
    '%s: SIGTERM %s of the way through, then --resume: byte for byte the uninterrupted export',
    async (ext, cut) => {
      const whole = await wholeExport(`whole.${ext}`);
      const file = join(dir, `resumed.${ext}`);
      const stopped = await interruptAt(file, cut);
      expectFailure(
        stopped,
        143,
        /^error: terminated \(SIGTERM\): export stopped after [\d,]+ rows; .* are kept in .*\.partial$/,
      );
      expect(stopped.stderr).toContain(`hint: resume with: dlake job export ${id} --out ${file} --resume`);
      expect(existsSync(file)).toBe(false);
      const record = JSON.parse(readFileSync(`${file}.partial.json`, 'utf8'));
      expect(record).toMatchObject({ jobId: id, format: ext, gzip: false });
      expect(record.rows).toBeGreaterThan(0);
      // Another format is refused, nothing fetched.
      const other = ext === 'csv' ? 'ndjson' : 'csv';
      fx.emu.log.clear();
      const refused = await fx.run(['job', 'export', id, '--out', file, '--resume', '--format', other]);
      expectFailure(refused, 2, `it holds ${ext.toUpperCase()}, not ${other.toUpperCase()}`);
      expect(fx.emu.log.find('GET', /\/results$/)).toHaveLength(0);
      const resumed = await fx.run(['job', 'export', id, '--out', file, '--resume']);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toContain(`resumed after ${record.rows.toLocaleString('en-US')} rows`);
      // Only the rest was fetched.
      const offsets = fx.emu.log.find('GET', /\/results$/).map((e) => Number(e.query.offset));
      expect(Math.min(...offsets)).toBe(record.rows);
      expect(readFileSync(file).equals(readFileSync(whole))).toBe(true);
      expect(existsSync(`${file}.partial`) || existsSync(`${file}.partial.json`)).toBe(false);
    },
  );

  it('a gzipped export resumes from its last complete gzip member, byte for byte', async () => {
    const whole = await wholeExport('whole.csv.gz');
    const file = join(dir, 'resumed.csv.gz');
    const stopped = await interruptAt(file, 0.6);
    expect(stopped.code).toBe(143);
    const record = JSON.parse(readFileSync(`${file}.partial.json`, 'utf8'));
    expect(record).toMatchObject({ jobId: id, format: 'csv', gzip: true, rows: 50_000 });
    const resumed = await fx.run(['job', 'export', id, '--out', file, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(readFileSync(file).equals(readFileSync(whole))).toBe(true);
  });

  it('a partial export of another job or another format is refused (exit 2), and left as it was', async () => {
    const other = await completedJob('SELECT * FROM big ORDER BY id LIMIT 5');
    const file = join(dir, 'rows.csv');
    expect((await interruptAt(file, 0.3)).code).toBe(143);
    const before = readFileSync(`${file}.partial`);
    fx.emu.log.clear();
    const wrongJob = await fx.run(['job', 'export', other, '--out', file, '--resume']);
    expectFailure(wrongJob, 2, `it holds rows of job ${id}, not ${other}`);
    const wrongFormat = await fx.run(['job', 'export', id, '--out', file, '--resume', '--format', 'ndjson']);
    expectFailure(wrongFormat, 2, 'it holds CSV, not NDJSON');
    expect(fx.emu.log.find('GET', /\/results$/)).toHaveLength(0);
    expect(readFileSync(`${file}.partial`).equals(before)).toBe(true);
  });

  it('--resume with nothing to resume exports from the first row; --resume to standard output is refused', async () => {
    const id = await completedJob('SELECT * FROM big ORDER BY id LIMIT 10');
    const file = join(dir, 'fresh.csv');
    const r = await fx.run(['job', 'export', id, '--out', file, '--resume']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('nothing to resume');
    expect(parseCsv(readFileSync(file, 'utf8'))).toHaveLength(11);
    expectFailure(
      await fx.run(['job', 'export', id, '--out', '-', '--resume']),
      2,
      '--resume needs --out FILE',
    );
    writeFileSync(`${file}.partial.json`, 'not json');
    expectFailure(await fx.run(['job', 'export', id, '--out', file, '--resume']), 2, 'not valid JSON');
  });
});

describe('sql --into (CREATE TABLE … AS on the service)', () => {
  it('writes the result as Parquet into a NAS source that allows it; the table is in the catalog', async () => {
    const lake = join(dir, 'lake');
    mkdirSync(lake);
    const created = await fx.run([
      'source',
      'create',
      'lake',
      '--type',
      'nas',
      '--set',
      `path=${lake}`,
      '--set',
      'allowCreateDrop=true',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const r = await fx.run([
      'sql',
      'SELECT * FROM big WHERE id <= 5000;',
      '--into',
      'lake/exports/first 5000',
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toEqual({ path: ['lake', 'exports', 'first 5000'], rows: 5000, jobId: expect.any(String) });
    expect(jobs().get(out.jobId)?.sql).toBe(
      'CREATE TABLE lake.exports."first 5000" AS SELECT * FROM big WHERE id <= 5000',
    );
    // DuckDB wrote it into the source's folder; the catalog lists it as a table, and SQL reads it.
    expect(readdirSync(join(lake, 'exports', 'first 5000'))).toEqual(['0_0_0.parquet']);
    const got = await fx.run(['catalog', 'get', 'lake/exports/first 5000', '-o', 'json']);
    expect(got.code, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({
      type: 'PHYSICAL_DATASET',
      path: ['lake', 'exports', 'first 5000'],
    });
    const back = await fx.run([
      'sql',
      'SELECT count(*) AS n, max(id) AS top FROM lake.exports."first 5000"',
      '-o',
      'json',
    ]);
    expect(JSON.parse(back.stdout)).toEqual([{ n: 5000, top: 5000 }]);
    // The table form: the path as a ref, the rows written.
    const again = await fx.run(['sql', 'SELECT 1 AS one', '--into', 'lake/one']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.split('\n')[1]).toMatch(/^lake\/one\s+1\s+[0-9a-f-]{36}\s*$/);
    // A table that exists already: the job fails with the service's words (exit 6).
    const twice = await fx.run(['sql', 'SELECT 1 AS one', '--into', 'lake/one']);
    expectFailure(twice, 6, 'A table or view with given name [lake.one] already exists.');
  });

  it('a source that does not allow it fails the job with the service wording (exit 6); bad refs are exit 2', async () => {
    const ro = join(dir, 'ro');
    mkdirSync(ro);
    expect(
      (await fx.run(['source', 'create', 'readonly', '--type', 'nas', '--set', `path=${ro}`])).code,
    ).toBe(0);
    const r = await fx.run(['sql', 'SELECT 1 AS one', '--into', 'readonly/t']);
    expectFailure(r, 6, 'Unable to create or drop objects. Schema [readonly] is immutable.');
    expect(readdirSync(ro)).toEqual([]);
    expectFailure(
      await fx.run(['sql', 'SELECT 1', '--into', 'lonely']),
      2,
      '--into needs a table inside a source',
    );
    expectFailure(
      await fx.run(['sql', 'SELECT 1', '--into', 'a/b', '--out', join(dir, 'x.csv')]),
      2,
      "option '--into <ref>' cannot be used with option '--out <file>'",
    );
  });
});
