// The Parquet encoder read back by DuckDB: the same rows and types whether written from REST pages (row
// objects) or from Arrow record batches as Flight delivers them (4,095 rows, sliced batches whose columns start
// at an offset, batches of one row); null and "" apart; the doubles JSON cannot write; the statistics DuckDB
// skips row groups by agree with the rows (a wrong min or max would drop rows from a filtered read). And the
// Snappy compressor against hyparquet's decompressor on generated inputs.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import {
  Bool,
  DateDay,
  DateMillisecond,
  Field,
  Float16,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  LargeUtf8,
  List,
  makeData,
  Null,
  RecordBatch,
  Schema,
  Struct,
  TimestampMicrosecond,
  TimestampMillisecond,
  Uint32,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import fc from 'fast-check';
import { snappyUncompress } from 'hyparquet/src/snappy.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonNumber } from '../../src/api/exact-json.js';
import type { ResultField, ResultRow } from '../../src/api/jobs.js';
import { ParquetRows } from '../../src/export/parquet.js';
import { ParquetBatches } from '../../src/export/parquet-arrow.js';
import { snappy } from '../../src/export/parquet-snappy.js';

const FIELDS: ResultField[] = [
  { name: 'id', type: { name: 'BIGINT' } },
  { name: 'name', type: { name: 'VARCHAR' } },
  { name: 'amount', type: { name: 'DOUBLE' } },
  { name: 'flag', type: { name: 'BOOLEAN' } },
  { name: 'day', type: { name: 'DATE' } },
  { name: 'ts', type: { name: 'TIMESTAMP' } },
  { name: 'small', type: { name: 'INTEGER' } },
];

const NAMES = ['', 'naïve café – 東京 🚀', 'with, "quotes"\nand LF', 'zz last', 'a first'];
const SPECIAL = [Number.NaN, -0, 0, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
const DAY = 86_400_000;

interface Row {
  id: bigint | null;
  name: string | null;
  amount: number | null;
  flag: boolean | null;
  day: number | null;
  at: number | null;
  small: number | null;
}

/** Row i: nulls in every column at different periods, ids from -2^62 upward (beyond doubles' integers). */
function row(i: number): Row {
  return {
    id: i % 11 === 5 ? null : -(2n ** 62n) + BigInt(i) * 1_000_000_007n,
    name: i % 7 === 3 ? null : i % 13 === 0 ? NAMES[i % NAMES.length]! : `user_${i}`,
    amount: i % 17 === 2 ? null : i % 19 === 0 ? SPECIAL[i % SPECIAL.length]! : (i * 7919) / 100 - 5000,
    flag: i % 5 === 1 ? null : i % 3 === 0,
    day: i % 9 === 4 ? null : i - 20_000,
    at: i % 23 === 8 ? null : i * 1_234_567 - 10 * DAY,
    small: i % 29 === 0 ? null : (i % 1000) - 500,
  };
}

const ROWS = 10_000;
const ALL = Array.from({ length: ROWS }, (_, i) => row(i));

/** A row as the REST results give it (doubles JSON cannot hold arrive as null: use them only over Flight). */
function restRow(r: Row): ResultRow {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    id: r.id === null ? null : (r.id as unknown as number),
    name: r.name,
    amount: r.amount,
    flag: r.flag,
    day: r.day === null ? null : iso(r.day * DAY).slice(0, 10),
    ts: r.at === null ? null : iso(r.at).replace('T', ' ').slice(0, 23),
    small: r.small,
  };
}

const ARROW_FIELDS = [
  new Field('id', new Int64(), true),
  new Field('name', new Utf8(), true),
  new Field('amount', new Float64(), true),
  new Field('flag', new Bool(), true),
  new Field('day', new DateDay(), true),
  new Field('ts', new TimestampMillisecond(), true),
  new Field('small', new Int32(), true),
];
const ARROW_SCHEMA = new Schema(ARROW_FIELDS);

/** Rows [from, to) as one record batch, built `lead` rows early and sliced, so its columns start at an offset. */
function batch(from: number, to: number, lead = 0): RecordBatch {
  const rows = ALL.slice(from - lead, to);
  const col = <T>(pick: (r: Row) => T, type: ConstructorParameters<typeof Field>[1]) =>
    vectorFromArray(rows.map(pick), type as never).data[0]!;
  const children = [
    col((r) => r.id, new Int64()),
    col((r) => r.name, new Utf8()),
    col((r) => r.amount, new Float64()),
    col((r) => r.flag, new Bool()),
    col((r) => (r.day === null ? null : new Date(r.day * DAY)), new DateDay()),
    col((r) => r.at, new TimestampMillisecond()),
    col((r) => r.small, new Int32()),
  ];
  const data = makeData({ type: new Struct(ARROW_FIELDS), length: rows.length, nullCount: 0, children });
  const whole = new RecordBatch(ARROW_SCHEMA, data);
  return lead ? whole.slice(lead) : whole;
}

const parts = (
  p: { head: string | Uint8Array; tail(): string | Uint8Array },
  body: (string | Uint8Array)[],
) => Buffer.concat([p.head, ...body, p.tail()].map((b) => (typeof b === 'string' ? Buffer.from(b) : b)));

let dir: string;
let db: DuckDBInstance;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-parquet-columns-'));
  db = await DuckDBInstance.create(':memory:');
});
afterAll(() => {
  db.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

async function query(sql: string): Promise<Record<string, unknown>[]> {
  const conn = await db.connect();
  try {
    return (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
  } finally {
    conn.closeSync();
  }
}

/** The file's rows as DuckDB reads them, in the order written. */
async function readBack(file: string): Promise<Row[]> {
  const rows = await query(
    `SELECT id, name, amount, flag, epoch_ms(day::TIMESTAMP) // ${DAY} AS day, epoch_ms(ts) AS at, small
     FROM read_parquet('${file}')`,
  );
  return rows.map((r) => ({
    id: r.id as bigint | null,
    name: r.name as string | null,
    amount: r.amount as number | null,
    flag: r.flag as boolean | null,
    day: r.day === null ? null : Number(r.day),
    at: r.at === null ? null : Number(r.at),
    small: r.small as number | null,
  }));
}

/** What JS says the rows are, with -0 and 0 apart (toEqual tells them apart as DuckDB does). */
const expected = (rows: Row[]) => rows;

function writeFlight(file: string, batches: RecordBatch[]): void {
  const f = new ParquetBatches(ARROW_SCHEMA);
  writeFileSync(
    file,
    parts(
      f,
      batches.map((b) => f.format(b)),
    ),
  );
}

describe('Parquet read back by DuckDB', () => {
  it('from Arrow batches of 4,095 rows: every row, every type, null and "" apart, NaN and ±0 kept', async () => {
    const batches: RecordBatch[] = [];
    for (let i = 0; i < ROWS; i += 4095) batches.push(batch(i, Math.min(ROWS, i + 4095)));
    const file = join(dir, 'flight.parquet');
    writeFlight(file, batches);
    const types = await query(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
    expect(types.map((t) => `${t.column_name} ${t.column_type}`)).toEqual([
      'id BIGINT',
      'name VARCHAR',
      'amount DOUBLE',
      'flag BOOLEAN',
      'day DATE',
      'ts TIMESTAMP',
      'small INTEGER',
    ]);
    const back = await readBack(file);
    expect(back).toHaveLength(ROWS);
    expect(back).toEqual(expected(ALL));
    expect(back.filter((r) => r.name === '').length).toBeGreaterThan(0);
    expect(back.filter((r) => r.name === null).length).toBeGreaterThan(0);
  });

  it('from sliced batches (columns at an offset) and batches of one row: the same rows', async () => {
    const batches: RecordBatch[] = [];
    let i = 0;
    for (const size of [1, 1, 4095, 3, 65_536 % 5000, 1]) {
      batches.push(batch(i, i + size, i >= 5 ? 5 : 0));
      i += size;
    }
    const file = join(dir, 'sliced.parquet');
    writeFlight(file, batches);
    expect(batches.some((b) => b.data.children[1]!.offset > 0)).toBe(true);
    expect(await readBack(file)).toEqual(ALL.slice(0, i));
  });

  it('from REST pages: the rows and types the Arrow columns give', async () => {
    // REST has no NaN or ±Infinity (JSON gives null): rows holding one are compared without them.
    const rows = ALL.map((r) =>
      r.amount !== null && !Number.isFinite(r.amount) ? { ...r, amount: null } : r,
    );
    const rest = new ParquetRows(FIELDS, { groupBytes: 64 * 1024 });
    const pages: (string | Uint8Array)[] = [];
    for (let i = 0; i < ROWS; i += 500)
      pages.push(rest.format({ rows: rows.slice(i, i + 500).map(restRow), exact: false }));
    const file = join(dir, 'rest.parquet');
    writeFileSync(file, parts(rest, pages));
    const groups = await query(`SELECT DISTINCT row_group_id FROM parquet_metadata('${file}')`);
    expect(groups.length).toBeGreaterThan(3);
    expect(await readBack(file)).toEqual(rows);
    const flight = join(dir, 'flight-same.parquet');
    const batches: RecordBatch[] = [];
    for (let i = 0; i < ROWS; i += 4095) batches.push(batch(i, Math.min(ROWS, i + 4095)));
    writeFlight(flight, batches);
    const describe = (f: string) => query(`DESCRIBE SELECT * FROM read_parquet('${f}')`);
    expect(await describe(file)).toEqual(await describe(flight));
  });

  it('row-group statistics agree with the rows: filtered reads find every row', async () => {
    const f = new ParquetRows(FIELDS, { groupBytes: 16 * 1024 });
    const rows = ALL.map((r) =>
      r.amount !== null && !Number.isFinite(r.amount) ? { ...r, amount: null } : r,
    );
    const pages: (string | Uint8Array)[] = [];
    for (let i = 0; i < ROWS; i += 500)
      pages.push(f.format({ rows: rows.slice(i, i + 500).map(restRow), exact: false }));
    const file = join(dir, 'stats.parquet');
    writeFileSync(file, parts(f, pages));
    const count = async (where: string) =>
      Number((await query(`SELECT count(*) AS n FROM read_parquet('${file}') WHERE ${where}`))[0]!.n);
    const js = (pick: (r: Row) => boolean) => rows.filter(pick).length;
    const probe = rows[7777]!;
    expect(await count(`id = ${probe.id}`)).toBe(1);
    expect(await count(`id < ${-(2n ** 62n) + 5_000_000_070n}`)).toBe(
      js((r) => r.id !== null && r.id < -(2n ** 62n) + 5_000_000_070n),
    );
    expect(await count(`name >= 'user_9'`)).toBe(js((r) => r.name !== null && r.name >= 'user_9'));
    expect(await count(`name = 'naïve café – 東京 🚀'`)).toBe(js((r) => r.name === 'naïve café – 東京 🚀'));
    expect(await count('amount > 700')).toBe(js((r) => r.amount !== null && r.amount > 700));
    expect(await count('flag')).toBe(js((r) => r.flag === true));
    expect(await count('small = -500')).toBe(js((r) => r.small === -500));
    expect(await count('name IS NULL')).toBe(js((r) => r.name === null));
  });
});

describe('nested columns from sliced Arrow batches', () => {
  it('integers and doubles inside a LIST and a STRUCT, nulls at every level, read where they are', async () => {
    const n = 5000;
    const xs = Array.from({ length: n }, (_, i) =>
      i % 13 === 0 ? null : { x: i % 7 === 0 ? null : i / 3, k: i % 11 === 0 ? null : i * 1000 - 2_000_000 },
    );
    const ids = Array.from({ length: n }, (_, i) =>
      i % 17 === 0
        ? null
        : Array.from({ length: i % 4 }, (_, j) =>
            j === 1 && i % 5 === 0 ? null : BigInt(i * 10 + j) - 20_000n,
          ),
    );
    const point = new Struct([new Field('x', new Float64(), true), new Field('k', new Int32(), true)]);
    const list = new List(new Field('item', new Int64(), true));
    const fields = [new Field('point', point, true), new Field('ids', list, true)];
    const schema = new Schema(fields);
    const children = [vectorFromArray(xs, point).data[0]!, vectorFromArray(ids, list).data[0]!];
    const whole = new RecordBatch(
      schema,
      makeData({ type: new Struct(fields), length: n, nullCount: 0, children }),
    );
    // Batches that start at an offset of the whole: their children's values and bitmaps start inside theirs.
    const batches = [whole.slice(0, 1), whole.slice(1, 1700), whole.slice(1700, 4095), whole.slice(4095)];
    expect(batches[2]!.data.children[0]!.offset).toBeGreaterThan(0);
    const f = new ParquetBatches(schema);
    const file = join(dir, 'nested-fixed.parquet');
    writeFileSync(
      file,
      parts(
        f,
        batches.map((b) => f.format(b)),
      ),
    );
    const back = await query(
      `SELECT point.x AS x, point.k AS k, point IS NULL AS none, ids FROM read_parquet('${file}')`,
    );
    expect(back).toHaveLength(n);
    back.forEach((r, i) => {
      expect(r.none).toBe(xs[i] === null);
      expect(r.x).toEqual(xs[i]?.x ?? null);
      expect(r.k).toEqual(xs[i]?.k ?? null);
      expect(r.ids).toEqual(ids[i]);
    });
  });
});

describe('the bytes of a row group handed out', () => {
  it('are the caller’s until it gives them back; given back, the next row group is written in the same buffer', () => {
    const write = (recycle: boolean) => {
      const f = new ParquetRows(FIELDS, { groupBytes: 16 * 1024 });
      const chunks: (string | Uint8Array)[] = [];
      const buffers = new Set<ArrayBufferLike>();
      for (let i = 0; i < ROWS; i += 500) {
        const chunk = f.format({ rows: ALL.slice(i, i + 500).map(restRow), exact: false });
        if (typeof chunk === 'string' || chunk.length === 0) continue;
        buffers.add(chunk.buffer);
        // A sink that copies (the file sink) gives the chunk back at once; one that keeps it never does.
        chunks.push(recycle ? Buffer.from(chunk) : chunk);
        if (recycle) f.recycle(chunk);
      }
      return { file: parts(f, chunks), groups: chunks.length, buffers: buffers.size };
    };
    const kept = write(false);
    const recycled = write(true);
    expect(kept.groups).toBeGreaterThan(3);
    expect(kept.buffers).toBe(kept.groups);
    expect(recycled.buffers).toBe(1);
    expect(recycled.file.equals(kept.file)).toBe(true);
  });
});

describe('column chunks of many pages', () => {
  it('a row group of 60,000 rows: pages of 128 KiB each, every row back, statistics over all pages', async () => {
    const n = 60_000;
    const rows = Array.from({ length: n }, (_, i) => row(i)).map((r) =>
      r.amount !== null && !Number.isFinite(r.amount) ? { ...r, amount: null } : r,
    );
    const f = new ParquetRows(FIELDS, { groupBytes: 64 * 1024 * 1024 });
    const pages: (string | Uint8Array)[] = [];
    for (let i = 0; i < n; i += 500)
      pages.push(f.format({ rows: rows.slice(i, i + 500).map(restRow), exact: false }));
    const file = join(dir, 'pages.parquet');
    writeFileSync(file, parts(f, pages));
    // One row group; its id column's 480,000 bytes of values are more than three pages' worth (a page ends at
    // the first 500-row page that takes it past 128 KiB).
    const chunks = await query(
      `SELECT row_group_id, path_in_schema, total_uncompressed_size FROM parquet_metadata('${file}')`,
    );
    expect(new Set(chunks.map((c) => c.row_group_id)).size).toBe(1);
    expect(Number(chunks.find((c) => c.path_in_schema === 'id')!.total_uncompressed_size)).toBeGreaterThan(
      3 * 128 * 1024,
    );
    expect(await readBack(file)).toEqual(rows);
    const count = async (where: string) =>
      Number((await query(`SELECT count(*) AS n FROM read_parquet('${file}') WHERE ${where}`))[0]!.n);
    const last = rows.findLast((r) => r.id !== null)!;
    expect(await count(`id = ${last.id}`)).toBe(1);
    expect(await count(`name = '${rows[59_999]!.name}'`)).toBe(1);
    expect(await count('amount >= 0')).toBe(rows.filter((r) => r.amount !== null && r.amount >= 0).length);
  });
});

describe('Arrow types whose bytes are not the Parquet column’s', () => {
  it('narrow and unsigned integers, half and single floats, LargeUtf8, Null, Date(ms), Timestamp(µs)', async () => {
    const n = 9;
    const pick = <T>(f: (i: number) => T) => Array.from({ length: n }, (_, i) => (i === 4 ? null : f(i)));
    const columns: Array<[string, ConstructorParameters<typeof Field>[1], unknown[]]> = [
      ['i16', new Int16(), pick((i) => i * 1000 - 4000)],
      ['u32', new Uint32(), pick((i) => 4_000_000_000 + i)],
      ['f32', new Float32(), pick((i) => i / 4)],
      ['f16', new Float16(), pick((i) => i - 2.5)],
      ['large', new LargeUtf8(), pick((i) => (i === 2 ? '' : `large ${i} ü`))],
      ['nothing', new Null(), Array.from({ length: n }, () => null)],
      ['dms', new DateMillisecond(), pick((i) => new Date(Date.UTC(2024, 0, 1 + i)))],
      ['tus', new TimestampMicrosecond(), pick((i) => 1_700_000_000_000 + i * 1234.567)],
    ];
    const fields = columns.map(([name, type]) => new Field(name, type as never, true));
    const children = columns.map(([, type, values]) => vectorFromArray(values, type as never).data[0]!);
    const schema = new Schema(fields);
    const b = new RecordBatch(
      schema,
      makeData({ type: new Struct(fields), length: n, nullCount: 0, children }),
    );
    const f = new ParquetBatches(schema);
    const file = join(dir, 'types.parquet');
    writeFileSync(file, parts(f, [f.format(b)]));
    const types = await query(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
    expect(types.map((t) => `${t.column_name} ${t.column_type}`)).toEqual([
      // Narrow integers are INT32 in Parquet annotated with their width, as the REST export writes SMALLINT.
      'i16 SMALLINT',
      'u32 BIGINT',
      'f32 FLOAT',
      'f16 FLOAT',
      'large VARCHAR',
      'nothing VARCHAR',
      'dms DATE',
      // Not adjusted to UTC: the Arrow type has no zone.
      'tus TIMESTAMP',
    ]);
    const back = await query(
      `SELECT i16, u32, f32, f16, large, nothing, dms::VARCHAR AS dms, epoch_ms(tus) AS tus FROM read_parquet('${file}')`,
    );
    expect(back).toEqual(
      Array.from({ length: n }, (_, i) =>
        i === 4
          ? { i16: null, u32: null, f32: null, f16: null, large: null, nothing: null, dms: null, tus: null }
          : {
              i16: i * 1000 - 4000,
              u32: BigInt(4_000_000_000 + i),
              f32: i / 4,
              f16: i - 2.5,
              large: i === 2 ? '' : `large ${i} ü`,
              nothing: null,
              dms: `2024-01-0${1 + i}`,
              tus: BigInt(Math.floor(1_700_000_000_000 + i * 1234.567)),
            },
      ),
    );
  });
});

describe('decimals and the types written as text', () => {
  it('DECIMAL(9,2) as int64 and DECIMAL(38,4) as bytes: exact, 0 and signs included; a LIST as its JSON', async () => {
    const fields: ResultField[] = [
      { name: 'small', type: { name: 'DECIMAL', precision: 9, scale: 2 } },
      { name: 'wide', type: { name: 'DECIMAL', precision: 38, scale: 4 } },
      { name: 'tags', type: { name: 'LIST' } },
    ];
    const wide = [
      '0',
      '-1',
      '1',
      '127.9',
      '-128',
      '0.0128',
      '-0.0129',
      '12345678901234567890123456789012.3456',
    ];
    const wide4 = wide.map((w) => {
      const [i, f = ''] = w.split('.');
      return `${i}.${f.padEnd(4, '0')}`.replace(/^(-?)\./, '$10.');
    });
    const rows: ResultRow[] = wide.map((w, i) => ({
      small: i === 3 ? null : new JsonNumber(`${(i - 4) * 1234567}.${i}5`),
      wide: new JsonNumber(w),
      tags: i % 2 ? null : [i, `t${i}`],
    }));
    const f = new ParquetRows(fields);
    const file = join(dir, 'decimals.parquet');
    writeFileSync(file, parts(f, [f.format({ rows: rows, exact: false })]));
    const back = await query(
      `SELECT small::VARCHAR AS small, wide::VARCHAR AS wide, tags FROM read_parquet('${file}')`,
    );
    expect(back).toEqual(
      wide.map((_, i) => ({
        small: i === 3 ? null : `${(i - 4) * 1234567}.${i}5`.replace(/^-0\./, '-0.'),
        wide: wide4[i],
        tags: i % 2 ? null : JSON.stringify([i, `t${i}`]),
      })),
    );
  });
});

describe('Snappy', () => {
  it('decompresses to its input (hyparquet’s decompressor), for any bytes and repetitive ones', () => {
    const check = (input: Uint8Array) => {
      const out = new Uint8Array(input.length);
      snappyUncompress(snappy(input), out);
      expect(Buffer.from(out).equals(Buffer.from(input))).toBe(true);
    };
    fc.assert(fc.property(fc.uint8Array({ maxLength: 3000 }), check), { numRuns: 300 });
    // Few distinct bytes: long matches, copies longer than 64 bytes, offsets near the 65,535 limit.
    fc.assert(
      fc.property(fc.array(fc.constantFrom(0, 1, 97), { maxLength: 5000 }), fc.nat(70_000), (small, pad) => {
        const bytes = Uint8Array.from(small);
        const input = new Uint8Array(bytes.length * 2 + pad);
        input.set(bytes);
        input.set(bytes, bytes.length + pad);
        check(input);
      }),
      { numRuns: 100 },
    );
  });
});
