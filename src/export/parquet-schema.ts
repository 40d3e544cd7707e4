// Each column type (column-types.ts) as Parquet columns: the schema elements of its place in the file, the leaf
// columns that hold its values (parquet-columns.ts), and how one row's value is shredded into them with its
// definition and repetition levels (the Dremel encoding of Parquet's nested types). A LIST is the standard
// three levels (an optional group annotated LIST, a repeated group `list`, an optional `element`), a MAP the
// same with a repeated `key_value` group of a required `key` and an optional `value`, a STRUCT an optional group
// of its fields. A flat column is one OPTIONAL leaf (definition level 1), written from its validity bitmap.
// What Parquet cannot hold without loss is refused here, by name, before a byte is written.
import type { SchemaElement } from 'hyparquet';
import { stringifyExact } from '../api/exact-json.js';
import { ServiceError } from '../errors.js';
import { type ColumnType, serviceTypeName } from './column-types.js';
import { ColumnBuffer } from './parquet-columns.js';
import { badValue, type Value } from './rest-cells.js';

/** One top-level column of the file. */
export interface ParquetColumn {
  name: string;
  type: ColumnType;
  /** Its schema elements, depth first. */
  elements: SchemaElement[];
  /** Its leaf columns, in the order of `elements`. */
  leaves: ColumnBuffer[];
  /** Appends one row's value (null for a null row) to its leaves. */
  put(v: Value): void;
  /** How row i of a column read through `cursor` is appended, without a JS value per nested cell. */
  from(cursor: Cursor): (i: number) => void;
}

/**
 * A column's values read where they are (an Arrow column: flight/arrow-values.ts), for the nested columns:
 * nullness, a list's or map's range of values in its child, a struct's fields, a leaf's values.
 */
export interface Cursor {
  isNull(i: number): boolean;
  /** A list's or map's values: `start(i)` to `end(i)` of its child (a map's keys and values alike). */
  start(i: number): number;
  end(i: number): number;
  /** A struct's field `c`, a list's element (0), a map's key (0) or value (1). */
  child(c: number): Cursor;
  /** A leaf's value (not null), as `Value` is for its type. */
  value(i: number): Value;
  /**
   * A VARCHAR or VARBINARY leaf's bytes (not null) where they are, without a view made per value: valid until
   * the next call.
   */
  bytes?(i: number): { bytes: Uint8Array; from: number; to: number };
  /**
   * A leaf whose values are its Parquet column's PLAIN bytes as they are (a 32- or 64-bit signed integer or
   * float): those values, each cell's copied without a JS value made of it.
   */
  fixed?: Int32Array | BigInt64Array | Float32Array | Float64Array;
}

/** The largest DECIMAL precision every reader takes (DuckDB and Spark stop at 38 digits: a wider one reads back as a double). */
const MAX_DECIMAL_PRECISION = 38;

/** A node of a column's tree: appends a value (null: absent) whose first slot repeats at `rep`. */
interface Node {
  elements: SchemaElement[];
  leaves: ColumnBuffer[];
  put(v: Value, rep: number): void;
  /** The same from a cursor: appends its row i, whose first slot repeats at `rep`. */
  from(cursor: Cursor): (i: number, rep: number) => void;
  /** Every leaf below gets a slot without a value, defined up to `def`. */
  absent(def: number, rep: number): void;
}

/**
 * The Parquet columns of a column `name` of type `type`. `typeName` names the type in a refusal (the Flight
 * stream's Arrow type, as `Decimal256(60, 2)`); by default the service's name.
 */
export function parquetColumn(name: string, type: ColumnType, typeName?: string): ParquetColumn {
  refuse(name, type, typeName);
  const root = node(name, type, 'OPTIONAL', 1, 0, [name]);
  return {
    name,
    type,
    elements: root.elements,
    leaves: root.leaves,
    put: (v) => root.put(v, 0),
    from: (cursor) => {
      const put = root.from(cursor);
      return (i) => put(i, 0);
    },
  };
}

function refuse(name: string, type: ColumnType, typeName: string | undefined): void {
  const walk = (t: ColumnType): ColumnType | undefined => {
    if (t.kind === 'decimal' && t.precision > MAX_DECIMAL_PRECISION) return t;
    if (t.kind === 'list') return walk(t.element);
    if (t.kind === 'map') return walk(t.key) ?? walk(t.value);
    if (t.kind === 'struct')
      for (const f of t.fields) {
        const found = walk(f.type);
        if (found) return found;
      }
    return undefined;
  };
  const bad = walk(type);
  if (!bad) return;
  const what = typeName ?? serviceTypeName(type);
  throw new ServiceError(
    `cannot write column ${JSON.stringify(name)} as Parquet: its type ${what} holds ${(bad as { precision: number }).precision} digits, and Parquet readers take at most ${MAX_DECIMAL_PRECISION}`,
    {
      hint: 'export it as CSV, JSON or NDJSON, which write every digit, or cast it to DECIMAL(38, s) in the query',
    },
  );
}

/**
 * The node of a field `name` of type `t`, `repetition` OPTIONAL or REQUIRED, whose definition level is `def`
 * when its value is there, inside `rep` repeated groups, at `path` from the root.
 */
function node(
  name: string,
  t: ColumnType,
  repetition: 'OPTIONAL' | 'REQUIRED',
  def: number,
  rep: number,
  path: string[],
): Node {
  const missing = repetition === 'OPTIONAL' ? def - 1 : def;
  const absentAll = (leaves: ColumnBuffer[]) => (d: number, r: number) => {
    for (const leaf of leaves) {
      if (leaf.maxDef === 1 && leaf.maxRep === 0) leaf.null();
      else leaf.absent(d, r);
    }
  };
  switch (t.kind) {
    case 'struct': {
      const fields = t.fields.map((f) => node(f.name, f.type, 'OPTIONAL', def + 1, rep, [...path, f.name]));
      const leaves = fields.flatMap((f) => f.leaves);
      const absent = absentAll(leaves);
      return {
        elements: [
          { name, repetition_type: repetition, num_children: fields.length },
          ...fields.flatMap((f) => f.elements),
        ],
        leaves,
        absent,
        put(v, r) {
          if (v === null) return absent(missing, r);
          const values = v as Value[];
          for (let i = 0; i < fields.length; i++) fields[i]!.put(values[i] ?? null, r);
        },
        from(cursor) {
          const puts = fields.map((f, c) => f.from(cursor.child(c)));
          return (i, r) => {
            if (cursor.isNull(i)) return absent(missing, r);
            for (const put of puts) put(i, r);
          };
        },
      };
    }
    case 'list':
    case 'map': {
      const inner = rep + 1;
      const group = t.kind === 'list' ? 'list' : 'key_value';
      const children =
        t.kind === 'list'
          ? [node('element', t.element, 'OPTIONAL', def + 2, inner, [...path, group, 'element'])]
          : [
              node('key', t.key, 'REQUIRED', def + 1, inner, [...path, group, 'key']),
              node('value', t.value, 'OPTIONAL', def + 2, inner, [...path, group, 'value']),
            ];
      const leaves = children.flatMap((c) => c.leaves);
      const absent = absentAll(leaves);
      const annotation = t.kind === 'list' ? 'LIST' : 'MAP';
      return {
        elements: [
          {
            name,
            repetition_type: repetition,
            num_children: 1,
            converted_type: annotation,
            logical_type: { type: annotation },
          },
          { name: group, repetition_type: 'REPEATED', num_children: children.length },
          ...children.flatMap((c) => c.elements),
        ],
        leaves,
        absent,
        put(v, r) {
          if (v === null) return absent(missing, r);
          const items = v as Value[];
          // An empty list or map: defined up to its own group.
          if (items.length === 0) return absent(def, r);
          for (let k = 0; k < items.length; k++) {
            const slotRep = k === 0 ? r : inner;
            if (t.kind === 'list') children[0]!.put(items[k]!, slotRep);
            else {
              const [key, value] = items[k] as [Value, Value];
              if (key === null)
                throw new ServiceError(`column ${JSON.stringify(path[0])}: a MAP entry without a key`);
              children[0]!.put(key, slotRep);
              children[1]!.put(value, slotRep);
            }
          }
        },
        from(cursor) {
          const puts = children.map((c, k) => c.from(cursor.child(k)));
          return (i, r) => {
            if (cursor.isNull(i)) return absent(missing, r);
            const start = cursor.start(i);
            const end = cursor.end(i);
            if (start === end) return absent(def, r);
            for (let k = start; k < end; k++) for (const put of puts) put(k, k === start ? r : inner);
          };
        },
      };
    }
    default: {
      const leaf = scalar(path[0]!, t);
      const element = { name, repetition_type: repetition, ...leaf.element } as SchemaElement;
      const buffer = new ColumnBuffer(element, leaf.minMax, path, def, rep);
      const write = leaf.write;
      const absent = absentAll([buffer]);
      return {
        elements: [element],
        leaves: [buffer],
        absent,
        put(v, r) {
          if (v === null) return absent(missing, r);
          buffer.nextRep = r;
          write(buffer, v);
        },
        from(cursor) {
          const bytes =
            cursor.bytes && (t.kind === 'varchar' || t.kind === 'varbinary') ? cursor.bytes : undefined;
          if (bytes)
            return (i, r) => {
              if (cursor.isNull(i)) return absent(missing, r);
              buffer.nextRep = r;
              const c = bytes(i);
              buffer.bytes(c.bytes, c.from, c.to);
            };
          const fixed = cursor.fixed;
          if (fixed && fixed.BYTES_PER_ELEMENT === buffer.width) {
            const src = new Uint8Array(fixed.buffer, fixed.byteOffset, fixed.byteLength);
            const width = buffer.width;
            return (i, r) => {
              if (cursor.isNull(i)) return absent(missing, r);
              buffer.nextRep = r;
              buffer.plain(src, i * width);
            };
          }
          return (i, r) => {
            if (cursor.isNull(i)) return absent(missing, r);
            buffer.nextRep = r;
            write(buffer, cursor.value(i));
          };
        },
      };
    }
  }
}

interface Scalar {
  element: Partial<SchemaElement>;
  /** Whether min and max statistics mean something in the physical type's order. */
  minMax: boolean;
  write(b: ColumnBuffer, v: Value): void;
}

const utf8: Partial<SchemaElement> = {
  type: 'BYTE_ARRAY',
  converted_type: 'UTF8',
  logical_type: { type: 'STRING' },
};
/** A VARCHAR: a string (REST), or its UTF-8 bytes (Arrow). */
const text: Scalar = {
  element: utf8,
  minMax: true,
  write: (b, v) =>
    typeof v === 'string' ? b.text(v) : b.bytes(v as Uint8Array, 0, (v as Uint8Array).length),
};

/** The Parquet type of a scalar column type, and how its value is written (column named `name` in errors). */
function scalar(name: string, t: ColumnType): Scalar {
  switch (t.kind) {
    case 'varbinary':
      return {
        element: { type: 'BYTE_ARRAY' },
        minMax: true,
        write: (b, v) => b.bytes(v as Uint8Array, 0, (v as Uint8Array).length),
      };
    case 'boolean':
      return { element: { type: 'BOOLEAN' }, minMax: true, write: (b, v) => b.boolean(v as boolean) };
    case 'integer': {
      if (t.bits === 64 || (t.bits === 32 && t.unsigned)) {
        const unsigned64 = t.bits === 64 && t.unsigned;
        return {
          // The converted type alone: hyparquet-writer writes the INTEGER logical type's bit width as an i32,
          // which Arrow C++ refuses; readers take UINT_64 as that logical type.
          element: unsigned64 ? { type: 'INT64', converted_type: 'UINT_64' } : { type: 'INT64' },
          // An unsigned 64-bit value above 2^63 is stored as its bits: no signed order.
          minMax: !unsigned64,
          write: (b, v) => b.int64(BigInt.asIntN(64, BigInt(v as number | bigint))),
        };
      }
      const annotated =
        t.bits < 32
          ? { converted_type: `${t.unsigned ? 'UINT' : 'INT'}_${t.bits}` as SchemaElement['converted_type'] }
          : {};
      return {
        element: { type: 'INT32', ...annotated },
        minMax: true,
        write: (b, v) => {
          const n = Number(v);
          if (!Number.isSafeInteger(n) || n !== (n | 0)) throw badValue(name, v, `a ${t.bits}-bit integer`);
          b.int32(n);
        },
      };
    }
    case 'float':
      return t.bits === 64
        ? { element: { type: 'DOUBLE' }, minMax: true, write: (b, v) => b.double(v as number) }
        : { element: { type: 'FLOAT' }, minMax: true, write: (b, v) => b.float(v as number) };
    case 'decimal': {
      const { precision, scale } = t;
      const element: Partial<SchemaElement> = {
        type: precision <= 18 ? 'INT64' : 'BYTE_ARRAY',
        converted_type: 'DECIMAL',
        precision,
        scale,
        logical_type: { type: 'DECIMAL', precision, scale },
      };
      // A wide decimal's bytes (big-endian two's complement) do not sort as unsigned bytes: no min/max.
      return { element, minMax: precision <= 18, write: (b, v) => putDecimal(b, precision, v as bigint) };
    }
    case 'date':
      return {
        element: { type: 'INT32', converted_type: 'DATE', logical_type: { type: 'DATE' } },
        minMax: true,
        write: (b, v) => b.int32(v as number),
      };
    case 'time': {
      if (t.unit >= 1_000_000) {
        const scale = t.unit / 1_000_000;
        return {
          element: {
            type: 'INT32',
            converted_type: 'TIME_MILLIS',
            logical_type: { type: 'TIME', isAdjustedToUTC: false, unit: 'MILLIS' },
          },
          minMax: true,
          write: (b, v) => b.int32(Number(v) * scale),
        };
      }
      const unit = t.unit === 1000 ? 'MICROS' : 'NANOS';
      return {
        element: {
          type: 'INT64',
          ...(unit === 'MICROS' ? { converted_type: 'TIME_MICROS' as const } : {}),
          logical_type: { type: 'TIME', isAdjustedToUTC: false, unit },
        },
        minMax: true,
        write: (b, v) => b.int64(BigInt(v as number | bigint)),
      };
    }
    case 'timestamp': {
      // Seconds are written as milliseconds: Parquet has no unit of seconds.
      const scale = t.unit === 1_000_000_000 ? 1000n : 1n;
      const unit = t.unit >= 1_000_000 ? 'MILLIS' : t.unit === 1000 ? 'MICROS' : 'NANOS';
      // The converted types TIMESTAMP_MILLIS/MICROS mean "adjusted to UTC": only for a zoned source type.
      const converted = t.zoned && unit !== 'NANOS' ? { converted_type: `TIMESTAMP_${unit}` as const } : {};
      return {
        element: {
          type: 'INT64',
          ...converted,
          logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: t.zoned, unit },
        },
        minMax: true,
        write: (b, v) => b.int64(BigInt(v as number | bigint) * scale),
      };
    }
    case 'null':
    case 'other':
      // A type the table does not know: the JSON text of what the service sent.
      return {
        element: utf8,
        minMax: true,
        write: (b, v) => b.text(typeof v === 'string' ? v : stringifyExact(v)),
      };
    default:
      // VARCHAR, and INTERVAL as its ISO 8601 text (Parquet's own INTERVAL is deprecated).
      return text;
  }
}

/** A decimal's unscaled value into its column: an int64, or its big-endian two's complement bytes. */
function putDecimal(b: ColumnBuffer, precision: number, n: bigint): void {
  if (b.physical === 'INT64') {
    if (BigInt.asIntN(64, n) !== n) throw new ServiceError(`decimal ${n} does not fit DECIMAL(${precision})`);
    b.int64(n);
    return;
  }
  const bytes = twosComplement(n);
  b.bytes(bytes, 0, bytes.length);
}

/**
 * The fewest big-endian bytes holding `n` in two's complement, and at least one: a zero is one zero byte, since
 * Arrow C++ (pyarrow, pandas) and Java's BigInteger refuse a decimal of no bytes.
 */
function twosComplement(n: bigint): Uint8Array {
  const bytes: number[] = [];
  for (let v = n; v !== 0n && v !== -1n; v >>= 8n) bytes.push(Number(v & 0xffn));
  // One more byte when the top bit would read as the wrong sign (and the one byte of 0 or -1).
  const top = bytes.at(-1);
  if (n < 0n && (top === undefined || top < 0x80)) bytes.push(0xff);
  else if (n >= 0n && (top === undefined || top >= 0x80)) bytes.push(0);
  return Uint8Array.from(bytes.reverse());
}
