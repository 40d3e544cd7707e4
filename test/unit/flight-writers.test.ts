// The Flight export's pieces in-process: the generated Flight descriptor is Flight.proto's, the endpoint URL
// rules, and the batch writers on Arrow types the emulator does not send (what other servers may): dates in
// milliseconds, timestamps in microseconds before 1970, decimals, NaN, nulls.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import {
  type DataType,
  DateMillisecond,
  Decimal,
  Field,
  Float32,
  Float64,
  Int32,
  Int64,
  List,
  Map_,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  TimestampMicrosecond,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import fc from 'fast-check';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { Bytes } from '../../src/export/bytes.js';
import {
  decodeFlightData,
  decodeFlightInfo,
  encodeCommandDescriptor,
  encodeHandshakeRequest,
  encodeTicket,
} from '../../src/export/flight/codec.js';
import { parseFlightUrl } from '../../src/export/flight/endpoint.js';
import { FLIGHT_PROTO } from '../../src/export/flight/proto.generated.js';
import { doubleText } from '../../src/export/values.js';
import { csvField, putCsvField } from '../../src/util/csv-field.js';
import { batchFormatter } from '../helpers/formats.js';

const text = (b: string | Uint8Array) => (typeof b === 'string' ? b : Buffer.from(b).toString('utf8'));

describe('proto/Flight.proto', () => {
  it('the generated descriptors are up to date (npm run gen:flight-proto)', () => {
    const root = resolve(import.meta.dirname, '../..');
    expect(() =>
      execFileSync(process.execPath, ['scripts/gen-flight-proto.mjs', '--check'], { cwd: root }),
    ).not.toThrow();
  });

  // The client's codec against protobufjs's reflection of the whole descriptor (what a server decodes with).
  const proto = protobuf.Root.fromJSON(FLIGHT_PROTO as unknown as protobuf.INamespace);
  const type = (name: string) => proto.lookupType(`arrow.flight.protocol.${name}`);
  const plain = (name: string, bytes: Uint8Array) =>
    type(name).toObject(type(name).decode(bytes), { longs: Number, enums: String, bytes: String });

  it('encodes what dlake sends as Flight.proto says', () => {
    expect(plain('HandshakeRequest', encodeHandshakeRequest(Buffer.from('hi')))).toEqual({
      protocol_version: 0,
      payload: Buffer.from('hi').toString('base64'),
    });
    expect(plain('FlightDescriptor', encodeCommandDescriptor(Buffer.from('SELECT 1')))).toEqual({
      type: 'CMD',
      cmd: Buffer.from('SELECT 1').toString('base64'),
    });
    expect(plain('Ticket', encodeTicket(Buffer.from([1, 2, 3])))).toEqual({ ticket: 'AQID' });
  });

  it('decodes what a server answers, skipping the fields it does not read', () => {
    const info = type('FlightInfo').encode({
      schema: Buffer.from('schema'),
      flight_descriptor: { type: 2, cmd: Buffer.from('x') },
      endpoint: [
        { ticket: { ticket: Buffer.from('t1') }, location: [{ uri: 'grpc://a:1' }] },
        {
          location: [{ uri: 'grpc://b:2' }],
          ticket: { ticket: Buffer.from('t2') },
          app_metadata: Buffer.from('m'),
        },
      ],
      total_records: 2 ** 40 + 3,
      total_bytes: 99,
      ordered: true,
    });
    const decoded = decodeFlightInfo(Buffer.from(info.finish()));
    expect(decoded.tickets.map((t) => t.toString())).toEqual(['t1', 't2']);
    expect(decoded.totalRecords).toBe(2 ** 40 + 3);
    expect(decodeFlightInfo(Buffer.alloc(0))).toEqual({ tickets: [], totalRecords: -1 });

    const data = type('FlightData').encode({
      flight_descriptor: { type: 1, path: ['p'] },
      data_header: Buffer.from('header'),
      app_metadata: Buffer.from('meta'),
      data_body: Buffer.alloc(70_000, 7),
    });
    const d = decodeFlightData(Buffer.from(data.finish()));
    expect(d.data_header?.toString()).toBe('header');
    expect(d.data_body?.length).toBe(70_000);
    expect(d.data_body?.every((b) => b === 7)).toBe(true);
  });
});

describe('parseFlightUrl', () => {
  it.each([
    ['grpc://lake:32010', { url: 'grpc://lake:32010', tls: false, port: 32010 }],
    ['grpc+tcp://lake:32010', { url: 'grpc://lake:32010', tls: false, port: 32010 }],
    ['grpc+tls://data.example.com:443/', { url: 'grpc+tls://data.example.com:443', tls: true, port: 443 }],
    ['grpc://[::1]:9', { url: 'grpc://[::1]:9', tls: false, port: 9 }],
  ])('%s', (text, want) => {
    expect(parseFlightUrl(text)).toMatchObject(want);
  });

  it.each([
    'http://lake:32010',
    'grpc://lake',
    'grpc://lake:0',
    'grpc://lake:70000',
    'grpc://a b:1',
    'grpc://lake:1/path',
  ])('refuses %s (exit 2)', (bad) => {
    expect(() => parseFlightUrl(bad)).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
});

describe('batch writers', () => {
  const batch = () => {
    const fields = [
      new Field('day', new DateMillisecond(), true),
      new Field('ts', new TimestampMicrosecond(), true),
      new Field('price', new Decimal(2, 9, 128), true),
      new Field('x', new Float64(), true),
    ];
    const schema = new Schema(fields);
    const decimals = new Uint32Array(4 * 3);
    // 1250 → 12.50; -5 → -0.05; null
    decimals[0] = 1250;
    const minus5 = BigInt.asUintN(128, -5n);
    for (let w = 0; w < 4; w++) decimals[4 + w] = Number((minus5 >> BigInt(32 * w)) & 0xffffffffn);
    const children = [
      vectorFromArray(
        [new Date(Date.UTC(2024, 1, 29)), new Date(Date.UTC(1969, 11, 31)), null],
        new DateMillisecond(),
      ).data[0]!,
      makeData({
        type: new TimestampMicrosecond(),
        length: 3,
        nullCount: 1,
        nullBitmap: new Uint8Array([0b011]),
        data: new BigInt64Array([1_500_000n, -1_500n, 0n]),
      }),
      makeData({
        type: new Decimal(2, 9, 128),
        length: 3,
        nullCount: 1,
        nullBitmap: new Uint8Array([0b011]),
        data: decimals,
      }),
      vectorFromArray([Number.NaN, 0.1 + 0.2, null], new Float64()).data[0]!,
    ];
    return new RecordBatch(schema, makeData({ type: new Struct(fields), length: 3, nullCount: 0, children }));
  };

  it('CSV: REST texts for dates and timestamps (floor before 1970, sub-millisecond digits kept), exact decimals, NaN a value', async () => {
    const b = batch();
    const f = await batchFormatter('csv', b.schema);
    expect(text(f.head) + text(f.format(b)) + text(f.tail())).toBe(
      'day,ts,price,x\n' +
        '2024-02-29,1970-01-01 00:00:01.500,12.50,NaN\n' +
        '1969-12-31,1969-12-31 23:59:59.998500,-0.05,0.30000000000000004\n' +
        ',,,\n',
    );
  });

  it('NDJSON and JSON: decimals as numbers, dates as strings, NaN as the string the REST answer holds', async () => {
    const b = batch();
    const nd = await batchFormatter('ndjson', b.schema);
    const lines = text(nd.format(b)).trimEnd().split('\n');
    expect(lines[0]).toBe('{"day":"2024-02-29","ts":"1970-01-01 00:00:01.500","price":12.50,"x":"NaN"}');
    expect(lines[2]).toBe('{"day":null,"ts":null,"price":null,"x":null}');
    const json = await batchFormatter('json', b.schema);
    const all = text(json.head) + text(json.format(b)) + text(json.tail());
    expect(JSON.parse(all)).toHaveLength(3);
    expect(all.startsWith('[\n{"day"')).toBe(true);
    expect(all.endsWith('}\n]\n')).toBe(true);
  });
});

describe('nested cells in CSV', () => {
  // Texts with every byte CSV and JSON treat specially, non-ASCII and lone surrogates among them.
  const tricky = fc.string({
    unit: fc.constantFrom('"', ',', '\r', '\n', '\\', '\u0001', 'a', 'é', '東', '🚀', '\ud800', '\udfff'),
  });
  const number = fc.oneof(
    fc.double(),
    fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0),
  );
  const point = new Struct([new Field('x', new Float64(), true), new Field('label', new Utf8(), true)]);
  /** A MAP as Arrow lays it out: entries of a key (never null) and a value. */
  const mapOf = <K extends DataType, V extends DataType>(key: K, value: V) =>
    new Map_<K, V>(
      new Field(
        'entries',
        new Struct<{ key: K; value: V }>([new Field('key', key, false), new Field('value', value, true)]),
        false,
      ),
    );
  const columns = [
    new Field('tags', new List(new Field('item', new Utf8(), true)), true),
    new Field('numbers', new List(new Field('item', new Float64(), true)), true),
    new Field('point', point, true),
    new Field('attrs', mapOf(new Utf8(), new Int32()), true),
    // Keys that are not strings: an array of {"key", "value"}; a FLOAT's NaN and infinities are strings too.
    new Field('pairs', mapOf(new Int32(), new Float32()), true),
  ];
  const row = fc.record({
    tags: fc.option(fc.array(fc.option(tricky), { maxLength: 4 })),
    numbers: fc.option(fc.array(fc.option(number), { maxLength: 3 })),
    point: fc.option(fc.record({ x: fc.option(number), label: fc.option(tricky) })),
    attrs: fc.option(
      fc
        .uniqueArray(fc.tuple(tricky, fc.option(fc.integer())), { maxLength: 3, selector: ([k]) => k })
        .map((e) => new Map(e)),
    ),
    pairs: fc.option(
      fc
        .uniqueArray(fc.tuple(fc.integer(), fc.option(fc.oneof(fc.float(), fc.constant(Number.NaN)))), {
          maxLength: 3,
          selector: ([k]) => k,
        })
        .map((e) => new Map(e)),
    ),
  });

  it('a LIST, STRUCT or MAP cell is csvField of its JSON text, written in one pass with its quotes doubled', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 8 }), async (rows) => {
        for (const field of columns) {
          const name = field.name as keyof (typeof rows)[number];
          const batch = new Table({
            [name]: vectorFromArray(
              rows.map((r) => r[name]),
              field.type,
            ),
          }).batches[0]!;
          const csv = text((await batchFormatter('csv', batch.schema)).format(batch));
          const json = text((await batchFormatter('ndjson', batch.schema)).format(batch))
            .trimEnd()
            .split('\n')
            .map((line) => line.slice(`{"${name}":`.length, -1));
          const expected = json.map((j) => `${csvField(j === 'null' ? null : j)}\n`).join('');
          if (csv !== expected) return false;
        }
        return true;
      }),
      { numRuns: 300 },
    );
  });
});

describe("the text formats' numbers and texts, written straight into bytes", () => {
  const written = (write: (out: Bytes) => void) => {
    const out = new Bytes(8);
    write(out);
    return Buffer.from(out.take()).toString('latin1');
  };

  it('a double is the text Number#toString gives it (doubleText), whatever its digits', () => {
    const edges = [
      0,
      -0,
      1,
      -1,
      0.5,
      0.1,
      0.2 + 0.1,
      123.45,
      -500,
      1e-6,
      1.5e-6,
      9.99e-7,
      1e-7,
      1e15,
      999999999999999,
      1e15 - 0.5,
      123456789012345.6,
      0.000001,
      2 ** -19,
      2 ** -20,
      2 ** 52,
      2 ** 53,
      1 / 3,
      -2 / 3,
      5e-324,
      1.7976931348623157e308,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      4.35,
      0.3,
      100,
      1e21,
      12345678.9,
      0.000123,
      9.999999999999998,
      99.99,
      1005e-3,
    ];
    for (const v of edges)
      expect(
        written((o) => o.double(v)),
        String(v),
      ).toBe(doubleText(v));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double(),
          // Short decimals, the common case: integers of up to 16 digits over a power of ten.
          fc
            .tuple(fc.integer({ min: -(2 ** 31), max: 2 ** 31 }), fc.integer({ min: 0, max: 20 }))
            .map(([k, d]) => k / 10 ** d),
          fc.tuple(fc.maxSafeInteger(), fc.integer({ min: 0, max: 22 })).map(([k, d]) => k / 10 ** d),
          fc.float().map((f) => Math.fround(f)),
        ),
        (v) => written((o) => o.double(v)) === doubleText(v),
      ),
      { numRuns: 20_000 },
    );
  });

  it('a double of 16 or 17 digits, of every magnitude in plain notation, is the text Number#toString gives it', () => {
    const bits = new Float64Array(1);
    const words = new Uint32Array(bits.buffer);
    // Any bit pattern: every exponent, NaNs and infinities among them.
    const anyDouble = fc.tuple(fc.nat({ max: 2 ** 32 - 1 }), fc.nat({ max: 2 ** 32 - 1 })).map(([lo, hi]) => {
      words[0] = lo;
      words[1] = hi;
      return bits[0]!;
    });
    // Uniform in the decades of plain notation and just beyond (1e-7 … 1e16), both signs.
    const plain = fc
      .tuple(fc.double({ min: 1, max: 10, noNaN: true }), fc.integer({ min: -7, max: 16 }), fc.boolean())
      .map(([m, e, negative]) => (negative ? -1 : 1) * m * 10 ** e);
    // Next to powers of ten and of two (where the digit count or the rounding interval changes), and quotients.
    const edges = fc
      .tuple(fc.integer({ min: -7, max: 16 }), fc.integer({ min: -4, max: 4 }), fc.boolean())
      .map(([e, step, two]) => {
        bits[0] = two ? 2 ** (e * 3) : 10 ** e;
        words[0] = (words[0]! + step) >>> 0;
        return bits[0]!;
      });
    const quotients = fc
      .tuple(fc.integer({ min: 1, max: 2 ** 31 }), fc.constantFrom(3, 7, 9, 11, 13, 1e3, 1e7, 3e9))
      .map(([n, d]) => n / d);
    fc.assert(
      fc.property(
        fc.oneof(anyDouble, plain, edges, quotients),
        (v) => written((o) => o.double(v)) === doubleText(v),
      ),
      { numRuns: 50_000 },
    );
    for (const v of [
      1 / 3,
      2 / 3,
      0.1 + 0.2,
      1e15 - 1 / 8,
      1e-6 + 2 ** -72,
      9007199254740991 / 1e9,
      0.000001234567890123,
    ])
      expect(
        written((o) => o.double(v)),
        String(v),
      ).toBe(doubleText(v));
  });

  it("a text is JSON.stringify's string of it, escapes and all (with them, bytes that are not UTF-8 as decoding makes them)", () => {
    const json = (bytes: Uint8Array) => written((o) => o.jsonString(bytes, 0, bytes.length));
    const utf8 = (b: Uint8Array) =>
      Buffer.from(JSON.stringify(Buffer.from(b).toString('utf8'))).toString('latin1');
    for (const t of [
      '',
      'plain',
      'a "quoted" \\ back\\slash',
      'line\nbreak\r\t\b\f\u0000\u001f\u007f',
      'naïve "é"\n',
    ])
      expect(json(Buffer.from(t)), t).toBe(utf8(Buffer.from(t)));
    expect(json(Uint8Array.of(0x22, 0xff, 0x41))).toBe(utf8(Uint8Array.of(0x22, 0xff, 0x41)));
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary' }), fc.string()),
        (t) => json(Buffer.from(t)) === utf8(Buffer.from(t)),
      ),
      { numRuns: 5000 },
    );
    const quoted = fc.uint8Array().map((b) => Uint8Array.of(...b, 0x22));
    fc.assert(
      fc.property(quoted, (b) => json(b) === utf8(b)),
      { numRuns: 5000 },
    );
  });

  it("a CSV field from bytes is csvField's of their text: quotes, commas, CR and LF anywhere", () => {
    const field = (t: string) => {
      const bytes = Buffer.from(t);
      return written((o) => putCsvField(o, bytes, 0, bytes.length));
    };
    const utf8 = (t: string) => Buffer.from(csvField(t)).toString('latin1');
    for (const t of ['', 'plain', '"', 'a,b', 'line\r\n', '{"x":1}', 'naïve, "é"\n', '\ud800 lone'])
      expect(field(t), t).toBe(utf8(t));
    const special = fc.constantFrom('"', ',', '\r', '\n', 'a', 'é', '東', '🚀', '\ud800');
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: special })),
        (t) => field(t) === utf8(t),
      ),
      { numRuns: 5000 },
    );
  });

  it("an integer is String(n)'s digits, 64-bit ones beyond 2^53 included", async () => {
    for (const n of [0, 1, -1, 9, 10, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, 2 ** 53 - 1, -(2 ** 53 - 1), 1e15])
      expect(written((o) => o.int(n))).toBe(String(n));
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => written((o) => o.int(n)) === String(n)),
      { numRuns: 5000 },
    );
    const big = [0n, -1n, 2n ** 53n, -(2n ** 53n), 2n ** 53n - 1n, 2n ** 63n - 1n, -(2n ** 63n), 4242424242n];
    const batch = new Table({ n: vectorFromArray(big, new Int64()) }).batches[0]!;
    const f = await batchFormatter('csv', batch.schema);
    expect(text(f.format(batch))).toBe(big.map((b) => `${b}\n`).join(''));
  });
});
