// The Flight message checks (src/export/flight/validate.ts, flatbuffer.ts) on their own: every message apache-arrow
// writes passes (no valid result is refused), any bytes at all are answered with a fault and never a throw, and
// a message past the size bound is refused before it is read.
import {
  Binary,
  Bool,
  DateDay,
  Decimal,
  Field,
  FixedSizeBinary,
  Float16,
  Float64,
  Int32,
  Int64,
  LargeUtf8,
  List,
  Struct,
  Table,
  TimestampMicrosecond,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messageFlatbufferFault } from '../../src/export/flight/flatbuffer.js';
import { MAX_FLIGHT_MESSAGE_BYTES, StreamValidator } from '../../src/export/flight/validate.js';
import { payloadsOf } from '../helpers/hostile-flight.js';

const n = 300;
const column = <T>(type: T, make: (i: number) => unknown) =>
  vectorFromArray(
    Array.from({ length: n }, (_, i) => (i % 7 === 3 ? null : make(i))),
    type as never,
  );

const table = new Table({
  i: column(new Int32(), (i) => i),
  l: column(new Int64(), (i) => BigInt(i) * 3_000_000_000n),
  f: column(new Float64(), (i) => i / 3),
  h: column(new Float16(), (i) => i / 4),
  b: column(new Bool(), (i) => i % 2 === 0),
  s: column(new Utf8(), (i) => 'é'.repeat(i % 5)),
  ls: column(new LargeUtf8(), (i) => `large ${i}`),
  bin: column(new Binary(), (i) => Uint8Array.from([i % 256, 1, 2])),
  fixed: column(new FixedSizeBinary(4), (i) => Uint8Array.from([i % 256, 0, 0, 1])),
  d: column(new DateDay(), (i) => new Date(Date.UTC(2024, 0, 1 + i))),
  t: column(new TimestampMicrosecond(), (i) => i * 1000),
  m: column(new Decimal(2, 12, 128), () => Uint32Array.from([1250, 0, 0, 0])),
  list: column(new List(new Field('x', new Int32(), true)), (i) => [i, i + 1]),
  st: column(new Struct([new Field('a', new Utf8(), true), new Field('b', new Int32(), true)]), (i) => ({
    a: `a${i}`,
    b: i,
  })),
});

describe('StreamValidator', () => {
  it('passes every message apache-arrow writes, of every type whose layout it checks', () => {
    const v = new StreamValidator('the Flight stream');
    const payloads = payloadsOf(table);
    expect(payloads.length).toBeGreaterThanOrEqual(2);
    for (const p of payloads) expect(() => v.check(p.data_header, p.data_body)).not.toThrow();
    expect(v.streamSchema?.fields).toHaveLength(14);
  });

  it('refuses a message past the bound before reading it', () => {
    const v = new StreamValidator('the Flight stream');
    const huge = { byteLength: MAX_FLIGHT_MESSAGE_BYTES } as Uint8Array;
    expect(() => v.check(new Uint8Array(8), huge)).toThrow(/more than the 256 MiB dlake takes/);
  });
});

describe('messageFlatbufferFault', () => {
  it('answers a fault, never a throw, for any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => {
        const fault = messageFlatbufferFault(bytes);
        expect(fault === undefined || typeof fault === 'string').toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('answers a fault, never a throw, for a valid header with any byte changed or cut', () => {
    const headers = payloadsOf(table).map((p) => p.data_header);
    fc.assert(
      fc.property(
        fc.nat(headers.length - 1),
        fc.nat(),
        fc.integer({ min: 0, max: 255 }),
        fc.nat(),
        (which, at, value, cut) => {
          const h = headers[which]!.slice();
          h[at % h.length] = value;
          const fault = messageFlatbufferFault(h.subarray(0, cut % (h.length + 1)));
          expect(fault === undefined || typeof fault === 'string').toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
