// The export engine: ordered concurrent paging with bounded buffering, the stop conditions, the three row
// formats, exact numbers, and the file target (FILE.partial renamed on success, removed on failure).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hasLongDigitRun, JsonNumber, parseJsonExact, stringifyExact } from '../../src/api/exact-json.js';
import type { ResultField, ResultRow, ResultsPage } from '../../src/api/jobs.js';
import { DlakeError, ExitCode, InterruptedError, ServiceError } from '../../src/errors.js';
import type { ColumnType } from '../../src/export/column-types.js';
import { exportSpec, formatFromFileName } from '../../src/export/formats.js';
import { type FetchPage, pagesInOrder } from '../../src/export/pages.js';
import { ParquetRows } from '../../src/export/parquet.js';
import { ProgressBar } from '../../src/export/progress.js';
import { restCells, unscaled } from '../../src/export/rest-cells.js';
import { TakenRows } from '../../src/export/sink.js';
import { checkWritable, openFileSink, type Sink, stdoutSink } from '../../src/export/target.js';
import { parseCsv } from '../helpers/csv.js';
import { exportPages, textRows } from '../helpers/formats.js';
import { until } from '../helpers/until.js';

const SCHEMA: ResultField[] = [
  { name: 'id', type: { name: 'BIGINT' } },
  { name: 'name', type: { name: 'VARCHAR' } },
];

/** A fake results endpoint over `total` generated rows, with per-request delays and a request log. */
function fakeService(
  total: number,
  opts: {
    delay?: (offset: number) => number;
    /** Rows the service really holds (when rowCount overstates them). */
    actual?: number;
    fail?: (offset: number) => Error | undefined;
  } = {},
) {
  const requests: Array<{ offset: number; limit: number }> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const aborted: number[] = [];
  const actual = opts.actual ?? total;
  const fetchPage: FetchPage = (offset, limit, signal) => {
    requests.push({ offset, limit });
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    return new Promise<ResultsPage>((resolve, reject) => {
      const onAbort = (): void => {
        clearTimeout(timer);
        inFlight--;
        aborted.push(offset);
        reject(new InterruptedError('interrupted'));
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        inFlight--;
        const err = opts.fail?.(offset);
        if (err) return reject(err);
        const rows: ResultRow[] = [];
        for (let i = offset; i < Math.min(offset + limit, actual); i++) rows.push({ id: i, name: `r${i}` });
        resolve({ rowCount: total, schema: SCHEMA, rows, exact: false });
      }, opts.delay?.(offset) ?? 0);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  };
  return {
    fetchPage,
    requests,
    aborted,
    get maxInFlight() {
      return maxInFlight;
    },
    get inFlight() {
      return inFlight;
    },
  };
}

async function collect(gen: AsyncGenerator<{ offset: number; rows: ResultRow[] }>) {
  const pages: Array<{ offset: number; ids: number[] }> = [];
  for await (const p of gen) pages.push({ offset: p.offset, ids: p.rows.map((r) => r.id as number) });
  return pages;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('pagesInOrder', () => {
  it('hands out pages in order although they complete out of order', async () => {
    // Later pages answer first: page k waits (10 - k) ms.
    const svc = fakeService(5000, { delay: (o) => 20 - (o / 500) * 2 });
    const pages = await collect(pagesInOrder({ fetchPage: svc.fetchPage, pageSize: 500, concurrency: 4 }));
    expect(pages.map((p) => p.offset)).toEqual([0, 500, 1000, 1500, 2000, 2500, 3000, 3500, 4000, 4500]);
    expect(pages.flatMap((p) => p.ids)).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    // Each page asked for once, none above the page size.
    expect(svc.requests.map((r) => r.offset)).toEqual(pages.map((p) => p.offset));
    expect(Math.max(...svc.requests.map((r) => r.limit))).toBe(500);
    expect(svc.maxInFlight).toBe(4);
  });

  it('keeps `concurrency` requests busy but never more than `concurrency + buffer` pages ahead', async () => {
    const svc = fakeService(20_000, { delay: () => 1 });
    let ahead = 0;
    let consumed = 0;
    for await (const page of pagesInOrder({
      fetchPage: svc.fetchPage,
      pageSize: 500,
      concurrency: 3,
      buffer: 2,
    })) {
      consumed += page.rows.length;
      await sleep(5);
      // Asked for but not yet handed out, beyond the page being consumed now.
      const requestedRows = svc.requests.reduce((n, r) => n + r.limit, 0);
      ahead = Math.max(ahead, Math.ceil((requestedRows - consumed) / 500));
    }
    expect(consumed).toBe(20_000);
    expect(ahead).toBe(5);
    expect(svc.maxInFlight).toBe(3);
    expect(svc.requests).toHaveLength(40);
  });

  it('asks for the next page as soon as a request is answered, not when a page is consumed', async () => {
    const svc = fakeService(10_000, { delay: () => 5 });
    const gen = pagesInOrder({ fetchPage: svc.fetchPage, pageSize: 500, concurrency: 2, buffer: 4 });
    await gen.next();
    // The consumer holds on to the first page; the fetching goes on until the window is full, and stops there.
    await until(() => svc.requests.length >= 1 + 6 && svc.inFlight === 0, 'the window fills');
    expect(svc.requests).toHaveLength(1 + 6);
    expect(svc.inFlight).toBe(0);
    await gen.return(undefined);
  });

  it('stops at rowCount and asks the last page for exactly the rows left', async () => {
    const svc = fakeService(1234);
    const pages = await collect(pagesInOrder({ fetchPage: svc.fetchPage, pageSize: 500, concurrency: 8 }));
    expect(pages.flatMap((p) => p.ids)).toHaveLength(1234);
    expect(svc.requests).toEqual([
      { offset: 0, limit: 500 },
      { offset: 500, limit: 500 },
      { offset: 1000, limit: 234 },
    ]);
  });

  it('stops at a short page even when rowCount promises more, and aborts what is in flight', async () => {
    // rowCount says 10,000 but the service holds 1,700 rows (rowCount of a DML job, docs/api-facts.md §4.3).
    const svc = fakeService(10_000, { actual: 1700, delay: (o) => (o > 1500 ? 30 : 1) });
    const pages = await collect(pagesInOrder({ fetchPage: svc.fetchPage, pageSize: 500, concurrency: 4 }));
    expect(pages.flatMap((p) => p.ids)).toHaveLength(1700);
    expect(pages.at(-1)!.ids).toHaveLength(200);
    // Nothing was asked at or past the page after the short one beyond the window, and that window was aborted.
    expect(Math.max(...svc.requests.map((r) => r.offset))).toBeLessThanOrEqual(1500 + 4 * 500);
    expect(svc.aborted.length).toBeGreaterThan(0);
    await until(() => svc.inFlight === 0, 'the aborted requests end');
  });

  it('stops at an empty page', async () => {
    const svc = fakeService(3000, { actual: 1000 });
    const pages = await collect(pagesInOrder({ fetchPage: svc.fetchPage, pageSize: 500, concurrency: 1 }));
    expect(pages.map((p) => p.ids.length)).toEqual([500, 500, 0]);
    expect(svc.requests).toHaveLength(3);
  });

  it('stops after an empty first page, and reads nothing for a job without rows', async () => {
    const svc = fakeService(0);
    const pages = await collect(pagesInOrder({ fetchPage: svc.fetchPage, pageSize: 500, concurrency: 4 }));
    expect(pages).toEqual([{ offset: 0, ids: [] }]);
    expect(svc.requests).toHaveLength(1);
  });

  it('honours a start offset and a row cap', async () => {
    const svc = fakeService(5000);
    const pages = await collect(
      pagesInOrder({
        fetchPage: svc.fetchPage,
        pageSize: 500,
        concurrency: 4,
        startOffset: 700,
        maxRows: 800,
      }),
    );
    expect(pages.flatMap((p) => p.ids)).toEqual(Array.from({ length: 800 }, (_, i) => 700 + i));
    expect(svc.requests).toEqual([
      { offset: 700, limit: 500 },
      { offset: 1200, limit: 300 },
    ]);
  });

  it('fails with the failing page and aborts the pages in flight', async () => {
    const svc = fakeService(5000, {
      delay: (o) => (o === 1000 ? 5 : 50),
      fail: (o) => (o === 1000 ? new ServiceError('boom') : undefined),
    });
    await expect(
      collect(pagesInOrder({ fetchPage: svc.fetchPage, pageSize: 500, concurrency: 4 })),
    ).rejects.toThrow('boom');
    await until(() => svc.inFlight === 0, 'the aborted requests end');
    expect(svc.aborted.length).toBeGreaterThan(0);
  });
});

describe('row formats', () => {
  const awkward: ResultRow[] = [
    { id: 1, name: 'with, comma', flag: true, amount: 1.5 },
    { id: 2, name: 'with "quotes"', flag: false, amount: -0.25 },
    { id: 3, name: 'line\nbreak', flag: null, amount: null },
    { id: 4, name: 'crlf\r\nbreak', flag: true, amount: 0 },
    { id: 5, name: 'cr\ronly', flag: false, amount: 3 },
    { id: 6, name: 'naïve café – 東京 🚀', flag: true, amount: 1e21 },
    { id: 7, name: '', flag: false, amount: 2 },
    { id: 8, name: null, flag: true, amount: 2 },
    { id: 9, name: '  padded  ', flag: true, amount: 2 },
    { id: 10, name: '"quoted, with comma"\nand a new line', flag: true, amount: 2 },
  ];
  const schema: ResultField[] = [
    { name: 'id', type: { name: 'BIGINT' } },
    { name: 'name', type: { name: 'VARCHAR' } },
    { name: 'flag', type: { name: 'BOOLEAN' } },
    { name: 'amount', type: { name: 'DOUBLE' } },
  ];
  const render = (format: 'csv' | 'json' | 'ndjson', pages: ResultRow[][], exact = false) => {
    const f = textRows(format, schema);
    return f.head + pages.map((p) => f.format({ rows: p, exact: exact })).join('') + f.tail();
  };

  it('CSV: header from the schema, RFC 4180 quoting only where needed, null and empty as empty fields', () => {
    const csv = render('csv', [awkward.slice(0, 5), awkward.slice(5)]);
    expect(csv.split('\n')[0]).toBe('id,name,flag,amount');
    expect(csv).toBe(
      [
        'id,name,flag,amount',
        '1,"with, comma",true,1.5',
        '2,"with ""quotes""",false,-0.25',
        '3,"line\nbreak",,',
        '4,"crlf\r\nbreak",true,0',
        '5,"cr\ronly",false,3',
        '6,naïve café – 東京 🚀,true,1e+21',
        '7,,false,2',
        '8,,true,2',
        '9,  padded  ,true,2',
        '10,"""quoted, with comma""\nand a new line",true,2',
        '',
      ].join('\n'),
    );
    const parsed = parseCsv(csv);
    expect(parsed).toHaveLength(11);
    expect(parsed[10]![1]).toBe('"quoted, with comma"\nand a new line');
  });

  it('CSV cells: booleans true/false (not 1/empty), nested values as JSON, exact numbers as their text', () => {
    const cell = (name: string, v: unknown, type: ColumnType) => restCells(type, name).text(v);
    expect(cell('b', true, { kind: 'boolean' })).toBe('true');
    expect(cell('b', false, { kind: 'boolean' })).toBe('false');
    expect(cell('b', null, { kind: 'boolean' })).toBeNull();
    expect(cell('s', undefined, { kind: 'varchar' })).toBeNull();
    expect(cell('s', '', { kind: 'varchar' })).toBe('');
    expect(cell('o', { a: [1, 'x'] }, { kind: 'other', name: 'UNION' })).toBe('{"a":[1,"x"]}');
    const bigint = { kind: 'integer', bits: 64, unsigned: false } as const;
    expect(cell('n', new JsonNumber('9007199254740993'), bigint)).toBe('9007199254740993');
  });

  it('CSV of a result without rows is the header alone', () => {
    expect(render('csv', [])).toBe('id,name,flag,amount\n');
  });

  it('JSON: one well-formed array across pages, columns in schema order', () => {
    const reordered = awkward.map((r) => ({ amount: r.amount, flag: r.flag, name: r.name, id: r.id }));
    const json = render('json', [reordered.slice(0, 3), [], reordered.slice(3)]);
    const back = JSON.parse(json) as ResultRow[];
    expect(back).toEqual(awkward);
    expect(Object.keys(back[0]!)).toEqual(['id', 'name', 'flag', 'amount']);
    expect(json.startsWith('[\n{"id":1,')).toBe(true);
    expect(json.endsWith('}\n]\n')).toBe(true);
    expect(render('json', [])).toBe('[]\n');
    expect(JSON.parse(render('json', [[], []]))).toEqual([]);
  });

  it('NDJSON: one row object a line', () => {
    const nd = render('ndjson', [awkward.slice(0, 4), awkward.slice(4)]);
    const lines = nd.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => JSON.parse(l))).toEqual(awkward);
    expect(render('ndjson', [])).toBe('');
  });

  it('keeps integers a double cannot hold exact, and writes a DOUBLE as its shortest text, in every format', () => {
    const page = parseJsonExact(
      '{"rows":[{"id":9007199254740993,"name":"x 1.50","flag":true,"amount":1.50},{"id":1,"name":"y","flag":false,"amount":12345678901234567890.5}]}',
    );
    expect(page.exact).toBe(true);
    const rows = (page.value as { rows: ResultRow[] }).rows;
    expect(rows[0]!.name).toBe('x 1.50');
    expect(render('ndjson', [rows], true)).toBe(
      '{"id":9007199254740993,"name":"x 1.50","flag":true,"amount":1.5}\n' +
        '{"id":1,"name":"y","flag":false,"amount":12345678901234567000}\n',
    );
    expect(render('csv', [rows], true).split('\n')[1]).toBe('9007199254740993,x 1.50,true,1.5');
    expect(render('json', [rows], true)).toContain('"amount":12345678901234567000}');
  });

  it('infers the format from the file name', () => {
    expect(formatFromFileName('a.CSV')).toBe('csv');
    expect(formatFromFileName('a.jsonl')).toBe('ndjson');
    expect(formatFromFileName('a.json')).toBe('json');
    expect(formatFromFileName('a.txt')).toBeUndefined();
    expect(formatFromFileName('a.Parquet')).toBe('parquet');
  });

  it('export spec: the extension under a final .gz, --format first, .parquet.gz refused', () => {
    expect(exportSpec('a.csv.gz')).toEqual({ format: 'csv', gzip: true });
    expect(exportSpec('a.NDJSON.GZ')).toEqual({ format: 'ndjson', gzip: true });
    expect(exportSpec('a.gz')).toEqual({ format: 'csv', gzip: true });
    expect(exportSpec('a.parquet')).toEqual({ format: 'parquet', gzip: false });
    expect(exportSpec('a.parquet', 'json')).toEqual({ format: 'json', gzip: false });
    expect(exportSpec('-', 'ndjson')).toEqual({ format: 'ndjson', gzip: false });
    expect(() => exportSpec('a.parquet.gz')).toThrow(/cannot gzip a Parquet export/);
    expect(() => exportSpec('a.csv.gz', 'parquet')).toThrow(/cannot gzip a Parquet export/);
  });
});

describe('fast paths, held to what they replaced', () => {
  it('hasLongDigitRun answers as /[\\d.]{16}/ does, on any text', () => {
    const text = fc.string({ unit: fc.constantFrom('1', '2', '.', ',', 'a', '"', ' '), maxLength: 200 });
    fc.assert(fc.property(text, (t) => hasLongDigitRun(t) === /[\d.]{16}/.test(t)));
  });

  it('a CSV page reads back, field for field, through a strict RFC 4180 reader', () => {
    const cell = fc.oneof(
      fc.constant(null),
      fc.string({ unit: fc.constantFrom('a', ',', '"', '\r', '\n', ' ', 'é') }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(cell, cell), { minLength: 1, maxLength: 20 }), (rows) => {
        const f = textRows('csv', [
          { name: 'id', type: { name: 'VARCHAR' } },
          { name: 'name', type: { name: 'VARCHAR' } },
        ]);
        const page = f.format({ rows: rows.map(([id, name]) => ({ id, name })), exact: false });
        const text = `${f.head}${page}`;
        expect(parseCsv(text)).toEqual([['id', 'name'], ...rows.map((r) => r.map((c) => c ?? ''))]);
      }),
    );
  });
});

describe('Parquet', () => {
  it('decimals are scaled exactly from their text, rounding half away from zero', () => {
    expect(unscaled(new JsonNumber('12345678901234567890.125'), 2)).toBe(1234567890123456789013n);
    expect(unscaled(1.5, 3)).toBe(1500n);
    expect(unscaled(-0.004, 2)).toBe(0n);
    expect(unscaled('-2.675', 2)).toBe(-268n);
    expect(unscaled('1e3', 1)).toBe(10000n);
    expect(unscaled('25e-3', 3)).toBe(25n);
    expect(unscaled('0E-18', 18)).toBe(0n);
    expect(unscaled('abc', 2)).toBeUndefined();
    const decimal = new ParquetRows([{ name: 'c', type: { name: 'DECIMAL', precision: 10, scale: 2 } }]);
    expect(() => decimal.format({ rows: [{ c: 'abc' }], exact: false })).toThrow(
      /column "c".*"abc", which is not a decimal/,
    );
  });

  it('hands out a row group only once enough data is buffered, the rest and the footer at the end', () => {
    // A page of these rows is about 5,300 bytes of data (8 an id, the names' lengths): two make a group.
    const f = new ParquetRows(SCHEMA, { groupBytes: 9000 });
    expect(Buffer.from(f.head).toString()).toBe('PAR1');
    const page = (from: number) =>
      Array.from({ length: 500 }, (_, i) => ({ id: from + i, name: i % 3 ? `n${i}` : i % 2 ? null : '' }));
    expect(f.format({ rows: page(0), exact: false })).toBe('');
    const group = f.format({ rows: page(500), exact: false });
    expect(group.length).toBeGreaterThan(0);
    expect(f.format({ rows: page(1000), exact: false })).toBe('');
    const tail = Buffer.from(f.tail());
    expect(tail.subarray(-4).toString()).toBe('PAR1');
  });

  it('a value the column type cannot hold is an error naming the column (exit 7)', () => {
    const f = new ParquetRows(SCHEMA);
    expect(() => f.format({ rows: [{ id: 'twelve', name: 'x' }], exact: false })).toThrow(ServiceError);
    expect(() => new ParquetRows(SCHEMA).format({ rows: [{ id: 1.5, name: 'x' }], exact: false })).toThrow(
      /column "id"/,
    );
  });
});

describe('exact JSON', () => {
  it('parses ordinary bodies with JSON.parse and marks nothing', () => {
    const r = parseJsonExact('{"a":[1,2.5,-3,"9007199254740993",null,true]}');
    expect(r).toEqual({ value: { a: [1, 2.5, -3, '9007199254740993', null, true] }, exact: false });
  });

  it('keeps big integers, trailing zeros, exponents and -0 as text; leaves strings alone', () => {
    const r = parseJsonExact('{"a":12345678901234567890,"b":"12345678901234567890","c":[1.0,2E5,-0,0.5]}');
    expect(r.exact).toBe(true);
    const v = r.value as { a: JsonNumber; b: string; c: unknown[] };
    expect(v.a).toBeInstanceOf(JsonNumber);
    expect(v.a.text).toBe('12345678901234567890');
    expect(v.b).toBe('12345678901234567890');
    expect(v.c.map((x) => (x instanceof JsonNumber ? `#${x.text}` : x))).toEqual([
      '#1.0',
      '#2E5',
      '#-0',
      0.5,
    ]);
    expect(stringifyExact(v)).toBe(
      '{"a":12345678901234567890,"b":"12345678901234567890","c":[1.0,2E5,-0,0.5]}',
    );
  });

  it('leaves timestamps, ids and numbers inside strings alone, and survives a column named __proto__', () => {
    const text =
      '{"rows":[{"t":"2013-02-10 20:00:00.000","id":"2f067496-7cf0-a70e-0222-34d53a5dc800","__proto__":1.10}]}';
    const r = parseJsonExact(text);
    const row = (r.value as { rows: Array<Record<string, unknown>> }).rows[0]!;
    expect(row.t).toBe('2013-02-10 20:00:00.000');
    expect(row.id).toBe('2f067496-7cf0-a70e-0222-34d53a5dc800');
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(String(Object.getOwnPropertyDescriptor(row, '__proto__')?.value)).toBe('1.10');
  });
});

describe('a REST export to a file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dlake-export-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes FILE.partial and renames it on success', async () => {
    const svc = fakeService(2600, { delay: (o) => (o % 1000 ? 1 : 6) });
    const file = join(dir, 'out.csv');
    const target = await openFileSink(file);
    expect(existsSync(`${file}.partial`)).toBe(true);
    const progress: number[] = [];
    const out = await exportPages({
      fetchPage: svc.fetchPage,
      format: 'csv',
      target,
      pageSize: 500,
      concurrency: 3,
      onProgress: (rows) => progress.push(rows),
    });
    expect(out).toMatchObject({ rows: 2600, total: 2600, rowCount: 2600 });
    expect(readdirSync(dir)).toEqual(['out.csv']);
    const records = parseCsv(readFileSync(file, 'utf8'));
    expect(records[0]).toEqual(['id', 'name']);
    expect(records.slice(1).map((r) => Number(r[0]))).toEqual(Array.from({ length: 2600 }, (_, i) => i));
    expect(progress).toEqual([500, 1000, 1500, 2000, 2500, 2600]);
  });

  it('on a failing page leaves no file behind and says how many rows were written', async () => {
    const svc = fakeService(5000, {
      fail: (o) => (o === 2000 ? new ServiceError('cannot reach the service') : undefined),
    });
    const file = join(dir, 'out.ndjson');
    const err = await exportPages({
      fetchPage: svc.fetchPage,
      format: 'ndjson',
      target: await openFileSink(file),
      pageSize: 500,
      concurrency: 1,
    }).catch((e: unknown) => e as DlakeError);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as DlakeError).exitCode).toBe(ExitCode.service);
    expect((err as Error).message).toBe(
      `cannot reach the service: export stopped after 2,000 rows; ${file} was not written`,
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it('on Ctrl-C stops, removes the partial file and ends with exit code 130', async () => {
    const svc = fakeService(50_000, { delay: () => 2 });
    const ac = new AbortController();
    const file = join(dir, 'out.json');
    const err = await exportPages({
      fetchPage: svc.fetchPage,
      format: 'json',
      target: await openFileSink(file),
      pageSize: 500,
      concurrency: 2,
      signal: ac.signal,
      onProgress: (rows) => {
        if (rows >= 3000) ac.abort();
      },
    }).catch((e: unknown) => e as DlakeError);
    expect(err).toBeInstanceOf(InterruptedError);
    expect((err as DlakeError).exitCode).toBe(130);
    expect((err as Error).message).toMatch(
      /^interrupted: export stopped after 3,000 rows; .*out\.json was not written$/,
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a disk that fills up is a local I/O failure (exit 9), and nothing is left behind', async () => {
    const svc = fakeService(3000);
    let removed = false;
    const full = new Writable({
      write(_chunk, _enc, cb) {
        cb(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
      },
    });
    const base = stdoutSink(full);
    const target: Sink = {
      ...base,
      name: 'big.csv',
      isFile: true,
      write: (t, s) => base.write(t, s),
      commit: () => base.commit(),
      discard: async () => {
        removed = true;
      },
      // Handled as Ctrl-C is: what can be resumed is kept (here nothing can).
      suspend: async () => {
        removed = true;
        return 0;
      },
    };
    const err = await exportPages({ fetchPage: svc.fetchPage, format: 'csv', target, pageSize: 500 }).catch(
      (e: unknown) => e as DlakeError,
    );
    expect(err).toBeInstanceOf(DlakeError);
    expect((err as DlakeError).exitCode).toBe(ExitCode.localIO);
    expect((err as Error).message).toMatch(/no space left on the device: export stopped after/);
    expect(removed).toBe(true);
  });

  it('waits for a slow output to drain (backpressure) rather than buffering the result', async () => {
    const svc = fakeService(10_000);
    let buffered = 0;
    let maxBuffered = 0;
    const slow = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _enc, cb) {
        buffered += chunk.length;
        maxBuffered = Math.max(maxBuffered, buffered);
        setTimeout(() => {
          buffered -= chunk.length;
          cb();
        }, 2);
      },
    });
    const out = await exportPages({
      fetchPage: svc.fetchPage,
      format: 'ndjson',
      target: stdoutSink(slow),
      pageSize: 500,
      concurrency: 4,
    });
    expect(out.rows).toBe(10_000);
    // One page of ~12 KB at most is queued in the stream, never the whole result (~250 KB).
    expect(maxBuffered).toBeLessThan(40_000);
    expect(svc.requests).toHaveLength(20);
  });

  it("hands each page's CSV buffer to the sink for good: never released for reuse, whatever the sink", async () => {
    // Pages whose CSV buffer is filled with junk if released, as a reused buffer would be.
    const events: string[] = [];
    const fetchPage: FetchPage = async (offset) => {
      const csv = Buffer.from(`${offset}\n`);
      return {
        rowCount: 4,
        schema: [{ name: 'n', type: { name: 'BIGINT' } }],
        rows: new Array(2),
        exact: false,
        csv,
        release: () => {
          events.push(`release ${offset}`);
          csv.fill('#');
        },
      };
    };
    const held: Buffer[] = [];
    const slow = new Writable({
      write(chunk: Buffer, _enc, cb) {
        held.push(chunk);
        setTimeout(cb, 5);
      },
    });
    const file = join(dir, 'out.csv.gz');
    for (const target of [stdoutSink(slow), await openFileSink(file, { gzip: true })]) {
      const write = target.write.bind(target);
      target.write = async (chunk, signal) => {
        await write(chunk, signal);
        events.push(`write ${String(chunk).trim() || Buffer.from(chunk).toString().trim()}`);
      };
      events.length = 0;
      await exportPages({ fetchPage, format: 'csv', target, pageSize: 2, concurrency: 1 });
      expect(events).toEqual(['write n', 'write 0', 'write 2', 'write ']);
    }
    await new Promise((r) => slow.end(r));
    expect(Buffer.concat(held).toString()).toBe('n\n0\n2\n');
    expect(gunzipSync(readFileSync(file)).toString()).toBe('n\n0\n2\n');
  });

  it('refuses an --out in a missing folder or that is a folder, before any request', async () => {
    await expect(checkWritable(join(dir, 'missing', 'x.csv'))).rejects.toThrow(
      /the folder .* does not exist/,
    );
    await expect(checkWritable(dir)).rejects.toThrow(/it is a folder, not a file/);
    await expect(openFileSink(join(dir, 'missing', 'x.csv'))).rejects.toMatchObject({
      exitCode: ExitCode.usage,
    });
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('ProgressBar', () => {
  it('fits a narrow terminal (COLUMNS=40): never as wide as the terminal, so it never wraps', () => {
    let t = 0;
    const bar = new ProgressBar({ write: () => {}, columns: 40 }, 'exporting', () => t);
    t = 1000;
    for (const [rows, total] of [
      [25_000, 100_000],
      [1_234_567, 10_000_000],
      [5, 0],
    ] as const) {
      const line = bar.line(rows, total, t);
      expect(line.length, line).toBeLessThan(40);
      expect(line).toMatch(/^exporting /);
    }
    expect(bar.line(25_000, 100_000, t)).toBe('exporting  25%  25,000/100,000 rows');
  });

  it('shows rows, percentage, rate and time left, redrawing at most every 100 ms', () => {
    let t = 0;
    const out: string[] = [];
    const bar = new ProgressBar({ write: (s: string) => out.push(s), columns: 120 }, 'exporting', () => t);
    t = 1000;
    bar.update(25_000, 100_000);
    t = 1050;
    bar.update(26_000, 100_000);
    expect(out).toHaveLength(1);
    expect(out[0]).toBe(
      '\r\x1b[2Kexporting [##########------------------------------]  25%  25,000/100,000 rows  25,000 rows/s  ETA 3s',
    );
    t = 2000;
    bar.update(100_000, 100_000);
    expect(out.at(-1)).toContain('100%');
    bar.done();
    expect(out.at(-1)).toBe('\r\x1b[2K');
  });
});

describe('a column named __proto__', () => {
  it('is a column like any other in every format: its value where a row has it, empty or null where not', () => {
    const schema: ResultField[] = [
      { name: '__proto__', type: { name: 'VARCHAR' } },
      { name: 'n', type: { name: 'BIGINT' } },
    ];
    const rows = parseJsonExact('[{"__proto__":"x","n":1},{"n":2}]').value as ResultRow[];
    expect(textRows('csv', schema).format({ rows: rows, exact: false })).toBe('x,1\n,2\n');
    expect(textRows('ndjson', schema).format({ rows: rows, exact: false })).toBe(
      '{"__proto__":"x","n":1}\n{"__proto__":null,"n":2}\n',
    );
    const pretty = textRows('json', schema, { pretty: true }).format({ rows: rows, exact: false });
    expect(JSON.parse(`[${pretty}]`)).toEqual(
      JSON.parse('[{"__proto__":"x","n":1},{"__proto__":null,"n":2}]'),
    );
  });
});

describe('pretty JSON rows (sql -o json on standard output)', () => {
  it('lays rows out as JSON.stringify(rows, null, 2) would, numbers exactly as the API wrote them', () => {
    const schema: ResultField[] = [
      { name: 'n', type: { name: 'BIGINT' } },
      { name: 'l', type: { name: 'LIST' } },
    ];
    const f = textRows('json', schema, { pretty: true });
    const big = { n: new JsonNumber('12345678901234567890') };
    const text = [
      f.head,
      f.format({ rows: [{ l: [1, { c: null }], n: big.n }], exact: true }),
      f.format({ rows: [{ n: 2, l: [] }], exact: false }),
      f.tail(),
    ].join('');
    expect(text).toBe(
      `${JSON.stringify(
        [
          { n: 1, l: [1, { c: null }] },
          { n: 2, l: [] },
        ],
        null,
        2,
      ).replace('"n": 1', '"n": 12345678901234567890')}\n`,
    );
    const empty = textRows('json', schema, { pretty: true });
    expect(`${empty.head}${empty.tail()}`).toBe('[]\n');
  });
});

// A device or standard output: the rows it took are those whose bytes it took whole (a full device: none).
describe('the rows a destination took', () => {
  it('are those whose bytes it took whole, counted from marks as they are handed over', () => {
    const t = new TakenRows();
    expect(t.rows).toBe(0);
    t.mark(500, 100);
    t.mark(1000, 200);
    t.mark(1500, 300);
    t.took(0);
    expect(t.rows).toBe(0);
    t.took(250);
    expect(t.rows).toBe(1000);
    t.took(300);
    expect(t.rows).toBe(1500);
  });
});
