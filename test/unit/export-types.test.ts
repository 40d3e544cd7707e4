// The type matrix: every type the service has (docs/cli-contract.md "Every type an export writes"), with its edge
// values (0, negative zero, ±2^63, 38-digit decimals and a decimal zero, NaN and the infinities, dates before 1970,
// before year 1 and after 2262, empty lists, null structs, empty maps, nulls at every level), over REST (as the
// service's JSON writer prints them: docs/api-facts.md §16) and over Flight in every Arrow encoding (the service's
// vectors, and the others servers send: dictionaries, views, Large types, other units, zones, Decimal256,
// month-day-nano intervals), in every format: CSV, NDJSON and JSON byte for byte the same whichever transport and
// encoding, each value in its canonical text; Parquet read back by pyarrow and DuckDB with the same values.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import * as A from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { parseResultsPage, type ResultField } from '../../src/api/jobs.js';
import { readStream } from '../../src/export/flight/result.js';
import type { ExportFormat } from '../../src/export/formats.js';
import { csvFromResultsPage, flatColumns } from '../../src/export/json-csv.js';
import { ParquetRows } from '../../src/export/parquet.js';
import { daysFromCivil } from '../../src/export/values.js';
import { csvField } from '../../src/util/csv-field.js';
import { batchFormatter, textRows } from '../helpers/formats.js';
import { payloadsOf } from '../helpers/hostile-flight.js';
import { ndjsonValues, readParquet, recordsOf } from '../helpers/real-readers.js';

const N = 6;
type Encoding = 'service' | 'other' | 'view';
const ENCODINGS: Encoding[] = ['service', 'other', 'view'];

interface Column {
  name: string;
  /** The REST schema's type of the column. */
  type: ResultField['type'];
  /** Each row's cell as the service's REST answer writes it (JSON text). */
  rest: string[];
  /** Each row's canonical text (before CSV quoting), null for SQL NULL. */
  text: (string | null)[];
  /** The column in each Arrow encoding (the service's vectors when an encoding is not given). */
  arrow: Partial<Record<Encoding, () => A.Data>> & { service: () => A.Data };
}

/** Arrow's validity bitmap of `values` (null where the value is null), and the null count. */
function validity(values: readonly unknown[]) {
  const bitmap = new Uint8Array(8);
  let nulls = 0;
  values.forEach((v, i) => {
    if (v === null) nulls++;
    else bitmap[i >> 3]! |= 1 << (i & 7);
  });
  return { nullCount: nulls, nullBitmap: nulls ? bitmap : null };
}

/** A fixed-width column from its raw values (`data`), nulls where `values` has them. */
const fixed = (type: A.DataType, values: readonly unknown[], data: ArrayBufferView) => () =>
  A.makeData({ type: type as A.Int32, length: N, ...validity(values), data: data as Int32Array });
const built = (type: A.DataType, values: readonly unknown[]) => () =>
  A.vectorFromArray(values, type).data[0]!;

/** A decimal's unscaled values as `bits`-wide two's complement words. */
function decimalWords(values: readonly (bigint | null)[], bits: number): Uint32Array {
  const words = bits / 32;
  const out = new Uint32Array(N * words);
  values.forEach((v, i) => {
    const u = BigInt.asUintN(bits, v ?? 0n);
    for (let w = 0; w < words; w++) out[i * words + w] = Number((u >> BigInt(32 * w)) & 0xffffffffn);
  });
  return out;
}

const MS = 86_400_000;
const dates = [0, -1, daysFromCivil(-220, 1, 1), daysFromCivil(2300, 1, 1), null, daysFromCivil(10000, 1, 1)];
const times = [0, 86_399_999, 45_296_789, null, 1, 3_600_000];
const stamps = [
  -1,
  0,
  daysFromCivil(2300, 1, 1) * MS,
  daysFromCivil(-220, 1, 1) * MS,
  null,
  1_700_000_000_123,
];
const dayTime: ([number, number] | null)[] = [
  [3, 14_706_007],
  [0, 0],
  null,
  [-1, -1500],
  [0, 86_399_999],
  [10, 0],
];
const months = [14, 0, -13, null, 12, 1];
const decimals = [0n, -1n, 12345678901234567890123456789012345678n, -(10n ** 18n), null, 10n ** 38n - 1n];
const smallDecimals = [0n, -5n, 12345n, null, 99_999_999n, 1n];
const bytes = [[0, 255, 1], [], null, [1, 2, 3, 4], [104, 105], [0]].map((b) =>
  b ? Uint8Array.from(b) : null,
);
const int32 = (name: string) => new A.Field(name, new A.Int32(), true);
const utf8 = (name: string) => new A.Field(name, new A.Utf8(), true);
const struct = new A.Struct([utf8('a'), new A.Field('b', new A.Float64(), true)]);
const entries = [
  new A.Field('key', new A.Utf8(), false),
  new A.Field('value', new A.Int64(), true),
] as never[];
const map = new A.Map_(new A.Field('entries', new A.Struct(entries), false));
const nestedItem = new A.Struct([int32('n'), new A.Field('tags', new A.List(utf8('item')), true)]);
/** MonthDayNano intervals: months, days, nanoseconds (64 bits) a value. */
function monthDayNano(values: readonly ([number, number, bigint] | null)[]): Int32Array {
  const out = new Int32Array(N * 4);
  values.forEach((v, i) => {
    if (!v) return;
    out[i * 4] = v[0];
    out[i * 4 + 1] = v[1];
    const n = BigInt.asUintN(64, v[2]);
    out[i * 4 + 2] = Number(n & 0xffffffffn) | 0;
    out[i * 4 + 3] = Number(n >> 32n) | 0;
  });
  return out;
}

const COLUMNS: Column[] = [
  {
    name: 'b',
    type: { name: 'BOOLEAN' },
    rest: ['true', 'false', 'null', 'true', 'false', 'true'],
    text: ['true', 'false', null, 'true', 'false', 'true'],
    arrow: { service: built(new A.Bool(), [true, false, null, true, false, true]) },
  },
  {
    name: 'ti',
    type: { name: 'TINYINT' },
    rest: ['0', '-128', '127', 'null', '1', '-1'],
    text: ['0', '-128', '127', null, '1', '-1'],
    arrow: { service: built(new A.Int8(), [0, -128, 127, null, 1, -1]) },
  },
  {
    name: 'i',
    type: { name: 'INTEGER' },
    rest: ['0', '-2147483648', '2147483647', 'null', '7', '-1'],
    text: ['0', '-2147483648', '2147483647', null, '7', '-1'],
    arrow: { service: built(new A.Int32(), [0, -2147483648, 2147483647, null, 7, -1]) },
  },
  {
    name: 'l',
    type: { name: 'BIGINT' },
    rest: ['0', '9007199254740993', '-9223372036854775808', '9223372036854775807', 'null', '-1'],
    text: ['0', '9007199254740993', '-9223372036854775808', '9223372036854775807', null, '-1'],
    arrow: {
      service: built(new A.Int64(), [0n, 9007199254740993n, -(2n ** 63n), 2n ** 63n - 1n, null, -1n]),
    },
  },
  {
    name: 'f',
    type: { name: 'FLOAT' },
    rest: ['3.4E38', '-0.0', '"NaN"', '"Infinity"', '0.1', 'null'],
    text: ['3.4e+38', '-0', 'NaN', 'Infinity', '0.1', null],
    arrow: {
      service: built(new A.Float32(), [
        Math.fround(3.4e38),
        -0,
        Number.NaN,
        Number.POSITIVE_INFINITY,
        0.1,
        null,
      ]),
    },
  },
  {
    name: 'd',
    type: { name: 'DOUBLE' },
    rest: ['1.0E300', '-0.0', '"NaN"', '"-Infinity"', '0.30000000000000004', '4.9E-324'],
    text: ['1e+300', '-0', 'NaN', '-Infinity', '0.30000000000000004', '5e-324'],
    arrow: {
      service: built(new A.Float64(), [1e300, -0, Number.NaN, Number.NEGATIVE_INFINITY, 0.1 + 0.2, 5e-324]),
    },
  },
  {
    name: 'm',
    type: { name: 'DECIMAL', precision: 38, scale: 18 },
    rest: [
      '0E-18',
      '-1E-18',
      '12345678901234567890.123456789012345678',
      '-1.000000000000000000',
      'null',
      '99999999999999999999.999999999999999999',
    ],
    text: [
      '0.000000000000000000',
      '-0.000000000000000001',
      '12345678901234567890.123456789012345678',
      '-1.000000000000000000',
      null,
      '99999999999999999999.999999999999999999',
    ],
    arrow: {
      service: fixed(new A.Decimal(18, 38, 128), decimals, decimalWords(decimals, 128)),
      other: fixed(new A.Decimal(18, 38, 256), decimals, decimalWords(decimals, 256)),
    },
  },
  {
    name: 'm2',
    type: { name: 'DECIMAL', precision: 9, scale: 2 },
    rest: ['0.00', '-0.05', '123.45', 'null', '999999.99', '0.01'],
    text: ['0.00', '-0.05', '123.45', null, '999999.99', '0.01'],
    arrow: { service: fixed(new A.Decimal(2, 9, 128), smallDecimals, decimalWords(smallDecimals, 128)) },
  },
  {
    name: 's',
    type: { name: 'VARCHAR' },
    rest: ['a,b', 'quote"d', '', 'é 東京 🚀', 'line\nbreak', null].map((s) => JSON.stringify(s)),
    text: ['a,b', 'quote"d', '', 'é 東京 🚀', 'line\nbreak', null],
    arrow: {
      service: built(new A.Utf8(), ['a,b', 'quote"d', '', 'é 東京 🚀', 'line\nbreak', null]),
      other: built(new A.Dictionary(new A.Utf8(), new A.Int32()), [
        'a,b',
        'quote"d',
        '',
        'é 東京 🚀',
        'line\nbreak',
        null,
      ]),
      view: built(new A.Utf8View(), ['a,b', 'quote"d', '', 'é 東京 🚀', 'line\nbreak', null]),
    },
  },
  {
    name: 'v',
    type: { name: 'VARBINARY' },
    rest: bytes.map((b) => (b ? JSON.stringify(Buffer.from(b).toString('base64')) : 'null')),
    text: bytes.map((b) => (b ? Buffer.from(b).toString('base64') : null)),
    arrow: {
      service: built(new A.Binary(), bytes),
      other: built(new A.LargeBinary(), bytes),
      view: built(new A.BinaryView(), bytes),
    },
  },
  {
    name: 'dt',
    type: { name: 'DATE' },
    rest: ['"1970-01-01"', '"1969-12-31"', '"-0220-01-01"', '"2300-01-01"', 'null', '"10000-01-01"'],
    text: ['1970-01-01', '1969-12-31', '-0220-01-01', '2300-01-01', null, '10000-01-01'],
    arrow: {
      service: built(
        new A.DateMillisecond(),
        dates.map((d) => (d === null ? null : new Date(d * MS))),
      ),
      other: fixed(
        new A.DateDay(),
        dates,
        Int32Array.from(dates, (d) => d ?? 0),
      ),
    },
  },
  {
    name: 'tm',
    type: { name: 'TIME' },
    rest: ['"00:00:00.000"', '"23:59:59.999"', '"12:34:56.789"', 'null', '"00:00:00.001"', '"01:00:00.000"'],
    text: ['00:00:00.000', '23:59:59.999', '12:34:56.789', null, '00:00:00.001', '01:00:00.000'],
    arrow: {
      service: fixed(
        new A.TimeMillisecond(),
        times,
        Int32Array.from(times, (t) => t ?? 0),
      ),
      other: fixed(
        new A.TimeNanosecond(),
        times,
        BigInt64Array.from(times, (t) => BigInt(t ?? 0) * 1_000_000n),
      ),
      view: fixed(
        new A.TimeMicrosecond(),
        times,
        BigInt64Array.from(times, (t) => BigInt(t ?? 0) * 1000n),
      ),
    },
  },
  {
    name: 'ts',
    type: { name: 'TIMESTAMP' },
    rest: [
      '"1969-12-31 23:59:59.999"',
      '"1970-01-01 00:00:00.000"',
      '"2300-01-01 00:00:00.000"',
      '"-0220-01-01 00:00:00.000"',
      'null',
      '"2023-11-14 22:13:20.123"',
    ],
    text: [
      '1969-12-31 23:59:59.999',
      '1970-01-01 00:00:00.000',
      '2300-01-01 00:00:00.000',
      '-0220-01-01 00:00:00.000',
      null,
      '2023-11-14 22:13:20.123',
    ],
    arrow: {
      service: fixed(
        new A.TimestampMillisecond(),
        stamps,
        BigInt64Array.from(stamps, (t) => BigInt(t ?? 0)),
      ),
      // The older Flight connector's encoding: microseconds in UTC.
      other: fixed(
        new A.TimestampMicrosecond('UTC'),
        stamps,
        BigInt64Array.from(stamps, (t) => BigInt(t ?? 0) * 1000n),
      ),
    },
  },
  {
    name: 'iv',
    type: { name: 'INTERVAL DAY TO SECOND' },
    rest: [
      '"+003 04:05:06.007"',
      '"+000 00:00:00.000"',
      'null',
      '"-001 00:00:01.500"',
      '"+000 23:59:59.999"',
      '"+010 00:00:00.000"',
    ],
    text: ['P3DT4H5M6.007S', 'PT0S', null, 'P-1DT-1.5S', 'PT23H59M59.999S', 'P10D'],
    arrow: {
      service: fixed(new A.IntervalDayTime(), dayTime, Int32Array.from(dayTime.flatMap((v) => v ?? [0, 0]))),
      other: fixed(
        new A.IntervalMonthDayNano(),
        dayTime,
        monthDayNano(dayTime.map((v) => (v ? [0, v[0], BigInt(v[1]) * 1_000_000n] : null))),
      ),
    },
  },
  {
    name: 'iy',
    type: { name: 'INTERVAL YEAR TO MONTH' },
    rest: ['"+001-02"', '"+000-00"', '"-001-01"', 'null', '"+001-00"', '"+000-01"'],
    text: ['P1Y2M', 'PT0S', 'P-1Y-1M', null, 'P1Y', 'P1M'],
    arrow: {
      service: fixed(
        new A.IntervalYearMonth(),
        months,
        Int32Array.from(months, (m) => m ?? 0),
      ),
      other: fixed(
        new A.IntervalMonthDayNano(),
        months,
        monthDayNano(months.map((m) => (m === null ? null : [m, 0, 0n]))),
      ),
    },
  },
  {
    name: 'li',
    type: { name: 'LIST', subSchema: [{ type: { name: 'INTEGER' } }] },
    rest: ['[1,null,3]', '[]', 'null', '[0]', '[-1,-2]', '[2147483647]'],
    text: ['[1,null,3]', '[]', null, '[0]', '[-1,-2]', '[2147483647]'],
    arrow: {
      service: built(new A.List(int32('item')), [[1, null, 3], [], null, [0], [-1, -2], [2147483647]]),
      other: built(new A.LargeList(int32('item')), [[1, null, 3], [], null, [0], [-1, -2], [2147483647]]),
    },
  },
  {
    name: 'st',
    type: {
      name: 'STRUCT',
      subSchema: [
        { name: 'a', type: { name: 'VARCHAR' } },
        { name: 'b', type: { name: 'DOUBLE' } },
      ],
    },
    // The service leaves a struct's null fields out (docs/api-facts.md §16).
    rest: [
      '{"a":"x","b":"NaN"}',
      'null',
      '{}',
      '{"a":"","b":-0.0}',
      '{"a":"q\\"","b":1.0E300}',
      '{"a":"z","b":1.5}',
    ],
    text: [
      '{"a":"x","b":"NaN"}',
      null,
      '{"a":null,"b":null}',
      '{"a":"","b":-0}',
      '{"a":"q\\"","b":1e+300}',
      '{"a":"z","b":1.5}',
    ],
    arrow: {
      service: built(struct, [
        { a: 'x', b: Number.NaN },
        null,
        { a: null, b: null },
        { a: '', b: -0 },
        { a: 'q"', b: 1e300 },
        { a: 'z', b: 1.5 },
      ]),
    },
  },
  {
    name: 'mp',
    type: {
      name: 'MAP',
      subSchema: [
        {
          type: {
            name: 'STRUCT',
            subSchema: [
              { name: 'key', type: { name: 'VARCHAR' } },
              { name: 'value', type: { name: 'BIGINT' } },
            ],
          },
        },
      ],
    },
    rest: ['{"k":1}', '{}', 'null', '{"a":null,"b":9007199254740993}', '{"x":-1}', '{"":0}'],
    text: ['{"k":1}', '{}', null, '{"a":null,"b":9007199254740993}', '{"x":-1}', '{"":0}'],
    arrow: {
      service: built(map, [
        new Map([['k', 1n]]),
        new Map(),
        null,
        new Map([
          ['a', null],
          ['b', 9007199254740993n],
        ]),
        new Map([['x', -1n]]),
        new Map([['', 0n]]),
      ]),
    },
  },
  {
    name: 'nest',
    type: {
      name: 'LIST',
      subSchema: [
        {
          type: {
            name: 'STRUCT',
            subSchema: [
              { name: 'n', type: { name: 'INTEGER' } },
              { name: 'tags', type: { name: 'LIST', subSchema: [{ type: { name: 'VARCHAR' } }] } },
            ],
          },
        },
      ],
    },
    rest: [
      '[{"n":1,"tags":["a","b"]},{"tags":[]}]',
      'null',
      '[]',
      '[{"n":2}]',
      '[null]',
      '[{"n":3,"tags":["c",null]}]',
    ],
    text: [
      '[{"n":1,"tags":["a","b"]},{"n":null,"tags":[]}]',
      null,
      '[]',
      '[{"n":2,"tags":null}]',
      '[null]',
      '[{"n":3,"tags":["c",null]}]',
    ],
    arrow: {
      service: built(new A.List(new A.Field('item', nestedItem, true)), [
        [
          { n: 1, tags: ['a', 'b'] },
          { n: null, tags: [] },
        ],
        null,
        [],
        [{ n: 2, tags: null }],
        [null],
        [{ n: 3, tags: ['c', null] }],
      ]),
    },
  },
];

/** The REST results page of the matrix, as the service writes it. */
const restPage = `{"rowCount":${N},"schema":${JSON.stringify(COLUMNS.map((c) => ({ name: c.name, type: c.type })))},"rows":[${Array.from(
  { length: N },
  (_, r) => `{${COLUMNS.map((c) => `${JSON.stringify(c.name)}:${c.rest[r]}`).join(',')}}`,
).join(',')}]}`;

/** The matrix as one Arrow stream in `encoding`, its messages as FlightData. */
function flightTable(encoding: Encoding) {
  const data = COLUMNS.map((c) => (c.arrow[encoding] ?? c.arrow.service)());
  const fields = COLUMNS.map((c, i) => new A.Field(c.name, data[i]!.type, true));
  const batch = new A.RecordBatch(
    new A.Schema(fields),
    A.makeData({ type: new A.Struct(fields), length: N, nullCount: 0, children: data }),
  );
  return payloadsOf(new A.Table([batch]));
}

const bytesOf = (parts: (string | Uint8Array)[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

function overRest(format: ExportFormat): Buffer {
  const page = parseResultsPage(restPage, 'GET /results');
  if (format === 'parquet') {
    const f = new ParquetRows(page.schema);
    return bytesOf([f.head, f.format({ rows: page.rows, exact: false }), f.tail()]);
  }
  const f = textRows(format, page.schema);
  return bytesOf([f.head, f.format({ rows: page.rows, exact: page.exact }), f.tail()]);
}

async function overFlight(format: ExportFormat, encoding: Encoding): Promise<Buffer> {
  const payloads = flightTable(encoding);
  const reader = await readStream(
    (async function* () {
      for (const p of payloads)
        yield { data_header: Buffer.from(p.data_header), data_body: Buffer.from(p.data_body) };
    })(),
  );
  const parts: (string | Uint8Array)[] = [];
  let f: Awaited<ReturnType<typeof batchFormatter>> | undefined;
  for await (const batch of reader) {
    if (!f) {
      f = await batchFormatter(format, batch.schema);
      parts.push(f.head);
    }
    parts.push(f.format(batch));
  }
  parts.push(f!.tail());
  return bytesOf(parts);
}

/**
 * A text format's Flight stream read with each record batch's buffer filled again once the reader asks for the
 * next (src/export/flight/result.ts `reuse`), every batch formatted before the next is read, as deliver does:
 * the CSV of each batch, and the buffer each batch's first column is read from.
 */
async function csvOfBatches(batches: A.RecordBatch[], reuse: boolean) {
  const payloads = payloadsOf(new A.Table(batches));
  const reader = await readStream(
    (async function* () {
      for (const p of payloads)
        yield { data_header: Buffer.from(p.data_header), data_body: Buffer.from(p.data_body) };
    })(),
    'the test stream',
    { rows: 0 },
    reuse,
  );
  const csv: string[] = [];
  const buffers: ArrayBufferLike[] = [];
  let f: Awaited<ReturnType<typeof batchFormatter>> | undefined;
  for await (const batch of reader) {
    f ??= await batchFormatter('csv', batch.schema);
    csv.push(Buffer.from(f.format(batch)).toString());
    buffers.push((batch.data.children[0]!.values as Uint8Array).buffer);
  }
  return { csv, buffers };
}

const expectedCsv = `${COLUMNS.map((c) => c.name).join(',')}\n${Array.from(
  { length: N },
  (_, r) => `${COLUMNS.map((c) => csvField(c.text[r])).join(',')}\n`,
).join('')}`;

describe("a text format's Flight stream, its buffers reused", () => {
  it('reads every batch as with a new buffer each, each in the buffer the batch before it came in', async () => {
    const data = COLUMNS.map((c) => c.arrow.service());
    const fields = COLUMNS.map((c, i) => new A.Field(c.name, data[i]!.type, true));
    const one = new A.RecordBatch(
      new A.Schema(fields),
      A.makeData({ type: new A.Struct(fields), length: N, nullCount: 0, children: data }),
    );
    // Batches of other lengths between the same one again and again: some fit the buffer before, some do not.
    const batches = [one, one.slice(1), one, one, one.slice(0, 2), one, one, one.slice(3)];
    const fresh = await csvOfBatches(batches, false);
    const reused = await csvOfBatches(batches, true);
    expect(reused.csv).toEqual(fresh.csv);
    expect(reused.csv[0]).toBe(expectedCsv.slice(expectedCsv.indexOf('\n') + 1));
    // The fourth batch is read from the buffer the third came in (as long as it), not from a new one.
    expect(reused.buffers[3]).toBe(reused.buffers[2]);
    expect(fresh.buffers[3]).not.toBe(fresh.buffers[2]);
  });
});

describe('every type, REST and every Flight encoding, every text format', () => {
  it('REST: CSV holds every value in its canonical text', () => {
    expect(overRest('csv').toString()).toBe(expectedCsv);
  });

  it('a flat REST page read straight from its bytes gives the canonical texts too', () => {
    const flat = COLUMNS.filter((c) => !c.type.subSchema);
    const page = `{"rowCount":${N},"schema":${JSON.stringify(flat.map((c) => ({ name: c.name, type: c.type })))},"rows":[${Array.from(
      { length: N },
      (_, r) => `{${flat.map((c) => `${JSON.stringify(c.name)}:${c.rest[r]}`).join(',')}}`,
    ).join(',')}]}`;
    const direct = csvFromResultsPage(Buffer.from(page), N, flatColumns);
    expect(direct).toBeDefined();
    expect(Buffer.from(direct!.csv).toString()).toBe(
      Array.from({ length: N }, (_, r) => `${flat.map((c) => csvField(c.text[r])).join(',')}\n`).join(''),
    );
  });

  for (const format of ['csv', 'ndjson', 'json'] as const)
    for (const encoding of ENCODINGS)
      it(`${format}: Flight (${encoding} encoding) gives the REST export's bytes`, async () => {
        expect((await overFlight(format, encoding)).toString()).toBe(overRest(format).toString());
      });

  it('JSON: NaN and the infinities as the strings REST writes, decimals and 64-bit integers as exact numbers', () => {
    const rows = ndjsonValues(overRest('ndjson').toString()) as Record<string, unknown>[];
    expect(rows[2]!.f).toBe('NaN');
    expect(rows[3]!.d).toBe('-Infinity');
    expect(rows[0]!.m).toEqual({ $n: '0.000000000000000000' });
    expect(rows[3]!.l).toEqual({ $n: '9223372036854775807' });
    expect(rows[1]!.d).toEqual({ $n: '-0' });
  });
});

describe('Parquet of every type', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dlake-types-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const files = async () => {
    const out: Record<string, string> = {};
    out.rest = join(dir, 'rest.parquet');
    writeFileSync(out.rest, overRest('parquet'));
    for (const encoding of ENCODINGS) {
      out[encoding] = join(dir, `${encoding}.parquet`);
      writeFileSync(out[encoding]!, await overFlight('parquet', encoding));
    }
    return out;
  };

  it('DuckDB reads the same typed columns and values from the REST export and every Flight encoding', async () => {
    const f = await files();
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    const read = async (file: string) => {
      const types = (
        await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`)
      ).getRowObjectsJS();
      const rows = (await con.runAndReadAll(`SELECT * FROM read_parquet('${file}')`)).getRowObjectsJson();
      return { types: types.map((t) => `${t.column_name} ${t.column_type}`), rows };
    };
    const rest = await read(f.rest!);
    expect(rest.types).toEqual([
      'b BOOLEAN',
      'ti TINYINT',
      'i INTEGER',
      'l BIGINT',
      'f FLOAT',
      'd DOUBLE',
      'm DECIMAL(38,18)',
      'm2 DECIMAL(9,2)',
      's VARCHAR',
      'v BLOB',
      'dt DATE',
      'tm TIME',
      'ts TIMESTAMP',
      'iv VARCHAR',
      'iy VARCHAR',
      'li INTEGER[]',
      'st STRUCT(a VARCHAR, b DOUBLE)',
      'mp MAP(VARCHAR, BIGINT)',
      'nest STRUCT(n INTEGER, tags VARCHAR[])[]',
    ]);
    for (const encoding of ENCODINGS) {
      const flight = await read(f[encoding]!);
      for (const [c, name] of COLUMNS.map((col, i) => [i, col.name] as const))
        expect(
          // A zoned source is a TIMESTAMP WITH TIME ZONE (adjusted to UTC): the same instants, shown in UTC.
          flight.rows.map((r) =>
            flight.types[c]!.endsWith('WITH TIME ZONE') && r[name] !== null
              ? String(r[name]).replace(/\+00$/, '')
              : r[name],
          ),
          `${encoding} ${name} ${flight.types[c]}`,
        ).toEqual(rest.rows.map((r) => r[name]));
    }
    con.closeSync();
  });

  it('pyarrow (Arrow C++) and DuckDB read every file, value for value the NDJSON export of the same rows', {
    timeout: 300_000,
  }, async () => {
    const f = await files();
    const expected = ndjsonValues(overRest('ndjson').toString());
    const read = await readParquet(Object.values(f));
    for (const [what, file] of Object.entries(f))
      for (const reader of ['pyarrow', 'duckdb'] as const)
        expect(recordsOf(read[file]![reader]), `${what} ${reader}`).toEqual(expected);
  });
});

describe('a REST cell its type cannot read', () => {
  // Real servers send "" in BIGINT, BOOLEAN and DOUBLE columns (test/fixtures/real/dremio_client-job-results.json).
  const page = parseResultsPage(
    '{"rowCount":2,"schema":[{"name":"n","type":{"name":"BIGINT"}},{"name":"d","type":{"name":"DOUBLE"}},{"name":"b","type":{"name":"BOOLEAN"}}],"rows":[{"n":"","d":"","b":""},{"n":1,"d":2.0,"b":true}]}',
    'GET /results',
  );

  it('is written as the service sent it in the text formats, the others in their canonical text', () => {
    const text = (format: 'csv' | 'ndjson') => {
      const f = textRows(format, page.schema);
      return bytesOf([f.head, f.format({ rows: page.rows, exact: page.exact }), f.tail()]).toString();
    };
    expect(text('csv')).toBe('n,d,b\n,,\n1,2,true\n');
    expect(text('ndjson')).toBe('{"n":"","d":"","b":""}\n{"n":1,"d":2,"b":true}\n');
  });

  it('is refused by Parquet, which has no place for it, naming the column and the value (exit 7)', () => {
    const f = new ParquetRows(page.schema);
    expect(() => f.format({ rows: page.rows, exact: false })).toThrow(
      /^column "n": the service sent "", which is not an integer$/,
    );
  });
});
