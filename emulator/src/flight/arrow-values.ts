// Arrow columns built from DuckDB's values, for every type and every encoding the emulator's Flight sends
// (emulator/src/flight/encoding.ts): nested ones recursively (a List's child is built from its items, a Struct's
// children from its fields, a Map's entries from its keys and values), nulls at every level. The common flat columns
// of the service's encoding take the faster path of arrow-batches.ts, straight from DuckDB's vectors.

import { type DuckDBType, DuckDBTypeId, type DuckDBValue } from '@duckdb/node-api';
import {
  Binary,
  BinaryView,
  Bool,
  type Data,
  type DataType,
  DateDay,
  DateMillisecond,
  Decimal,
  Dictionary,
  Field,
  Float32,
  Float64,
  Int8,
  Int16,
  Int32,
  Int64,
  IntervalDayTime,
  IntervalYearMonth,
  LargeBinary,
  LargeList,
  LargeUtf8,
  List,
  Map_,
  makeData,
  makeVector,
  Struct,
  Time,
  Timestamp,
  TimeUnit,
  Utf8,
  Utf8View,
} from 'apache-arrow';
import { floorDiv } from '../service-text.js';
import { describeType, intervalMillis, isYearMonth, timestampMillis } from '../sql-engine.js';
import type { FlightEncoding, TimeUnitName } from './encoding.js';

/** How one column (or nested field) becomes Arrow: its type, and its data from its values. */
export interface ValuePlan {
  type: DataType;
  build(values: readonly DuckDBValue[]): Data;
}

/** The validity bitmap (null when nothing is null) and the null count of `values`. */
function validity(values: readonly DuckDBValue[]): { nullBitmap: Uint8Array | null; nullCount: number } {
  const bitmap = new Uint8Array((values.length + 7) >> 3);
  let nullCount = 0;
  values.forEach((v, i) => {
    if (v === null) nullCount++;
    else bitmap[i >> 3]! |= 1 << (i & 7);
  });
  return { nullBitmap: nullCount ? bitmap : null, nullCount };
}

/** A fixed-width column: each non-null value written into `stride` slots of a typed array by `put`. */
function fixedPlan<A extends { length: number }>(
  type: DataType,
  make: (n: number) => A,
  stride: number,
  put: (out: A, at: number, v: DuckDBValue) => void,
): ValuePlan {
  return {
    type,
    build(values) {
      const data = make(values.length * stride);
      values.forEach((v, i) => {
        if (v !== null) put(data, i * stride, v);
      });
      return makeData({
        type: type as Int32,
        length: values.length,
        ...validity(values),
        data: data as never,
      });
    },
  };
}

const num = (v: DuckDBValue): number => Number(v);
/** A BIGINT; DuckDB's wider integers (a HUGEINT sum) past 64 bits are refused, as the service's BIGINT overflows. */
function big(v: DuckDBValue): bigint {
  const n = typeof v === 'bigint' ? v : BigInt(v as number);
  if (n !== BigInt.asIntN(64, n)) throw new Error(`${n} is out of the range of BIGINT`);
  return n;
}
const utf8 = new TextEncoder();

/** Variable-width bytes (strings or binary) in any of Arrow's layouts. */
function bytesPlan(
  layout: 'small' | 'large' | 'view',
  text: boolean,
  bytesOf: (v: DuckDBValue) => Uint8Array,
) {
  const type =
    layout === 'view'
      ? text
        ? new Utf8View()
        : new BinaryView()
      : layout === 'large'
        ? text
          ? new LargeUtf8()
          : new LargeBinary()
        : text
          ? new Utf8()
          : new Binary();
  return {
    type,
    build(values: readonly DuckDBValue[]): Data {
      const cells = values.map((v) => (v === null ? new Uint8Array(0) : bytesOf(v)));
      const total = cells.reduce((n, c) => n + c.length, 0);
      const data = new Uint8Array(total);
      if (layout === 'view') {
        // Each view is 16 bytes: the length, then the bytes themselves up to 12, else a 4-byte prefix, the buffer
        // index and the offset in it (here one buffer holding every longer value).
        const views = new Uint8Array(values.length * 16);
        const dv = new DataView(views.buffer);
        let at = 0;
        cells.forEach((c, i) => {
          dv.setInt32(i * 16, c.length, true);
          if (c.length <= 12) views.set(c, i * 16 + 4);
          else {
            views.set(c.subarray(0, 4), i * 16 + 4);
            dv.setInt32(i * 16 + 8, 0, true);
            dv.setInt32(i * 16 + 12, at, true);
            data.set(c, at);
            at += c.length;
          }
        });
        return makeData({
          type: type as Utf8View,
          length: values.length,
          ...validity(values),
          views,
          variadicBuffers: [data.subarray(0, at)],
        } as never);
      }
      const offsets =
        layout === 'large' ? new BigInt64Array(values.length + 1) : new Int32Array(values.length + 1);
      let at = 0;
      cells.forEach((c, i) => {
        data.set(c, at);
        at += c.length;
        offsets[i + 1] = (layout === 'large' ? BigInt(at) : at) as never;
      });
      return makeData({
        type: type as Utf8,
        length: values.length,
        ...validity(values),
        valueOffsets: offsets as Int32Array,
        data,
      });
    },
  };
}

/**
 * Strings dictionary-encoded: Int32 indices into a Utf8 dictionary of the distinct values of the batch (each column
 * its own dictionary id, which apache-arrow numbers).
 */
function dictionaryPlan(textOf: (v: DuckDBValue) => string): ValuePlan {
  const type = new Dictionary(new Utf8(), new Int32());
  const words = bytesPlan('small', true, (v) => utf8.encode(v as string));
  return {
    type,
    build(values) {
      const index = new Map<string, number>();
      const indices = new Int32Array(values.length);
      values.forEach((v, i) => {
        if (v === null) return;
        const s = textOf(v);
        let k = index.get(s);
        if (k === undefined) {
          k = index.size;
          index.set(s, k);
        }
        indices[i] = k;
      });
      const dictionary = makeVector(words.build([...index.keys()]));
      return makeData({
        type,
        length: values.length,
        ...validity(values),
        data: indices,
        dictionary,
      } as never);
    },
  };
}

/** The Arrow time unit and how many of it make a DuckDB microsecond (a negative power: a division). */
const UNIT: Record<TimeUnitName, { unit: TimeUnit; perMicro: bigint; divide: boolean }> = {
  s: { unit: TimeUnit.SECOND, perMicro: 1_000_000n, divide: true },
  ms: { unit: TimeUnit.MILLISECOND, perMicro: 1000n, divide: true },
  us: { unit: TimeUnit.MICROSECOND, perMicro: 1n, divide: false },
  ns: { unit: TimeUnit.NANOSECOND, perMicro: 1000n, divide: false },
};

/** Microseconds in `unit`, floored; past 64 bits (nanoseconds after 2262) it is refused, as Arrow C++ refuses it. */
function fromMicros(micros: bigint, unit: TimeUnitName): bigint {
  const u = UNIT[unit];
  const out = u.divide ? floorDiv(micros, u.perMicro) : micros * u.perMicro;
  if (out !== BigInt.asIntN(64, out)) throw new Error(`a time of ${micros} µs overflows 64-bit ${unit}`);
  return out;
}

/** A DuckDB time or timestamp value in microseconds (nanosecond types floored to microseconds). */
function timeMicros(typeId: DuckDBTypeId, v: DuckDBValue): bigint {
  const o = v as { micros?: bigint; nanos?: bigint };
  if (typeId === DuckDBTypeId.TIME_NS) return floorDiv(o.nanos!, 1000n);
  if (o.micros !== undefined) return o.micros;
  return timestampMillis(typeId, v) * 1000n;
}

/** The Arrow column of a value of type `t` named `name` (a column or a nested field) in encoding `enc`. */
export function valuePlan(t: DuckDBType, name: string, enc: FlightEncoding): ValuePlan {
  const text = (): ValuePlan => {
    // The REST answer's text of each value: a string as it is, anything else as its JSON.
    const json = describeType(t, name).json;
    const textOf = (v: DuckDBValue): string => {
      const out = json(v);
      return out.startsWith('"') ? (JSON.parse(out) as string) : out;
    };
    return enc.strings === 'dictionary'
      ? dictionaryPlan(textOf)
      : bytesPlan(enc.strings === 'utf8' ? 'small' : enc.strings, true, (v) => utf8.encode(textOf(v)));
  };
  switch (t.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return {
        type: new Bool(),
        build(values) {
          const bits = new Uint8Array((values.length + 7) >> 3);
          values.forEach((v, i) => {
            if (v === true) bits[i >> 3]! |= 1 << (i & 7);
          });
          return makeData({ type: new Bool(), length: values.length, ...validity(values), data: bits });
        },
      };
    case DuckDBTypeId.TINYINT:
      return fixedPlan(
        new Int8(),
        (n) => new Int8Array(n),
        1,
        (o, i, v) => (o[i] = num(v)),
      );
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.UTINYINT:
      return fixedPlan(
        new Int16(),
        (n) => new Int16Array(n),
        1,
        (o, i, v) => (o[i] = num(v)),
      );
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.USMALLINT:
      return fixedPlan(
        new Int32(),
        (n) => new Int32Array(n),
        1,
        (o, i, v) => (o[i] = num(v)),
      );
    case DuckDBTypeId.UINTEGER:
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
      return fixedPlan(
        new Int64(),
        (n) => new BigInt64Array(n),
        1,
        (o, i, v) => (o[i] = big(v)),
      );
    case DuckDBTypeId.FLOAT:
      return fixedPlan(
        new Float32(),
        (n) => new Float32Array(n),
        1,
        (o, i, v) => (o[i] = num(v)),
      );
    case DuckDBTypeId.DOUBLE:
      return fixedPlan(
        new Float64(),
        (n) => new Float64Array(n),
        1,
        (o, i, v) => (o[i] = num(v)),
      );
    case DuckDBTypeId.DECIMAL: {
      const words = enc.decimal / 32;
      const mask = (1n << 32n) - 1n;
      // Two's complement, little-endian 32-bit words.
      return fixedPlan(
        new Decimal(t.scale, t.width, enc.decimal),
        (n) => new Uint32Array(n),
        words,
        (o, i, v) => {
          let n = BigInt.asUintN(enc.decimal, (v as { value: bigint }).value);
          for (let w = 0; w < words; w++, n >>= 32n) o[i + w] = Number(n & mask);
        },
      );
    }
    case DuckDBTypeId.VARCHAR:
    case DuckDBTypeId.ENUM:
    case DuckDBTypeId.UUID:
      if (enc.strings === 'dictionary') return dictionaryPlan(String);
      return bytesPlan(enc.strings === 'utf8' ? 'small' : enc.strings, true, (v) => utf8.encode(String(v)));
    case DuckDBTypeId.BLOB:
      return bytesPlan(
        enc.binary === 'binary' ? 'small' : enc.binary,
        false,
        (v) => (v as { bytes: Uint8Array }).bytes,
      );
    case DuckDBTypeId.DATE:
      return enc.date === 'day'
        ? fixedPlan(
            new DateDay(),
            (n) => new Int32Array(n),
            1,
            (o, i, v) => (o[i] = (v as { days: number }).days),
          )
        : fixedPlan(
            new DateMillisecond(),
            (n) => new BigInt64Array(n),
            1,
            (o, i, v) => {
              o[i] = BigInt((v as { days: number }).days) * 86_400_000n;
            },
          );
    case DuckDBTypeId.TIME:
    case DuckDBTypeId.TIME_TZ:
    case DuckDBTypeId.TIME_NS: {
      const unit = enc.time;
      const wide = unit === 'us' || unit === 'ns';
      const type = new Time(UNIT[unit].unit, wide ? 64 : 32);
      const value = (v: DuckDBValue): bigint => fromMicros(timeMicros(t.typeId, v), unit);
      return wide
        ? fixedPlan(
            type,
            (n) => new BigInt64Array(n),
            1,
            (o, i, v) => (o[i] = value(v)),
          )
        : fixedPlan(
            type,
            (n) => new Int32Array(n),
            1,
            (o, i, v) => (o[i] = Number(value(v))),
          );
    }
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_TZ:
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_NS: {
      const unit = enc.timestamp;
      // Nanoseconds are kept exact rather than floored to microseconds first.
      const value = (v: DuckDBValue): bigint =>
        t.typeId === DuckDBTypeId.TIMESTAMP_NS && unit === 'ns'
          ? (v as { nanos: bigint }).nanos
          : fromMicros(timeMicros(t.typeId, v), unit);
      return fixedPlan(
        new Timestamp(UNIT[unit].unit, enc.zone),
        (n) => new BigInt64Array(n),
        1,
        (o, i, v) => {
          o[i] = value(v);
        },
      );
    }
    case DuckDBTypeId.INTERVAL:
      if (enc.intervals === 'text') return text();
      return isYearMonth(name)
        ? fixedPlan(
            new IntervalYearMonth(),
            (n) => new Int32Array(n),
            1,
            (o, i, v) => {
              o[i] = (v as { months: number }).months;
            },
          )
        : fixedPlan(
            new IntervalDayTime(),
            (n) => new Int32Array(n),
            2,
            (o, i, v) => {
              const ms = intervalMillis(v);
              const days = ms / 86_400_000n;
              o[i] = Number(days);
              o[i + 1] = Number(ms - days * 86_400_000n);
            },
          );
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY: {
      if (enc.nested === 'text') return text();
      const child = valuePlan(t.valueType, 'item', enc);
      const field = new Field('item', child.type, true);
      const large = enc.lists === 'large';
      const type = large ? new LargeList(field) : new List(field);
      return {
        type,
        build(values) {
          const offsets = large ? new BigInt64Array(values.length + 1) : new Int32Array(values.length + 1);
          const items: DuckDBValue[] = [];
          values.forEach((v, i) => {
            if (v !== null) items.push(...(v as { items: readonly DuckDBValue[] }).items);
            offsets[i + 1] = (large ? BigInt(items.length) : items.length) as never;
          });
          return makeData({
            type: type as List,
            length: values.length,
            ...validity(values),
            valueOffsets: offsets as Int32Array,
            child: child.build(items),
          });
        },
      };
    }
    case DuckDBTypeId.STRUCT: {
      if (enc.nested === 'text') return text();
      const names = t.entryNames;
      const children = t.entryTypes.map((e, i) => valuePlan(e, names[i]!, enc));
      const type = new Struct(names.map((n, i) => new Field(n, children[i]!.type, true)));
      return {
        type,
        build(values) {
          const entries = values.map((v) => (v as { entries: Record<string, DuckDBValue> } | null)?.entries);
          return makeData({
            type,
            length: values.length,
            ...validity(values),
            children: children.map((c, k) => c.build(entries.map((e) => e?.[names[k]!] ?? null))),
          });
        },
      };
    }
    case DuckDBTypeId.MAP: {
      if (enc.nested === 'text') return text();
      const key = valuePlan(t.keyType, 'key', enc);
      const value = valuePlan(t.valueType, 'value', enc);
      const entries = new Struct([new Field('key', key.type, false), new Field('value', value.type, true)]);
      const type = new Map_(new Field('entries', entries, false));
      return {
        type,
        build(values) {
          const offsets = new Int32Array(values.length + 1);
          const keys: DuckDBValue[] = [];
          const vals: DuckDBValue[] = [];
          values.forEach((v, i) => {
            for (const e of (v as { entries: Array<{ key: DuckDBValue; value: DuckDBValue }> } | null)
              ?.entries ?? []) {
              keys.push(e.key);
              vals.push(e.value);
            }
            offsets[i + 1] = keys.length;
          });
          const child = makeData({
            type: entries,
            length: keys.length,
            nullCount: 0,
            children: [key.build(keys), value.build(vals)],
          });
          return makeData({ type, length: values.length, ...validity(values), valueOffsets: offsets, child });
        },
      };
    }
    default:
      return text();
  }
}
