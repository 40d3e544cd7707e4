// The delivery pipeline in-process: every failure of a source, whatever its shape, becomes one error with an
// exit code (the mapping never throws); the formatters hand over their bytes and never write over them again;
// the column type map (Float16 as a number, Binary as REST's base64, other types refused by name); and the
// capped in-memory sink, byte for byte what a file export writes, cut at a row's end.
import {
  Binary,
  Decimal,
  DenseUnion,
  Field,
  Float16,
  Int32,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ResultField, ResultRow } from '../../src/api/jobs.js';
import { DlakeError, ExitCode, ServiceError } from '../../src/errors.js';
import { deliver, type Source } from '../../src/export/deliver.js';
import type { FlightClient } from '../../src/export/flight/client.js';
import { flightBatches } from '../../src/export/flight/source.js';
import { deliverToMemory, heldRows } from '../../src/export/memory.js';
import { resultsPages } from '../../src/export/rest-source.js';
import { batchFormatter, textRows } from '../helpers/formats.js';

const text = (b: string | Uint8Array) => (typeof b === 'string' ? b : Buffer.from(b).toString('utf8'));

/** A Flight source whose GetFlightInfo fails with `err`. */
function failingFlight(err: unknown, signal = new AbortController().signal): Source<unknown, unknown> {
  const client = {
    getFlightInfo: async () => {
      throw err;
    },
  } as unknown as FlightClient;
  return flightBatches(client, {
    sql: 'SELECT 1',
    out: '-',
    stdout: process.stdout,
    format: 'csv',
    gzip: false,
    authorization: 'Bearer x',
    signal,
    attempts: 1,
    endpoint: { url: 'grpc://lake:32010' },
  } as never) as Source<unknown, unknown>;
}

const SCHEMA: ResultField[] = [
  { name: 'id', type: { name: 'INTEGER' } },
  { name: 'note', type: { name: 'VARCHAR' } },
];
const ROWS: ResultRow[] = Array.from({ length: 300 }, (_, i) => ({
  id: i,
  note: i % 7 ? `n${i}` : 'a, "b"\nc',
}));

describe('error completion', () => {
  it('any thrown value, any gRPC status and `details`: one error with an exit code, the mapping never throws', async () => {
    const anyError = fc.oneof(
      fc.anything(),
      fc.record({ code: fc.integer({ min: -2, max: 20 }), details: fc.anything(), message: fc.anything() }),
      fc.record({
        code: fc.constantFrom('ENOSPC', 'EIO', 'EDQUOT', 'EROFS', 'EACCES'),
        message: fc.string(),
      }),
      fc.constant(new ServiceError('already one of ours')),
      fc.constant(Object.create(null)),
    );
    await fc.assert(
      fc.asyncProperty(anyError, async (err) => {
        const out = await deliverToMemory(failingFlight(err), {
          format: 'csv',
          maxBytes: 1024,
          signal: new AbortController().signal,
        }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(out).toBeInstanceOf(DlakeError);
        const e = out as DlakeError;
        expect(typeof e.message).toBe('string');
        expect(e.message).not.toMatch(/is not a function|Cannot read prop/);
        expect([3, 4, 6, 7, 9]).toContain(e.exitCode);
        // What --debug prints of the cause must be printable too.
        expect(() => String((e.cause as Error)?.stack ?? e.cause ?? '')).not.toThrow();
      }),
      { numRuns: 300 },
    );
  });

  it('a failed local write is exit 9 naming the sink, from any source', async () => {
    const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const e = (await deliverToMemory(failingFlight(enospc), {
      format: 'csv',
      maxBytes: 10,
      signal: new AbortController().signal,
    }).catch((x) => x)) as DlakeError;
    expect(e.exitCode).toBe(ExitCode.localIO);
    expect(e.message).toBe('cannot write the result: no space left on the device');
  });
});

describe('the batch formatter hands its bytes over', () => {
  it('bytes handed out for one batch stay as they were while the next batches are formatted', async () => {
    const schema = new Schema([new Field('s', new Utf8(), true)]);
    const batchOf = (v: string) =>
      new RecordBatch(
        schema,
        makeData({
          type: new Struct(schema.fields),
          length: 50,
          nullCount: 0,
          children: [vectorFromArray(Array(50).fill(v), new Utf8()).data[0]!],
        }),
      );
    for (const format of ['csv', 'ndjson', 'json'] as const) {
      const f = await batchFormatter(format, schema);
      const first = f.format(batchOf('first'));
      const copy = Buffer.from(first as Uint8Array);
      f.format(batchOf('second!'));
      f.format(batchOf('third!!'));
      expect(Buffer.from(first as Uint8Array).equals(copy), format).toBe(true);
    }
  });
});

describe('the column type map', () => {
  const batchWith = (field: Field, data: ReturnType<typeof makeData>) => {
    const schema = new Schema([field]);
    return new RecordBatch(
      schema,
      makeData({ type: new Struct(schema.fields), length: data.length, nullCount: 0, children: [data] }),
    );
  };

  it('Float16 cells are numbers, not their bits', async () => {
    // 1.0, -2.5, 65504 (the largest half), 2^-24 (the smallest subnormal, as the shortest FLOAT text), NaN (a value).
    const bits = new Uint16Array([0x3c00, 0xc100, 0x7bff, 0x0001, 0x7e00]);
    const b = batchWith(
      new Field('h', new Float16(), true),
      makeData({ type: new Float16(), length: 5, data: bits }),
    );
    const csv = await batchFormatter('csv', b.schema);
    expect(text(csv.head) + text(csv.format(b))).toBe('h\n1\n-2.5\n65504\n5.9604645e-8\nNaN\n');
    const nd = await batchFormatter('ndjson', b.schema);
    expect(text(nd.format(b)).split('\n')[0]).toBe('{"h":1}');
  });

  it('Binary cells are base64, as the REST answer holds VARBINARY', async () => {
    const b = batchWith(
      new Field('b', new Binary(), true),
      makeData({
        type: new Binary(),
        length: 2,
        valueOffsets: new Int32Array([0, 3, 5]),
        data: new Uint8Array([0, 1, 255, 104, 105]),
      }),
    );
    const csv = await batchFormatter('csv', b.schema);
    expect(text(csv.format(b))).toBe('AAH/\naGk=\n');
    const nd = await batchFormatter('ndjson', b.schema);
    expect(text(nd.format(b))).toBe('{"b":"AAH/"}\n{"b":"aGk="}\n');
  });

  it("a type with no equivalent among the service's is refused by name before anything is written", async () => {
    const union = new DenseUnion(
      [0, 1],
      [new Field('a', new Int32(), true), new Field('b', new Utf8(), true)],
    );
    const schema = new Schema([new Field('u', union, true)]);
    for (const format of ['csv', 'json', 'parquet'] as const) {
      const e = (await batchFormatter(format, schema).catch((x) => x)) as DlakeError;
      expect(e.exitCode).toBe(ExitCode.service);
      expect(e.message).toBe(
        'cannot write column "u": the Flight stream gives it the type Union<Int32 | Utf8>, which has no equivalent among the service\'s types',
      );
    }
  });

  it('a type Parquet readers cannot hold is refused by its Arrow name, in Parquet only', async () => {
    const schema = new Schema([new Field('d', new Decimal(2, 60, 256), true)]);
    const e = (await batchFormatter('parquet', schema).catch((x) => x)) as DlakeError;
    expect(e.exitCode).toBe(ExitCode.service);
    expect(e.message).toMatch(
      /^cannot write column "d" as Parquet: its type Decimal256\(60, 2\) holds 60 digits/,
    );
    await expect(batchFormatter('csv', schema)).resolves.toBeDefined();
  });
});

describe('the in-memory sink', () => {
  const signal = new AbortController().signal;

  it('with room for every row: the bytes a file export writes, every row counted', async () => {
    for (const format of ['csv', 'ndjson'] as const) {
      const f = textRows(format, SCHEMA);
      const whole = text(f.head) + text(f.format({ rows: ROWS, exact: false })) + text(f.tail());
      const out = await deliverToMemory(heldRows(SCHEMA, ROWS), { format, maxBytes: 1 << 20, signal });
      expect(out).toEqual({ text: whole, rows: 300, bytes: Buffer.byteLength(whole), truncated: false });
    }
  });

  it('capped: whole rows only, at most the cap, truncated, the rows kept counted', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 2000 })),
        fc.constantFrom('csv' as const, 'ndjson' as const),
        async (cap, format) => {
          const f = textRows(format, SCHEMA);
          const whole = text(f.head) + text(f.format({ rows: ROWS, exact: false }));
          const out = await deliverToMemory(heldRows(SCHEMA, ROWS), { format, maxBytes: cap, signal });
          expect(out.truncated).toBe(true);
          expect(out.bytes).toBeLessThanOrEqual(cap);
          expect(whole.startsWith(out.text)).toBe(true);
          expect(out.text === '' || out.text.endsWith('\n')).toBe(true);
          if (format === 'ndjson') {
            expect(out.rows).toBe(out.text.split('\n').length - 1);
            for (const line of out.text.split('\n').slice(0, -1)) JSON.parse(line);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it("a job's results pages (as an agent's tool reads them): the first rows that fit, counted", async () => {
    const pages = resultsPages({
      fetchPage: async (offset, limit) => ({
        rowCount: ROWS.length,
        schema: SCHEMA,
        rows: ROWS.slice(offset, offset + limit) as ResultRow[],
        exact: false,
      }),
      pageSize: 100,
    });
    const out = await deliverToMemory(pages, { format: 'ndjson', maxBytes: 1000, signal });
    const lines = out.text.split('\n').slice(0, -1);
    expect(out.truncated).toBe(true);
    expect(out.rows).toBe(lines.length);
    expect(lines.map((l) => JSON.parse(l).id)).toEqual(ROWS.slice(0, out.rows).map((r) => r.id));
  });

  it('deliver() of a source with no pieces commits an empty result', async () => {
    const empty: Source<ResultField[], ResultRow[]> = {
      async *pieces() {},
      formatter: async () => ({ head: 'h\n', format: () => '', tail: () => '' }),
    };
    const out = await deliverToMemory(empty, { format: 'csv', maxBytes: 10, signal });
    expect(out).toEqual({ text: '', rows: 0, bytes: 0, truncated: false });
    expect(typeof deliver).toBe('function');
  });
});
