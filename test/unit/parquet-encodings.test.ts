// The Parquet writer's encodings read back by pyarrow and DuckDB, value for value: text columns as a dictionary
// and indexes (kept, given up in the first batch for values that rarely repeat, and given up after pages of
// indexes when the dictionary outgrows its bound: one column chunk of both), all-null pages, and nested columns
// shredded a whole Arrow batch at a time (4,095-row batches, sliced ones, a list's values over many pages, nulls
// and empties at every level). The pages' encodings are checked in the footer (hyparquet's reader), so that each
// path is known to be the one taken.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Field,
  Float64,
  Int32,
  Int64,
  List,
  Map_,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import { parquetMetadata } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ParquetBatches } from '../../src/export/parquet-arrow.js';
import { type ExportValue, readParquet } from '../helpers/real-readers.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-parquet-encodings-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Columns = [string, ConstructorParameters<typeof Field>[1], unknown[]][];

/** Record batches of `size` rows (the last one shorter) of the columns' values, from row `from` on. */
function batches(columns: Columns, size: number): RecordBatch[] {
  const fields = columns.map(([name, type]) => new Field(name, type as never, true));
  const schema = new Schema(fields);
  const n = columns[0]![2].length;
  const out: RecordBatch[] = [];
  for (let from = 0; from < n; from += size) {
    const to = Math.min(n, from + size);
    const children = columns.map(
      ([, type, values]) => vectorFromArray(values.slice(from, to), type as never).data[0]!,
    );
    out.push(
      new RecordBatch(
        schema,
        makeData({ type: new Struct(fields), length: to - from, nullCount: 0, children }),
      ),
    );
  }
  return out;
}

/** The batches as a Parquet file (groupBytes: a row group's PLAIN bytes), its path. */
function write(name: string, list: RecordBatch[], groupBytes?: number): string {
  const f = new ParquetBatches(list[0]!.schema, groupBytes ? { groupBytes } : {});
  const parts: Uint8Array[] = [f.head];
  for (const b of list) {
    const out = f.format(b);
    if (typeof out !== 'string') parts.push(Buffer.from(out));
  }
  parts.push(f.tail());
  const file = join(dir, name);
  writeFileSync(file, Buffer.concat(parts));
  return file;
}

/** Each column chunk's pages by kind and encoding, as the footer lists them (`column: [kind/encoding×count]`). */
function pages(file: string): Record<string, string[]>[] {
  const bytes = readFileSync(file);
  const meta = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  return meta.row_groups.map((g) =>
    Object.fromEntries(
      g.columns.map((c) => [
        c.meta_data!.path_in_schema.join('.'),
        (c.meta_data!.encoding_stats ?? []).map((e) => `${e.page_type}/${e.encoding}×${e.count}`),
      ]),
    ),
  );
}

/** The file's rows as pyarrow and DuckDB read them (dlake's NDJSON form): the two must agree. */
async function rowsOf(file: string): Promise<Record<string, ExportValue>[]> {
  const read = (await readParquet([file]))[file]!;
  if ('error' in read.pyarrow) throw new Error(`pyarrow: ${read.pyarrow.error}`);
  if ('error' in read.duckdb) throw new Error(`duckdb: ${read.duckdb.error}`);
  expect(read.duckdb.records).toEqual(read.pyarrow.records);
  return read.pyarrow.records;
}

/** A JS value as the readers' records give it: numbers as their text. */
function exported(v: unknown): ExportValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number' || typeof v === 'bigint') return { $n: String(v) };
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [k, exported(x)]));
  if (Array.isArray(v)) return v.map(exported);
  return Object.fromEntries(Object.entries(v as object).map(([k, x]) => [k, exported(x)]));
}

const expected = (columns: Columns) =>
  columns[0]![2].map((_, r) =>
    Object.fromEntries(columns.map(([name, , values]) => [name, exported(values[r])])),
  );

describe('text columns as a dictionary', () => {
  it('few distinct values kept as indexes, unique ones PLAIN from the first batch, an all-null column', async () => {
    const n = 20_000;
    const columns: Columns = [
      ['id', new Int64(), Array.from({ length: n }, (_, i) => BigInt(i))],
      [
        'status',
        new Utf8(),
        Array.from({ length: n }, (_, i) => (i % 11 === 0 ? null : ['ok', '', 'naïve 東京'][i % 3])),
      ],
      ['name', new Utf8(), Array.from({ length: n }, (_, i) => (i % 7 === 0 ? null : `user_${i}`))],
      ['nothing', new Utf8(), Array.from({ length: n }, () => null)],
    ];
    const file = write('dictionary.parquet', batches(columns, 4095));
    const groups = pages(file);
    expect(groups.length).toBeGreaterThan(0);
    for (const g of groups) {
      expect(g.status).toHaveLength(2);
      expect(g.status![0]).toBe('DICTIONARY_PAGE/PLAIN×1');
      expect(g.status![1]).toMatch(/^DATA_PAGE_V2\/RLE_DICTIONARY×\d+$/);
      expect(g.name).toHaveLength(1);
      expect(g.name![0]).toMatch(/^DATA_PAGE_V2\/PLAIN×\d+$/);
      expect(g.nothing).toEqual(['DATA_PAGE_V2/PLAIN×1']);
    }
    expect(await rowsOf(file)).toEqual(expected(columns));
  });

  it('a dictionary that outgrows its bound after pages of indexes: the rest of the chunk PLAIN, in one chunk', async () => {
    // 32,760 rows of three values (a page of indexes ends at 128 KiB of their PLAIN bytes), then 1,200 values
    // of 1,000 bytes that repeat once each: the dictionary passes 1 MiB and is given up mid-chunk.
    const long = (k: number) => `${k}`.padStart(8, '0').repeat(125);
    const values = [
      ...Array.from({ length: 32_760 }, (_, i) => (i % 13 === 0 ? null : ['north', 'south', 'east'][i % 3]!)),
      ...Array.from({ length: 2400 }, (_, i) => long(i >> 1)),
      ...Array.from({ length: 3000 }, (_, i) => ['north', 'west'][i % 2]!),
    ];
    const columns: Columns = [
      ['k', new Int32(), values.map((_, i) => i)],
      ['v', new Utf8(), values],
    ];
    const file = write('overflow.parquet', batches(columns, 4095), 64 * 1024 * 1024);
    const [group, ...rest] = pages(file);
    expect(rest).toEqual([]);
    const v = group!.v!;
    expect(v[0]).toBe('DICTIONARY_PAGE/PLAIN×1');
    expect(v[1]).toMatch(/^DATA_PAGE_V2\/RLE_DICTIONARY×[2-9]$/);
    expect(v[2]).toMatch(/^DATA_PAGE_V2\/PLAIN×\d+$/);
    expect(await rowsOf(file)).toEqual(expected(columns));
  });
});

describe('statistics of text', () => {
  it('min and max in unsigned byte order: shared prefixes, values shorter than 4 bytes, the empty one', () => {
    const sets = [
      ['abcd', 'abc', 'abcde', 'ab', 'abd', 'abcd\u0000', 'é', 'z', 'zz'],
      // The same first 4 bytes: the order is in the next ones.
      ['abcdmmmm', 'abcdzzzz', 'abcdaaaa', 'abcdmmmmq', 'abcdmmm', 'abcdzzzy1'],
      ['user_100', 'user_1000', 'user_99', 'user_9', 'user_0999'],
      ['b', '', 'a'],
    ];
    const order = (values: string[]) =>
      [...values].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    for (const set of sets) {
      const rows = Array.from({ length: 600 }, (_, i) => set[(i * 7) % set.length]!);
      // Once as the dictionary's values (few distinct), once PLAIN (every value distinct: a suffix added).
      for (const values of [rows, rows.map((w, i) => `${w}\u0001${i}`)]) {
        const file = write('stats.parquet', batches([['w', new Utf8(), values]], 4095));
        const bytes = readFileSync(file);
        const meta = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
        const stats = meta.row_groups[0]!.columns[0]!.meta_data!.statistics!;
        const sorted = order(values);
        expect([stats.min_value, stats.max_value]).toEqual([sorted[0], sorted.at(-1)]);
      }
    }
  });
});

describe('nested columns shredded a batch at a time', () => {
  const tags = new List(new Field('item', new Utf8(), true));
  const point = new Struct([new Field('x', new Float64(), true), new Field('y', new Int64(), true)]);
  const attrs = new Map_(
    new Field(
      'entries',
      new Struct<{ key: Utf8; value: Int32 }>([
        new Field('key', new Utf8(), false),
        new Field('value', new Int32(), true),
      ]) as never,
      false,
    ),
  );
  const ids = new List(new Field('item', new Int64(), true));

  function nested(n: number, listLength: (i: number) => number): Columns {
    return [
      [
        'tags',
        tags,
        Array.from({ length: n }, (_, i) =>
          i % 31 === 0
            ? null
            : Array.from({ length: listLength(i) }, (_, j) =>
                j === 1 && i % 5 === 0 ? null : `t${(i + j) % 6}`,
              ),
        ),
      ],
      [
        'point',
        point,
        Array.from({ length: n }, (_, i) =>
          i % 29 === 0
            ? null
            : { x: i % 7 === 0 ? null : i + 0.25, y: i % 11 === 0 ? null : BigInt(i) * -3n },
        ),
      ],
      [
        'attrs',
        attrs,
        Array.from({ length: n }, (_, i) =>
          i % 5 === 0
            ? new Map()
            : i % 17 === 0
              ? null
              : new Map([
                  ['a', i % 1000],
                  ['b', i % 3 ? null : -i],
                ]),
        ),
      ],
      [
        'ids',
        ids,
        Array.from({ length: n }, (_, i) =>
          i % 13 === 0
            ? []
            : Array.from({ length: listLength(i) }, (_, j) => BigInt(i) * (j % 2 ? -100n : 100n) + BigInt(j)),
        ),
      ],
    ];
  }

  it('4,095-row batches: nulls and empties at every level, the values of every level', async () => {
    const columns = nested(9000, (i) => i % 4);
    const file = write('nested.parquet', batches(columns, 4095));
    expect(await rowsOf(file)).toEqual(expected(columns));
  });

  it('sliced batches (children at an offset), and every list null or empty in a batch', async () => {
    const columns = nested(6000, (i) => i % 4);
    // Rows 4,200-4,500: every list empty or null (pages whose leaves hold no value).
    for (let i = 4200; i < 4500; i++) {
      columns[0]![2][i] = i % 2 ? null : [];
      columns[3]![2][i] = [];
    }
    const [whole] = batches(columns, 6000);
    const slices = [whole!.slice(0, 1), whole!.slice(1, 4200), whole!.slice(4200, 4500), whole!.slice(4500)];
    expect(slices[3]!.data.children[1]!.offset).toBeGreaterThan(0);
    const file = write('nested-sliced.parquet', slices);
    expect(await rowsOf(file)).toEqual(expected(columns));
  });

  it('long lists: a chunk of many pages, each ending between two rows', async () => {
    const columns = nested(4095 * 3, (i) => 5 + (i % 8)).filter(
      ([name]) => name === 'tags' || name === 'ids',
    );
    const file = write('nested-pages.parquet', batches(columns, 4095), 64 * 1024 * 1024);
    const [group, ...rest] = pages(file);
    expect(rest).toEqual([]);
    const counts = (column: string) =>
      group!
        [column]!.filter((p) => p.startsWith('DATA_PAGE'))
        .reduce((s, p) => s + Number(p.split('×')[1]), 0);
    expect(counts('ids.list.element')).toBe(3);
    expect(counts('tags.list.element')).toBe(3);
    expect(await rowsOf(file)).toEqual(expected(columns));
  });
});
