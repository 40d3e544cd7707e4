// Parquet --resume in process: the writer's row-group metadata survives the sidecar's JSON (bigints, bytes,
// -0, NaN, ±Infinity), a formatter given it back continues the file byte for byte from any row group, and an
// export stopped mid-way keeps FILE.partial and a sidecar that --resume turns into the uninterrupted file.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JsonNumber } from '../../src/api/exact-json.js';
import type { ResultField, ResultRow, ResultsPage } from '../../src/api/jobs.js';
import { InterruptedError, UsageError } from '../../src/errors.js';
import type { FetchPage } from '../../src/export/pages.js';
import { ParquetRows } from '../../src/export/parquet.js';
import { decodeState, encodeState } from '../../src/export/parquet-state.js';
import { checkResume } from '../../src/export/resume.js';
import { openFileSink, readResumeRecord } from '../../src/export/target.js';
import { exportPages } from '../helpers/formats.js';

const TYPES: ResultField[] = [
  { name: 'id', type: { name: 'BIGINT' } },
  { name: 'name', type: { name: 'VARCHAR' } },
  { name: 'amount', type: { name: 'DOUBLE' } },
  { name: 'flag', type: { name: 'BOOLEAN' } },
  { name: 'day', type: { name: 'DATE' } },
  { name: 'at', type: { name: 'TIMESTAMP' } },
  { name: 'price', type: { name: 'DECIMAL', precision: 10, scale: 2 } },
  { name: 'big', type: { name: 'DECIMAL', precision: 38, scale: 4 } },
  { name: 'tags', type: { name: 'LIST' } },
];

const SPECIAL = [-0, 0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1.5];

/** Row i of every type, with nulls, empty strings and the doubles JSON cannot write. */
function typedRow(i: number): ResultRow {
  return {
    id: i % 7 === 0 ? null : new JsonNumber(String(9007199254740993n + BigInt(i))),
    name: i % 5 === 0 ? '' : i % 11 === 0 ? null : `name ${i} ${'x'.repeat(i % 40)}`,
    amount: i % 13 === 0 ? null : i % 3 === 0 ? SPECIAL[(i / 3) % SPECIAL.length]! : i / 7 - 300,
    flag: i % 17 === 0 ? null : i % 2 === 0,
    day: `2024-0${1 + (i % 9)}-1${i % 10}`,
    at: `2024-03-0${1 + (i % 9)} 12:34:56.${String(i % 1000).padStart(3, '0')}`,
    price: new JsonNumber(`${i % 100000}.${i % 100}`),
    big: new JsonNumber(`-${i}12345678901234567890.${i % 10000}`),
    tags: i % 4 === 0 ? null : [i, `t${i}`],
  };
}

const rowsOf = (from: number, n: number) => Array.from({ length: n }, (_, k) => typedRow(from + k));
const bytesOf = (b: string | Uint8Array) => (typeof b === 'string' ? Buffer.from(b) : Buffer.from(b));

describe('Parquet writer state in the sidecar', () => {
  it('encodes what JSON cannot hold and decodes it back as it was', () => {
    const value = {
      n: 12345678901234567890n,
      b: new Uint8Array([0, 1, 255]),
      d: [-0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 2.5],
      at: new Date(86_400_000),
      sparse: [1, undefined, 'x'],
      missing: undefined,
      // Only a tag's own type is decoded: a number under the same key is left alone.
      nested: { $bigint: 2 },
    };
    const back = decodeState(JSON.parse(JSON.stringify(encodeState(value)))) as typeof value;
    expect(back.n).toBe(12345678901234567890n);
    expect(back.b).toEqual(new Uint8Array([0, 1, 255]));
    expect(Object.is(back.d[0], -0)).toBe(true);
    expect(back.d.slice(1)).toEqual([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 2.5]);
    expect(back.at).toEqual(new Date(86_400_000));
    expect(back.sparse).toEqual([1, undefined, 'x']);
    expect('missing' in back).toBe(false);
    expect(back.nested).toEqual({ $bigint: 2 });
  });

  it('a formatter given the state at any row group continues the file byte for byte', () => {
    const PAGE = 500;
    const PAGES = 16;
    const opts = { groupBytes: 64 * 1024 };
    const whole = new ParquetRows(TYPES, opts);
    const parts: Buffer[] = [bytesOf(whole.head)];
    // Every row group boundary: the pages fed so far, the bytes so far and the state there.
    const boundaries: Array<{ pages: number; bytes: number; state: unknown }> = [];
    let size = parts[0]!.length;
    for (let p = 0; p < PAGES; p++) {
      const out = bytesOf(whole.format({ rows: rowsOf(p * PAGE, PAGE), exact: false }));
      parts.push(out);
      size += out.length;
      if (whole.held === 0) boundaries.push({ pages: p + 1, bytes: size, state: whole.state() });
    }
    parts.push(bytesOf(whole.tail()));
    const expected = Buffer.concat(parts);
    expect(boundaries.length).toBeGreaterThanOrEqual(3);
    for (const at of boundaries) {
      // Through the sidecar's JSON text, as a resumed process reads it.
      const state = JSON.parse(JSON.stringify(at.state));
      const resumed = new ParquetRows(TYPES, { ...opts, resume: { bytes: at.bytes, state } });
      expect(resumed.head.length).toBe(0);
      const rest: Buffer[] = [];
      for (let p = at.pages; p < PAGES; p++)
        rest.push(bytesOf(resumed.format({ rows: rowsOf(p * PAGE, PAGE), exact: false })));
      rest.push(bytesOf(resumed.tail()));
      const file = Buffer.concat([expected.subarray(0, at.bytes), ...rest]);
      expect(file.equals(expected), `resumed after ${at.pages} pages`).toBe(true);
    }
  });

  it('row groups of wide cells keep a small state and resume byte for byte', () => {
    // Strings of 4 KiB: the state keeps a short prefix of each chunk's min and max, not the cells.
    const schema: ResultField[] = [
      { name: 'id', type: { name: 'BIGINT' } },
      { name: 'text', type: { name: 'VARCHAR' } },
    ];
    const page = (from: number) =>
      Array.from({ length: 100 }, (_, k) => ({ id: from + k, text: `${from + k}`.padEnd(4096, 'abcdefgh') }));
    const whole = new ParquetRows(schema);
    const first: Buffer[] = [bytesOf(whole.head)];
    let p = 0;
    do first.push(bytesOf(whole.format({ rows: page(100 * p++), exact: false })));
    while (whole.held > 0);
    const at = Buffer.concat(first);
    const state = JSON.parse(JSON.stringify(whole.state()));
    expect(JSON.stringify(state).length).toBeLessThan(2000);
    const rest = [bytesOf(whole.format({ rows: page(100 * p), exact: false })), bytesOf(whole.tail())];
    const resumed = new ParquetRows(schema, { resume: { bytes: at.length, state } });
    const again = [bytesOf(resumed.format({ rows: page(100 * p), exact: false })), bytesOf(resumed.tail())];
    expect(Buffer.concat([at, ...again]).equals(Buffer.concat([at, ...rest]))).toBe(true);
  });
});

describe('a REST export to Parquet, stopped and resumed', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dlake-parquet-resume-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const TOTAL = 12_000;
  const SCHEMA: ResultField[] = [
    { name: 'id', type: { name: 'BIGINT' } },
    { name: 'text', type: { name: 'VARCHAR' } },
  ];
  // About 1 KiB a row: a row group (2 MiB of data) every ~2,000 rows.
  const fetchPage: FetchPage = async (offset, limit) => {
    const rows: ResultRow[] = [];
    for (let i = offset; i < Math.min(offset + limit, TOTAL); i++)
      rows.push({ id: i, text: i % 9 === 0 ? null : `${i} `.padEnd(1000 + (i % 50), 'lorem ipsum ') });
    return { rowCount: TOTAL, schema: SCHEMA, rows, exact: false } satisfies ResultsPage;
  };
  const run = async (file: string, opts: Partial<Parameters<typeof exportPages>[0]> = {}) =>
    exportPages({
      fetchPage,
      format: 'parquet',
      target: await openFileSink(file, { record: { jobId: 'job-1', format: 'parquet' } }),
      pageSize: 500,
      concurrency: 2,
      ...opts,
    });

  it('keeps FILE.partial and its row groups in the sidecar; --resume gives the uninterrupted file', async () => {
    const whole = join(dir, 'whole.parquet');
    await run(whole);
    const file = join(dir, 'rows.parquet');
    const ac = new AbortController();
    const err = await run(file, {
      signal: ac.signal,
      onProgress: (rows) => {
        if (rows >= 7000) ac.abort();
      },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InterruptedError);
    expect(String((err as Error).message)).toMatch(
      /the first [\d,]+ rows are kept in .*rows\.parquet\.partial$/,
    );
    const record = await checkResume(file, 'job-1', { format: 'parquet', gzip: false });
    expect(record).toMatchObject({ jobId: 'job-1', format: 'parquet', gzip: false });
    expect(record!.rows).toBeGreaterThan(0);
    expect(record!.rows).toBeLessThan(TOTAL);
    expect(readFileSync(`${file}.partial`).subarray(0, 4).toString()).toBe('PAR1');

    const out = await exportPages({
      fetchPage,
      format: 'parquet',
      target: await openFileSink(file, { record: { jobId: 'job-1', format: 'parquet' }, resume: record }),
      pageSize: 500,
      concurrency: 2,
      startOffset: record!.rows,
      continuing: true,
      resumeState: { state: record!.writer, bytes: record!.bytes },
    });
    expect(out.rows).toBe(TOTAL - record!.rows);
    expect(readFileSync(file).equals(readFileSync(whole))).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['rows.parquet', 'whole.parquet']);
  });

  it('a Parquet partial is refused as CSV, and a sidecar without its row groups is refused', async () => {
    const file = join(dir, 'rows.parquet');
    const ac = new AbortController();
    await run(file, {
      signal: ac.signal,
      onProgress: (rows) => {
        if (rows >= 5000) ac.abort();
      },
    }).catch(() => undefined);
    await expect(checkResume(file, 'job-1', { format: 'csv', gzip: false })).rejects.toThrow(
      /it holds PARQUET, not CSV/,
    );
    const record = await readResumeRecord(file);
    writeFileSync(`${file}.partial.json`, JSON.stringify({ ...record, writer: undefined }));
    const refused = await checkResume(file, 'job-1', { format: 'parquet', gzip: false }).catch((e) => e);
    expect(refused).toBeInstanceOf(UsageError);
    expect(refused.message).toMatch(/does not describe its Parquet row groups/);
    writeFileSync(`${file}.partial.json`, JSON.stringify({ ...record, rows: record!.rows + 500 }));
    await expect(checkResume(file, 'job-1', { format: 'parquet', gzip: false })).rejects.toThrow(
      /does not describe its Parquet row groups/,
    );
  });
});
