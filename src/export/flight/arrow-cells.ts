// The cells of an Arrow column in the text formats, every encoding of every type (flight/arrow-types.ts), each
// value in its one canonical text (../values.ts), so that a Flight export is byte for byte the REST export of the
// same rows. Read straight from the column's buffers: no row objects, and no strings for text cells that need
// no escaping. The stream was validated before (./validate.ts): offsets, child lengths, view buffers and
// dictionary indices are inside their data.
//
// As apache-arrow slices a column, its values, offsets and views start at its first row, while its validity
// bitmap (and a Bool column's value bits) start `data.offset` bits in; a struct's children are sliced with it, a
// list's are not (its offsets say where its values are).
import { type Data, type DataType, Type, type Vector } from 'apache-arrow';
import { putCsvField } from '../../util/csv-field.js';
import type { Bytes } from '../bytes.js';
import type { ColumnType } from '../column-types.js';
import {
  base64,
  dateText,
  decimalText,
  doubleText,
  floatText,
  intervalText,
  jsonFloat,
  timestampText,
  timeText,
} from '../values.js';

/** How the text formats write one column's cells. */
export interface Cells {
  /** Row i is null. */
  isNull(i: number): boolean;
  /** Cell i (not null) as a CSV field. */
  csv(out: Bytes, i: number): void;
  /** Cell i (not null) as a JSON value. */
  json(out: Bytes, i: number): void;
  /**
   * Cell i (not null) as `json` writes it, every quote doubled: a value within a nested cell's JSON, written
   * straight into its quoted CSV field (no second pass to quote it).
   */
  jsonInCsv(out: Bytes, i: number): void;
}

type Typed = DataType & {
  unit?: number;
  scale?: number;
  bitWidth?: number;
  precision?: number;
  byteWidth?: number;
  listSize?: number;
};

const QUOTE = 34;
const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');

export function nullTest(data: Data): (i: number) => boolean {
  if (data.typeId === Type.Null) return () => true;
  const bitmap = data.nullBitmap;
  if (!data.nullCount || !bitmap || bitmap.length === 0) return () => false;
  const off = data.offset;
  return (i) => {
    const j = i + off;
    return (bitmap[j >> 3]! & (1 << (j & 7))) === 0;
  };
}

/** Where the bytes of cell i of a string or binary column are: in `bytes`, from `from` to `to`. */
interface ByteCell {
  bytes: Uint8Array;
  from: number;
  to: number;
}

/** A reader of the bytes of a Utf8/Binary cell in any of their layouts (offsets, large offsets, views, fixed). */
export function byteCells(data: Data): (i: number) => ByteCell {
  const cell: ByteCell = { bytes: new Uint8Array(0), from: 0, to: 0 };
  const typeId = data.typeId as Type;
  if (typeId === Type.Utf8View || typeId === Type.BinaryView) {
    const views = data.values as Uint8Array;
    const dv = new DataView(views.buffer, views.byteOffset, views.byteLength);
    const buffers = (data as unknown as { variadicBuffers: readonly Uint8Array[] }).variadicBuffers ?? [];
    return (i) => {
      const at = i * 16;
      const n = dv.getInt32(at, true);
      if (n <= 12) {
        cell.bytes = views;
        cell.from = at + 4;
      } else {
        cell.bytes = buffers[dv.getInt32(at + 8, true)]!;
        cell.from = dv.getInt32(at + 12, true);
      }
      cell.to = cell.from + n;
      return cell;
    };
  }
  if (typeId === Type.FixedSizeBinary) {
    const width = (data.type as Typed).byteWidth!;
    cell.bytes = data.values as Uint8Array;
    return (i) => {
      cell.from = i * width;
      cell.to = cell.from + width;
      return cell;
    };
  }
  cell.bytes = data.values as Uint8Array;
  const offsets = data.valueOffsets as ArrayLike<number | bigint>;
  if (offsets instanceof Int32Array)
    return (i) => {
      cell.from = offsets[i]!;
      cell.to = offsets[i + 1]!;
      return cell;
    };
  return (i) => {
    cell.from = Number(offsets[i]!);
    cell.to = Number(offsets[i + 1]!);
    return cell;
  };
}

/** A scalar column whose cells are short ASCII texts: written as they are in CSV, as `json(text)` in JSON. */
function textCells(data: Data, text: (i: number) => string, json: 'raw' | 'string' | 'float'): Cells {
  const raw = (out: Bytes, i: number) => out.ascii(text(i));
  if (json === 'raw') return { isNull: nullTest(data), csv: raw, json: raw, jsonInCsv: raw };
  // A string's quotes, once or doubled; a float's text is a string only for NaN and the infinities.
  const quoted = (quote: string) => (out: Bytes, i: number) => {
    const t = text(i);
    const q = json === 'string' || jsonFloat(t) !== t;
    if (q) out.ascii(quote);
    out.ascii(t);
    if (q) out.ascii(quote);
  };
  return { isNull: nullTest(data), csv: raw, json: quoted('"'), jsonInCsv: quoted('""') };
}

/** An integer column, its digits written straight into the buffer (a 64-bit value read as its two halves). */
function integerCells(data: Data): Cells {
  const values = data.values as unknown as ArrayLike<number> | BigInt64Array | BigUint64Array;
  let write: (out: Bytes, i: number) => void;
  if (values instanceof BigInt64Array || values instanceof BigUint64Array) {
    const halves = new Int32Array(values.buffer, values.byteOffset, values.length * 2);
    const signed = values instanceof BigInt64Array;
    write = (out, i) => {
      const hi = halves[2 * i + 1]!;
      // Within ±2^53 the value is a double, exactly; beyond, its BigInt's digits.
      if (signed ? hi >= -0x200000 && hi < 0x200000 : hi >>> 0 < 0x200000)
        out.int(hi * 4294967296 + (halves[2 * i]! >>> 0));
      else out.ascii(String(values[i]!));
    };
  } else {
    const v = values as ArrayLike<number>;
    write = (out, i) => out.int(v[i]!);
  }
  return { isNull: nullTest(data), csv: write, json: write, jsonInCsv: write };
}

/** A DOUBLE column, its shortest texts written straight into the buffer where they can be (Bytes `double`). */
function doubleCells(data: Data): Cells {
  const values = data.values as Float64Array;
  // NaN and the infinities are JSON strings (`"NaN"`), their quotes doubled within a CSV field.
  const json = (quote: string) => (out: Bytes, i: number) => {
    const v = values[i]!;
    if (Number.isFinite(v)) out.double(v);
    else {
      out.ascii(quote);
      out.ascii(doubleText(v));
      out.ascii(quote);
    }
  };
  return {
    isNull: nullTest(data),
    csv: (out, i) => out.double(values[i]!),
    json: json('"'),
    jsonInCsv: json('""'),
  };
}

/** The unscaled value of a decimal cell: `words` 32-bit little-endian words a value. */
function decimalCells(data: Data): (i: number) => bigint {
  const bits = (data.type as Typed).bitWidth ?? 128;
  if (bits <= 64) {
    const values = data.values as unknown as ArrayLike<number | bigint>;
    return (i) => BigInt(values[i]!);
  }
  const words = bits / 32;
  const v = data.values as unknown as Uint32Array;
  return (i) => {
    const at = i * words;
    // The common case: a value that fits the low 64 bits (the upper words all sign).
    const hi = v[at + 1]!;
    let top = true;
    const sign = hi & 0x80000000 ? 0xffffffff : 0;
    for (let w = 2; w < words; w++) if (v[at + w] !== sign) top = false;
    if (top) return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(v[at]!));
    let n = 0n;
    for (let w = words - 1; w >= 0; w--) n = (n << 32n) | BigInt(v[at + w]!);
    return BigInt.asIntN(bits, n);
  };
}

/** The cells of one column of Arrow data of the column type `type`. */
export function cellsOf(data: Data, type: ColumnType): Cells {
  const t = data.type as Typed;
  if (data.typeId === Type.Dictionary) return dictionaryCells(data, type);
  const values = data.values as unknown as ArrayLike<number | bigint>;
  switch (type.kind) {
    case 'varchar': {
      const at = byteCells(data);
      return {
        isNull: nullTest(data),
        csv: (out, i) => {
          const c = at(i);
          putCsvField(out, c.bytes, c.from, c.to);
        },
        json: (out, i) => {
          const c = at(i);
          out.jsonString(c.bytes, c.from, c.to);
        },
        jsonInCsv: (out, i) => {
          const c = at(i);
          out.jsonStringInCsv(c.bytes, c.from, c.to);
        },
      };
    }
    case 'varbinary': {
      const at = byteCells(data);
      const text = (i: number) => {
        const c = at(i);
        return base64(c.bytes.subarray(c.from, c.to));
      };
      return textCells(data, text, 'string');
    }
    case 'boolean': {
      const bits = data.values as Uint8Array;
      const off = data.offset;
      const write = (out: Bytes, i: number) => {
        const text = (bits[(i + off) >> 3]! & (1 << ((i + off) & 7))) !== 0 ? TRUE : FALSE;
        out.raw(text, 0, text.length);
      };
      return { isNull: nullTest(data), csv: write, json: write, jsonInCsv: write };
    }
    case 'integer':
      return integerCells(data);
    case 'float': {
      if (type.bits === 64) return doubleCells(data);
      const value =
        type.bits === 16
          ? (i: number) => halfToNumber(values[i] as number)
          : (i: number) => values[i] as number;
      return textCells(data, (i) => floatText(value(i)), 'float');
    }
    case 'decimal': {
      const unscaled = decimalCells(data);
      const scale = type.scale;
      return textCells(data, (i) => decimalText(unscaled(i), scale), 'raw');
    }
    case 'date': {
      const perDay = t.unit === 0 ? 1 : 86_400_000;
      return textCells(data, (i) => dateText(Math.floor(Number(values[i]!) / perDay)), 'string');
    }
    case 'time':
      return textCells(data, (i) => timeText(values[i]!, type.unit), 'string');
    case 'timestamp': {
      const unit = type.unit;
      const value = unit === 1_000_000 ? (i: number) => Number(values[i]!) : (i: number) => values[i]!;
      return textCells(data, (i) => timestampText(value(i), unit), 'string');
    }
    case 'interval':
      return textCells(data, intervalOf(data), 'string');
    case 'null':
      return { isNull: () => true, csv: () => {}, json: writeNull, jsonInCsv: writeNull };
    case 'list':
    case 'map':
      return listCells(data, type);
    case 'struct':
      return structCells(data, type);
    case 'other':
      throw new Error(`no cells for ${type.name}`);
  }
}

/** The ISO 8601 text of an interval or duration cell. */
export function intervalOf(data: Data): (i: number) => string {
  const t = data.type as Typed;
  if (data.typeId === Type.Duration) {
    const nanos = BigInt([1_000_000_000, 1_000_000, 1000, 1][t.unit ?? 1]!);
    const values = data.values as unknown as ArrayLike<number | bigint>;
    return (i) => intervalText(0, 0, BigInt(values[i]!) * nanos);
  }
  const v = data.values as unknown as Int32Array;
  switch (t.unit) {
    case 0: // YEAR_MONTH: months
      return (i) => intervalText(v[i]!, 0, 0n);
    case 1: // DAY_TIME: days, milliseconds
      return (i) => intervalText(0, v[i * 2]!, BigInt(v[i * 2 + 1]!) * 1_000_000n);
    default: // MONTH_DAY_NANO: months, days, nanoseconds (64 bits)
      return (i) =>
        intervalText(v[i * 4]!, v[i * 4 + 1]!, (BigInt(v[i * 4 + 3]!) << 32n) | BigInt(v[i * 4 + 2]! >>> 0));
  }
}

/** A dictionary-encoded column: each cell is its index's value in the dictionary (which deltas may have grown). */
function dictionaryCells(data: Data, type: ColumnType): Cells {
  const indices = data.values as unknown as ArrayLike<number | bigint>;
  const dictionary = (data as unknown as { dictionary: Vector }).dictionary;
  const chunks = dictionary.data.map((d) => cellsOf(d, type));
  const starts: number[] = [];
  let n = 0;
  for (const d of dictionary.data) {
    starts.push(n);
    n += d.length;
  }
  const isNull = nullTest(data);
  const locate = (i: number): [Cells, number] => {
    const k = Number(indices[i]!);
    if (chunks.length === 1) return [chunks[0]!, k];
    let c = starts.length - 1;
    while (starts[c]! > k) c--;
    return [chunks[c]!, k - starts[c]!];
  };
  return {
    // A cell whose value is a null of the dictionary is null too.
    isNull: (i) => {
      if (isNull(i)) return true;
      const [cells, k] = locate(i);
      return cells.isNull(k);
    },
    csv: (out, i) => {
      const [cells, k] = locate(i);
      cells.csv(out, k);
    },
    json: (out, i) => {
      const [cells, k] = locate(i);
      cells.json(out, k);
    },
    jsonInCsv: (out, i) => {
      const [cells, k] = locate(i);
      cells.jsonInCsv(out, k);
    },
  };
}

const writeNull = (out: Bytes) => out.ascii('null');

/**
 * A nested cell in CSV: its JSON text as one field (csv-field.ts's rule), written straight between quotes with
 * its own quotes doubled; the quotes come off again when it holds no quote and no comma (`[]`, `[1]`).
 */
function nestedCsv(jsonInCsv: (out: Bytes, i: number) => void): (out: Bytes, i: number) => void {
  return (out, i) => {
    out.byte(QUOTE);
    const start = out.w;
    jsonInCsv(out, i);
    const buf = out.buf;
    const end = out.w;
    // JSON holds no CR or LF: a quote or a comma is what needs the field quoted.
    for (let k = start; k < end; k++) {
      const c = buf[k];
      if (c === QUOTE || c === 44) {
        out.byte(QUOTE);
        return;
      }
    }
    buf.copyWithin(start - 1, start, end);
    out.w = end - 1;
  };
}

/**
 * Where the values of list cell i start in its child; they end where cell i + 1's start (a fixed-size list's
 * too). A number, not a pair: no array made per cell.
 */
export function listStart(data: Data): (i: number) => number {
  if (data.typeId === Type.FixedSizeList) {
    const size = (data.type as Typed).listSize!;
    return (i) => i * size;
  }
  const offsets = data.valueOffsets as unknown as ArrayLike<number | bigint>;
  if (offsets instanceof Int32Array) return (i) => offsets[i]!;
  return (i) => Number(offsets[i]!);
}

/** LIST as a JSON array; MAP as a JSON object when its keys are strings, else an array of {"key", "value"}. */
function listCells(data: Data, type: ColumnType & { kind: 'list' | 'map' }): Cells {
  const startOf = listStart(data);
  const child = data.children[0]!;
  let json: (inCsv: boolean) => (out: Bytes, i: number) => void;
  if (type.kind === 'list') {
    const element = cellsOf(child, type.element);
    json = (inCsv) => {
      const value = inCsv ? element.jsonInCsv : element.json;
      return (out, i) => {
        const start = startOf(i);
        const end = startOf(i + 1);
        out.byte(91 /* [ */);
        for (let k = start; k < end; k++) {
          if (k > start) out.byte(44);
          if (element.isNull(k)) out.ascii('null');
          else value(out, k);
        }
        out.byte(93 /* ] */);
      };
    };
  } else {
    // The entries are a struct of a key and a value; a key is never null (Arrow's Map).
    const [keyData, valueData] = child.children as [Data, Data];
    const key = cellsOf(keyData, type.key);
    const value = cellsOf(valueData, type.value);
    const keyed = type.key.kind === 'varchar';
    json = (inCsv) => {
      const keyJson = inCsv ? key.jsonInCsv : key.json;
      const valueJson = inCsv ? value.jsonInCsv : value.json;
      const keyOpen = inCsv ? '{""key"":' : '{"key":';
      const valueOpen = inCsv ? ',""value"":' : ',"value":';
      return (out, i) => {
        const start = startOf(i);
        const end = startOf(i + 1);
        out.byte(keyed ? 123 : 91);
        for (let k = start; k < end; k++) {
          if (k > start) out.byte(44);
          if (keyed) {
            keyJson(out, k);
            out.byte(58 /* : */);
          } else {
            out.ascii(keyOpen);
            if (key.isNull(k)) out.ascii('null');
            else keyJson(out, k);
            out.ascii(valueOpen);
          }
          if (value.isNull(k)) out.ascii('null');
          else valueJson(out, k);
          if (!keyed) out.byte(125);
        }
        out.byte(keyed ? 125 : 93);
      };
    };
  }
  const jsonInCsv = json(true);
  return { isNull: nullTest(data), json: json(false), jsonInCsv, csv: nestedCsv(jsonInCsv) };
}

/** STRUCT as a JSON object, its fields in the schema's order. */
function structCells(data: Data, type: ColumnType & { kind: 'struct' }): Cells {
  const fields = type.fields.map((f, c) => {
    const key = `${c === 0 ? '' : ','}${JSON.stringify(f.name)}:`;
    return {
      key: Buffer.from(key),
      keyInCsv: Buffer.from(key.replaceAll('"', '""')),
      cells: cellsOf(data.children[c]!, f.type),
    };
  });
  const nulls = fields.map((f) => f.cells.isNull);
  const json = (inCsv: boolean) => {
    const keys = fields.map((f) => (inCsv ? f.keyInCsv : f.key));
    const values = fields.map((f) => (inCsv ? f.cells.jsonInCsv : f.cells.json));
    return (out: Bytes, i: number) => {
      out.byte(123);
      for (let f = 0; f < keys.length; f++) {
        const key = keys[f]!;
        out.raw(key, 0, key.length);
        if (nulls[f]!(i)) out.ascii('null');
        else values[f]!(out, i);
      }
      out.byte(125);
    };
  };
  const jsonInCsv = json(true);
  return { isNull: nullTest(data), json: json(false), jsonInCsv, csv: nestedCsv(jsonInCsv) };
}

/** An IEEE 754 half float's value from its 16 bits. */
export function halfToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) return frac ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}
