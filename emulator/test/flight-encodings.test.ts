// The emulator's Flight sends every type in the service's Arrow vectors, and in the other encodings on request
// (emulator/src/flight/encoding.ts, docs/api-facts.md §16), read by an independent reader: Arrow C++'s own Flight
// client (pyarrow, test/helpers/real-readers.ts), which validates each message as it decodes it. pyarrow has no
// Python type for the interval vectors the service sends (Interval DAY_TIME and YEAR_MONTH): those are read with
// dlake's Flight client and apache-arrow.
import { type Data, IntervalUnit, Type } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlightClient } from '../../src/export/flight/client.js';
import { parseFlightUrl } from '../../src/export/flight/endpoint.js';
import { readStream } from '../../src/export/flight/result.js';
import { type ReadFile, readFlightWithPyarrow } from '../../test/helpers/real-readers.js';
import type { FlightEncoding } from '../src/flight/encoding.js';
import { parseFlightEncoding } from '../src/flight/encoding.js';
import { type Emulator, startEmulator } from '../src/index.js';
import { runEmulatorCommand } from './command.js';

const emulators: Emulator[] = [];
afterAll(async () => {
  for (const e of emulators) await e.close();
});

/** An emulator sending `encoding` over Flight. */
async function emulator(encoding: Partial<FlightEncoding>): Promise<Emulator> {
  const emu = await startEmulator({ flightPort: 0, bigRows: 10, flightEncoding: encoding });
  emulators.push(emu);
  return emu;
}

/** `sql` over the Flight of an emulator sending `encoding`, as pyarrow reads it. */
async function read(encoding: Partial<FlightEncoding>, sql: string): Promise<ReadFile> {
  return readFlightWithPyarrow((await emulator(encoding)).flight!.url, 'admin', 'admin-pass-1', sql);
}

/** Every column of every_type but the intervals, which pyarrow cannot read. */
const EVERY = 'SELECT * EXCLUDE (interval_ds, interval_ym) FROM every_type';

const types = (f: ReadFile) => f.columns.map((c) => `${c.name} ${c.type}`);
const values = (f: ReadFile, name: string) => f.columns.find((c) => c.name === name)!.values;

let service: ReadFile;
beforeAll(async () => {
  service = await read({}, `${EVERY} ORDER BY id`);
});

describe("the service's vectors", () => {
  it('every type of every_type as the service sends it: Date64, Time32(ms), Timestamp(ms), Decimal128, List…', () => {
    expect(types(service)).toEqual([
      'id int32',
      'flag bool',
      'tiny int8',
      'small int16',
      'int32 int32',
      'int64 int64',
      'float32 float',
      'float64 double',
      'dec_9_2 decimal128(9, 2)',
      'dec_38_18 decimal128(38, 18)',
      'dec_38_0 decimal128(38, 0)',
      'text string',
      'bytes binary',
      'day date64[ms]',
      'time_of_day time32[ms]',
      'ts timestamp[ms]',
      'ints list<item: int32>',
      'words list<item: string>',
      'point struct<x: double, y: double, label: string>',
      'attrs map<string, int32>',
      'orders list<item: struct<sku: string, qty: int64, price: decimal128(9, 2), tags: list<item: string>, placed: timestamp[ms]>>',
      'profile struct<name: string, born: date64[ms], scores: list<item: double>, extra: map<string, string>>',
    ]);
  });

  it('the values: exact integers and decimals, NaN, dates before year 1, nulls at every level of nested values', () => {
    expect(values(service, 'int64')).toEqual([
      '0',
      '-1',
      '9223372036854775807',
      '-9223372036854775808',
      '9007199254740993',
      null,
      '4242424242424242',
    ]);
    expect(values(service, 'dec_38_18')).toEqual([
      '0.000000000000000000',
      '-0.000000000000000001',
      '99999999999999999999.999999999999999999',
      '-99999999999999999999.999999999999999999',
      '12345678901234567890.123456789012345678',
      null,
      '0.000000000000000042',
    ]);
    expect(values(service, 'float32').slice(0, 5)).toEqual(['0', '-0', '3.4028235e+38', 'NaN', 'Infinity']);
    expect(values(service, 'day')).toEqual([
      '1970-01-01',
      '1969-12-31',
      '9999-12-31',
      '-0220-01-01',
      '1900-02-28',
      null,
      '2024-02-29',
    ]);
    expect(values(service, 'ts')[2]).toBe('2300-01-01 12:34:56.789');
    expect(values(service, 'time_of_day')[6]).toBe('13:45:30.500');
    expect(values(service, 'bytes')[2]).toBe('3q2+7w==');
    expect(values(service, 'point')[1]).toEqual({ x: '-0', y: '-1.5', label: null });
    expect(values(service, 'attrs')[1]).toEqual([
      ['a', '-1'],
      ['b', null],
    ]);
    expect(values(service, 'orders')[3]).toEqual([
      null,
      { sku: null, qty: null, price: null, tags: null, placed: null },
    ]);
    expect(values(service, 'profile')[3]).toEqual({
      name: 'BC',
      born: '-0220-01-01',
      scores: ['NaN'],
      extra: null,
    });
    expect(values(service, 'ints')[0]).toEqual([]);
  });

  it('intervals as Interval(DAY_TIME) (days, milliseconds) and Interval(YEAR_MONTH) (months)', async () => {
    const emu = await emulator({});
    const c = new FlightClient({ endpoint: parseFlightUrl(emu.flight!.url), idleMs: 20_000 });
    const auth = `Bearer ${await c.handshakeBasic('admin', 'admin-pass-1')}`;
    const info = await c.getFlightInfo('SELECT interval_ds, interval_ym FROM every_type ORDER BY id', auth);
    const batches = [];
    for await (const b of await readStream(c.doGet(info.tickets[0]!, auth))) batches.push(b);
    c.close();
    const [ds, ym] = batches[0]!.data.children;
    const unit = (d: Data) => [d.type.typeId, (d.type as unknown as { unit: number }).unit];
    expect(unit(ds!)).toEqual([Type.Interval, IntervalUnit.DAY_TIME]);
    expect(unit(ym!)).toEqual([Type.Interval, IntervalUnit.YEAR_MONTH]);
    // Each row's (days, milliseconds); the sixth row null.
    expect([...(ds!.values as Int32Array).subarray(0, 14)]).toEqual([
      0, 0, -1, -3_661_001, 9999, 86_399_999, 0, 1, 1, 43_200_000, 0, 0, 3, 14_706_007,
    ]);
    expect(ds!.getValid(5)).toBe(false);
    expect([...(ym!.values as Int32Array).subarray(0, 7)]).toEqual([0, -14, 119_999, 1, 12, 0, 14]);
  });

  it('nested=text,intervals=text: intervals and nested values as the text of their REST answer', async () => {
    const text = await read(
      { nested: 'text', intervals: 'text' },
      'SELECT interval_ym, point, attrs FROM every_type WHERE id = 2',
    );
    expect(types(text)).toEqual(['interval_ym string', 'point string', 'attrs string']);
    expect(text.columns.map((c) => c.values[0])).toEqual([
      '-001-02',
      '{"x":-0.0,"y":-1.5}',
      '{"a":-1,"b":null}',
    ]);
  });
});

describe('the other encodings (--flight-encoding)', () => {
  const ALL = `${EVERY} WHERE id <> 3 ORDER BY id`;

  it('Date32, Time64(µs), zoned Timestamp(µs), dictionary strings, LargeBinary, LargeList, Decimal256', async () => {
    const other = await read(
      {
        date: 'day',
        time: 'us',
        timestamp: 'us',
        zone: 'UTC',
        strings: 'dictionary',
        binary: 'large',
        lists: 'large',
        decimal: 256,
      },
      ALL,
    );
    expect(types(other)).toContain('day date32[day]');
    expect(types(other)).toContain('time_of_day time64[us]');
    expect(types(other)).toContain('ts timestamp[us, tz=UTC]');
    expect(types(other)).toContain('text dictionary<values=string, indices=int32, ordered=0>');
    expect(types(other)).toContain('bytes large_binary');
    expect(types(other)).toContain('ints large_list<item: int32>');
    expect(types(other)).toContain('dec_38_18 decimal256(38, 18)');
    const same = await read({}, ALL);
    for (const name of [
      'int64',
      'dec_38_18',
      'dec_38_0',
      'text',
      'bytes',
      'day',
      'ints',
      'attrs',
      'orders',
    ]) {
      if (name === 'orders') continue; // its timestamps carry microseconds here
      expect(values(other, name), name).toEqual(values(same, name));
    }
    expect(values(other, 'ts')[5]).toBe('2024-02-29 13:45:30.500000');
    expect(values(other, 'time_of_day')[1]).toBe('23:59:59.999000');
  });

  it('LargeUtf8 and the View types, nanoseconds and seconds', async () => {
    const large = await read({ strings: 'large', binary: 'view', time: 'ns', timestamp: 's' }, ALL);
    expect(types(large)).toEqual(expect.arrayContaining(['text large_string', 'bytes binary_view']));
    expect(types(large)).toEqual(expect.arrayContaining(['time_of_day time64[ns]', 'ts timestamp[s]']));
    const view = await read({ strings: 'view' }, ALL);
    expect(types(view)).toContain('text string_view');
    expect(values(view, 'text')).toEqual(values(large, 'text'));
    expect(values(large, 'bytes')).toEqual(values(service, 'bytes').filter((_, i) => i !== 2));
    expect(values(large, 'ts')[5]).toBe('2024-02-29 13:45:30');
  });

  it('a timestamp past 2262 in nanoseconds is an error of the stream, not a wrapped value', async () => {
    await expect(read({ timestamp: 'ns' }, 'SELECT ts FROM every_type WHERE id = 3')).rejects.toThrow(
      /overflows 64-bit ns/,
    );
  });

  it('--flight-encoding: parsed, refused by name when wrong, and documented', async () => {
    expect(parseFlightEncoding('date=day,zone=none,decimal=256')).toEqual({
      date: 'day',
      zone: null,
      decimal: 256,
    });
    expect(() => parseFlightEncoding('colour=blue')).toThrow(/unknown encoding "colour"/);
    expect(() => parseFlightEncoding('time=minutes')).toThrow(/"time=minutes" is not an encoding of time/);
    const bad = await runEmulatorCommand(['--port', '0', '--flight-encoding', 'date=week']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toBe(
      'emulator: --flight-encoding: "date=week" is not an encoding of date',
    );
    const help = await runEmulatorCommand(['--help']);
    expect(help.stdout).toContain('--flight-encoding KEY=VALUE,…');
  });
});
