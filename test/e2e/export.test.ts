// Streaming export end to end: 20k generated rows to CSV, JSON and NDJSON compared row for row with what
// DuckDB itself returns; the request log (no page above 500 rows, none fetched twice without cause); dropped
// connections; unwritable targets; Ctrl-C. No FILE is ever left by a failed export; what can be resumed is
// kept as FILE.partial with its sidecar (export-scale.test.ts tests --resume itself).
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
import type { JobsTestApi, RequestLogEntry } from 'dlake-emulator';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectedCsvCell, parseCsv } from '../helpers/csv.js';
import { startDlake } from '../helpers/dlake.js';
import { expectFailure, useFixture } from '../helpers/fixture.js';
import { until } from '../helpers/until.js';

// 40 pages of 500 rows: enough for paging, concurrent fetches and faults in the middle of an export, and every
// kind of value the generated table cycles through (every 97 rows at most). The row count itself is not under
// test (export-scale.test.ts exports 120,000 rows, for Parquet's row groups).
const ROWS = 20_000;
const QUERY = 'SELECT * FROM big ORDER BY id';
const COLUMNS = ['id', 'name', 'amount', 'flag', 'note'];

let dir: string;
let expected: Array<Record<string, unknown>>;
const jobs = (): JobsTestApi => fx.emu.jobs;

const fx = useFixture({ bigRows: ROWS, jobStepMs: 5 });
beforeAll(async () => {
  expected = await fx.emu.runEngineQuery(QUERY);
  expect(expected).toHaveLength(ROWS);
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-export-e2e-'));
  fx.emu.faults.clear();
  return () => rmSync(dir, { recursive: true, force: true });
});

const resultRequests = (): RequestLogEntry[] => fx.emu.log.find('GET', /^\/api\/v3\/job\/[^/]+\/results$/);

/** Every results request asked for at most 500 rows, and no offset was asked twice unless a fault hit it. */
function expectCleanPaging(rows: number): void {
  const reqs = resultRequests();
  expect(reqs.length).toBeGreaterThan(0);
  for (const r of reqs) expect(Number(r.query.limit)).toBeLessThanOrEqual(500);
  const served = reqs.filter((r) => !r.fault && r.status === 200);
  const offsets = served.map((r) => Number(r.query.offset));
  expect(new Set(offsets).size).toBe(offsets.length);
  expect(served.reduce((n, r) => n + Number(r.query.limit), 0)).toBe(rows);
  for (const r of reqs.filter((x) => x.fault)) expect(offsets).toContain(Number(r.query.offset));
}

describe('export of 20k generated rows', () => {
  it('CSV: row for row what DuckDB returns, RFC 4180, header from the schema', async () => {
    const file = join(dir, 'big.csv');
    const r = await fx.run(['sql', QUERY, '--out', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`wrote 20,000 rows to ${file} (CSV)`);
    const records = parseCsv(readFileSync(file, 'utf8'));
    expect(records[0]).toEqual(COLUMNS);
    expect(records).toHaveLength(ROWS + 1);
    for (let i = 0; i < ROWS; i++) {
      const want = COLUMNS.map((c) => expectedCsvCell(expected[i]![c]));
      if (records[i + 1]!.join('\u0001') !== want.join('\u0001')) expect(records[i + 1]).toEqual(want);
    }
    expect(readdirSync(dir)).toEqual(['big.csv']);
    expectCleanPaging(ROWS);
    expect(fx.emu.log.find('POST', '/api/v3/sql')).toHaveLength(1);
  });

  it('JSON: one array of row objects, equal to what DuckDB returns', async () => {
    const file = join(dir, 'big.json');
    const r = await fx.run(['sql', QUERY, '--out', file, '--concurrency', '8']);
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(readFileSync(file, 'utf8')) as Array<Record<string, unknown>>;
    expect(rows).toEqual(expected);
    expect(Object.keys(rows[0]!)).toEqual(COLUMNS);
    expectCleanPaging(ROWS);
  });

  it('NDJSON via job export of a job still running: waits first, then one row object a line', async () => {
    const submitted = await fx.run(['sql', `${QUERY} /* sleep:700 */`, '--no-wait']);
    const id = submitted.stdout.trim();
    expect(jobs().get(id)?.state).not.toBe('COMPLETED');
    const file = join(dir, 'big.ndjson');
    const r = await fx.run(['job', 'export', id, '--out', file, '--concurrency', '2']);
    expect(r.code, r.stderr).toBe(0);
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(ROWS);
    for (let i = 0; i < ROWS; i += 997) expect(JSON.parse(lines[i]!)).toEqual(expected[i]);
    expect(lines.map((l) => JSON.parse(l))).toEqual(expected);
    // It waited: the results were asked for only once the job had completed.
    expect(resultRequests().every((e) => e.status === 200)).toBe(true);
  });

  it('--out - streams to standard output', async () => {
    const r = await fx.run([
      'sql',
      'SELECT * FROM big ORDER BY id LIMIT 1234',
      '--out',
      '-',
      '--format',
      'ndjson',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toEqual(expected.slice(0, 1234));
  });
});

describe('export failures', () => {
  it('a connection dropped mid-page is retried for that page, and the export completes', async () => {
    fx.emu.fault({ kind: 'reset', path: /\/results$/, times: 1 });
    const file = join(dir, 'retry.csv');
    const r = await fx.run(['sql', QUERY, '--out', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(parseCsv(readFileSync(file, 'utf8'))).toHaveLength(ROWS + 1);
    const faulted = resultRequests().filter((e) => e.fault === 'reset');
    expect(faulted).toHaveLength(1);
    expectCleanPaging(ROWS);
    expect(readdirSync(dir)).toEqual(['retry.csv']);
  });

  it('a server that keeps dropping the connection: exit 7, no file, the rows so far kept for --resume', async () => {
    const id = (await fx.run(['sql', QUERY, '--no-wait'])).stdout.trim();
    await until(() => jobs().get(id)?.state === 'COMPLETED', 'the job completes');
    // The first pages go through; then every results request is reset.
    fx.emu.fault({ kind: 'latency', path: /\/results$/, latencyMs: 1, times: 6 });
    fx.emu.fault({ kind: 'reset', path: /\/results$/ });
    const file = join(dir, 'broken.csv');
    const r = await fx.run(['job', 'export', id, '--out', file]);
    expectFailure(
      r,
      7,
      /the connection was closed before the answer was complete; gave up after 4 attempts: export stopped after [\d,]+ rows; .*broken\.csv was not written, the first [\d,]+ rows are kept in .*broken\.csv\.partial$/,
    );
    expect(r.stderr).toContain(`hint: resume with: dlake job export ${id} --out ${file} --resume`);
    expect(readdirSync(dir).sort()).toEqual(['broken.csv.partial', 'broken.csv.partial.json']);
  });

  it('an --out in a missing folder: exit 2 before the query is even submitted', async () => {
    const file = join(dir, 'no', 'such', 'folder', 'x.csv');
    const r = await fx.run(['sql', QUERY, '--out', file]);
    expectFailure(r, 2, 'does not exist');
    expect(fx.emu.log.find('POST', '/api/v3/sql')).toHaveLength(0);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('an --out below a file, or that is a folder: exit 2, nothing written', async () => {
    writeFileSync(join(dir, 'plain'), 'x');
    const below = await fx.run(['sql', 'SELECT 1', '--out', join(dir, 'plain', 'x.csv')]);
    expectFailure(below, 2, 'is not a folder');
    mkdirSync(join(dir, 'folder'));
    const folder = await fx.run(['sql', 'SELECT 1', '--out', join(dir, 'folder')]);
    expectFailure(folder, 2, 'it is a folder, not a file');
    expect(readdirSync(dir).sort()).toEqual(['folder', 'plain']);
    expect(readdirSync(join(dir, 'folder'))).toEqual([]);
  });

  it('Ctrl-C during an export: exit 130, no file, the rows written said and kept for --resume', async () => {
    const id = (await fx.run(['sql', QUERY, '--no-wait'])).stdout.trim();
    await until(() => jobs().get(id)?.state === 'COMPLETED', 'the job completes');
    fx.emu.fault({ kind: 'latency', path: /\/results$/, latencyMs: 100 });
    const file = join(dir, 'interrupted.csv');
    const child = startDlake(['job', 'export', id, '--out', file, '--concurrency', '2'], {
      env: { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url },
    });
    await until(() => resultRequests().filter((e) => e.status === 200).length >= 3, 'some pages are served');
    expect(existsSync(`${file}.partial`)).toBe(true);
    child.interrupt();
    const r = await child.done;
    expectFailure(
      r,
      130,
      /^error: interrupted: export stopped after [\d,]+ rows; .*interrupted\.csv was not written, the first [\d,]+ rows are kept in .*interrupted\.csv\.partial$/,
    );
    expect(r.stderr).toContain('--resume');
    expect(readdirSync(dir).sort()).toEqual(['interrupted.csv.partial', 'interrupted.csv.partial.json']);
  });
});
