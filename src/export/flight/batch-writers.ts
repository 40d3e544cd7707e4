// Export formats written from Arrow record batches (docs/cli-contract.md "Export over Arrow Flight"): CSV,
// NDJSON and JSON byte for byte as the REST export writes the same rows (export/writers.ts: same header,
// quoting, number, date and timestamp texts), read from the batches' column buffers straight into bytes, with
// no row objects and no strings for text cells that need no escaping. Parquet from the columns, with the
// Parquet types of the REST export (export/parquet.ts), no row objects either.
import type { Data, RecordBatch, Schema } from 'apache-arrow';
import { type DataType, Type } from 'apache-arrow';
import { type ByteOut, csvField, putCsvField } from '../../util/csv-field.js';
import { type ColumnKind, columnKinds, halfToNumber } from '../column-types.js';

export interface BatchFormatter {
  readonly head: string | Uint8Array;
  /** One batch's rows (possibly empty while Parquet fills a row group). */
  batch(batch: RecordBatch): string | Uint8Array;
  tail(): string | Uint8Array;
}

// ── Bytes ─────────────────────────────────────────────────────────────────────────────────────────────

const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const BACKSLASH = 92;

/**
 * A growing byte buffer. What `take` hands out is the sink's from then on (docs/architecture.md "Delivery"):
 * the next batch is written into a new buffer, never over bytes a sink may still be writing.
 */
class Bytes implements ByteOut {
  buf = Buffer.allocUnsafe(1 << 16);
  w = 0;

  reserve(n: number): void {
    if (this.w + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.w + n));
    this.buf.copy(grown, 0, 0, this.w);
    this.buf = grown;
  }

  byte(b: number): void {
    this.reserve(1);
    this.buf[this.w++] = b;
  }

  /** A short ASCII text (a number's): copied code unit by code unit, cheaper than Buffer.write's set-up. */
  ascii(s: string): void {
    const n = s.length;
    this.reserve(n);
    const out = this.buf;
    let w = this.w;
    for (let k = 0; k < n; k++) out[w++] = s.charCodeAt(k);
    this.w = w;
  }

  text(s: string): void {
    this.reserve(s.length * 3);
    this.w += this.buf.write(s, this.w, 'utf8');
  }

  raw(src: Uint8Array, from: number, to: number): void {
    const n = to - from;
    this.reserve(n);
    const out = this.buf;
    if (n > 32) {
      out.set(src.subarray(from, to), this.w);
      this.w += n;
      return;
    }
    let w = this.w;
    for (let i = from; i < to; i++) out[w++] = src[i]!;
    this.w = w;
  }

  /** The bytes written since the last take, handed over: writing goes on in a new buffer of the same size. */
  take(): Uint8Array {
    const out = this.buf.subarray(0, this.w);
    this.buf = Buffer.allocUnsafe(this.buf.length);
    this.w = 0;
    return out;
  }
}

// ── Cells ──────────────────────────────────────────────────────────────────────────────────────────────

/** Writes cell `i` of a column (not null) in one format. */
type CellWriter = (out: Bytes, i: number) => void;

interface Column {
  data: Data;
  /** Row i is null. */
  isNull(i: number): boolean;
  csv: CellWriter;
  json: CellWriter;
}

function nullTest(data: Data): (i: number) => boolean {
  const bitmap = data.nullBitmap;
  if (!data.nullCount || !bitmap || bitmap.length === 0) return () => false;
  const off = data.offset;
  return (i) => {
    const j = i + off;
    return (bitmap[j >> 3]! & (1 << (j & 7))) === 0;
  };
}

/** Whether any byte is one JSON.stringify escapes (a control character, a quote, a backslash). */
function needsEscape(bytes: Uint8Array): boolean {
  for (let k = 0; k < bytes.length; k++) {
    const c = bytes[k]!;
    if (c < 32 || c === QUOTE || c === BACKSLASH) return true;
  }
  return false;
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

/** `YYYY-MM-DD` of a day count, as the REST encoding writes a DATE. */
function dateText(ms: number): string {
  const d = new Date(ms);
  const iso = Number.isFinite(d.getTime()) ? d.toISOString() : '';
  return iso.length === 24 ? iso.slice(0, 10) : String(ms);
}

/** `YYYY-MM-DD HH:MM:SS.fff` in UTC, as the REST encoding writes a TIMESTAMP. */
function timestampText(ms: number): string {
  const d = new Date(ms);
  const iso = Number.isFinite(d.getTime()) ? d.toISOString() : '';
  return iso.length === 24 ? `${iso.slice(0, 10)} ${iso.slice(11, 23)}` : String(ms);
}

/** `HH:MM:SS.fff`. */
function timeText(ms: number): string {
  const t = Math.floor(ms);
  return `${pad2(Math.floor(t / 3_600_000))}:${pad2(Math.floor(t / 60_000) % 60)}:${pad2(Math.floor(t / 1000) % 60)}.${String(t % 1000).padStart(3, '0')}`;
}

/** A decimal's exact text from its 128-bit two's complement value (little-endian 32-bit words) and scale. */
function decimalText(words: Uint32Array, at: number, scale: number): string {
  let n = 0n;
  for (let w = 3; w >= 0; w--) n = (n << 32n) | BigInt(words[at + w]!);
  n = BigInt.asIntN(128, n);
  const neg = n < 0n;
  let digits = (neg ? -n : n).toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, '0');
    digits = `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  }
  return neg ? `-${digits}` : digits;
}

/** Milliseconds per unit of a Timestamp or Time column (Arrow's TimeUnit: 0 s, 1 ms, 2 µs, 3 ns). */
const MS_PER_UNIT = [1000, 1, 0.001, 0.000001];

/** The text of a cell as REST writes it, for the types written as text (dates, times, decimals, others). */
function textOf(data: Data): ((i: number) => string) | undefined {
  const type = data.type as DataType & { unit?: number; scale?: number };
  const off = data.offset;
  const values = data.values as unknown as ArrayLike<number | bigint>;
  switch (type.typeId) {
    case Type.Date: {
      // DateDay: days; DateMillisecond: milliseconds.
      const perUnit = type.unit === 0 ? 86_400_000 : 1;
      return (i) => dateText(Number(values[i + off]!) * perUnit);
    }
    case Type.Timestamp: {
      const ms = MS_PER_UNIT[type.unit ?? 1]!;
      return (i) => timestampText(Math.floor(Number(values[i + off]!) * ms));
    }
    case Type.Time: {
      const ms = MS_PER_UNIT[type.unit ?? 1]!;
      return (i) => timeText(Number(values[i + off]!) * ms);
    }
    case Type.Decimal: {
      const words = data.values as unknown as Uint32Array;
      const scale = type.scale ?? 0;
      return (i) => decimalText(words, (i + off) * 4, scale);
    }
    default:
      return undefined;
  }
}

function column(data: Data, kind: ColumnKind): Column {
  const isNull = nullTest(data);
  const off = data.offset;
  switch (kind) {
    case 'text': {
      const offsets = data.valueOffsets as ArrayLike<number | bigint>;
      const at = (k: number): number => Number(offsets[k]!);
      const bytes = data.values as Uint8Array;
      const escapes = needsEscape(bytes);
      return {
        data,
        isNull,
        csv: (out, i) => putCsvField(out, bytes, at(i + off), at(i + off + 1)),
        json: (out, i) => {
          const a = at(i + off);
          const b = at(i + off + 1);
          for (let k = escapes ? a : b; k < b; k++) {
            const c = bytes[k]!;
            if (c < 32 || c === QUOTE || c === BACKSLASH) {
              // What JSON.stringify escapes: written by it, as the REST export does.
              return out.text(
                JSON.stringify(Buffer.from(bytes.buffer, bytes.byteOffset + a, b - a).toString('utf8')),
              );
            }
          }
          out.byte(QUOTE);
          out.raw(bytes, a, b);
          out.byte(QUOTE);
        },
      };
    }
    case 'binary': {
      // As the REST answer holds a VARBINARY cell: its bytes in base64 (never a character CSV quotes).
      const offsets = data.valueOffsets as ArrayLike<number | bigint>;
      const bytes = data.values as Uint8Array;
      const b64 = (i: number): string => {
        const a = Number(offsets[i + off]!);
        return Buffer.from(bytes.buffer, bytes.byteOffset + a, Number(offsets[i + off + 1]!) - a).toString(
          'base64',
        );
      };
      return {
        data,
        isNull,
        csv: (out, i) => out.ascii(b64(i)),
        json: (out, i) => out.ascii(`"${b64(i)}"`),
      };
    }
    case 'half':
    case 'number': {
      const values = data.values as unknown as ArrayLike<number | bigint>;
      const value =
        kind === 'half'
          ? (i: number) => halfToNumber(values[i + off] as number)
          : (i: number) => values[i + off]!;
      // A double that JSON cannot hold (NaN, ±Infinity) is null in the REST answer: an empty field, null.
      const write: CellWriter = (out, i) => {
        const v = value(i);
        if (typeof v === 'number' && !Number.isFinite(v)) return;
        out.ascii(String(v));
      };
      const json: CellWriter = (out, i) => {
        const v = value(i);
        if (typeof v === 'number' && !Number.isFinite(v)) return out.ascii('null');
        out.ascii(String(v));
      };
      return { data, isNull, csv: write, json };
    }
    case 'bool': {
      const bits = data.values as Uint8Array;
      const at = (i: number) => (bits[(i + off) >> 3]! & (1 << ((i + off) & 7))) !== 0;
      const write: CellWriter = (out, i) => out.ascii(at(i) ? 'true' : 'false');
      return { data, isNull, csv: write, json: write };
    }
    case 'null':
      return { data, isNull: () => true, csv: () => {}, json: (out) => out.ascii('null') };
    default: {
      const text = textOf(data)!;
      return {
        data,
        isNull,
        csv: (out, i) => out.ascii(text(i)),
        // A decimal is a JSON number; a date or time a string.
        json: kind === 'decimal' ? (out, i) => out.ascii(text(i)) : (out, i) => out.ascii(`"${text(i)}"`),
      };
    }
  }
}

// ── Text formats ───────────────────────────────────────────────────────────────────────────────────────

export class TextBatchFormatter implements BatchFormatter {
  readonly head: string;
  private readonly names: string[];
  private readonly keys: Buffer[];
  private readonly kinds: ColumnKind[];
  private readonly out = new Bytes();
  private first = true;

  constructor(
    private readonly format: 'csv' | 'json' | 'ndjson',
    schema: Schema,
  ) {
    this.names = schema.fields.map((f) => f.name);
    this.kinds = columnKinds(schema);
    this.keys = this.names.map((n, c) => Buffer.from(`${c === 0 ? '{' : ','}${JSON.stringify(n)}:`));
    this.head =
      format === 'csv'
        ? this.names.length
          ? `${this.names.map(csvField).join(',')}\n`
          : ''
        : format === 'json'
          ? '['
          : '';
  }

  batch(batch: RecordBatch): Uint8Array {
    const rows = batch.numRows;
    if (rows === 0) return new Uint8Array(0);
    const columns = batch.data.children.map((data, c) => column(data, this.kinds[c]!));
    const out = this.out;
    const width = columns.length;
    if (this.format === 'csv') {
      if (width === 0) return new Uint8Array(0);
      for (let r = 0; r < rows; r++) {
        for (let c = 0; c < width; c++) {
          if (c > 0) out.byte(COMMA);
          const col = columns[c]!;
          if (!col.isNull(r)) col.csv(out, r);
        }
        out.byte(LF);
      }
      return out.take();
    }
    const array = this.format === 'json';
    for (let r = 0; r < rows; r++) {
      if (array) {
        if (this.first) out.byte(LF);
        else out.ascii(',\n');
        this.first = false;
      }
      if (width === 0) out.ascii('{');
      for (let c = 0; c < width; c++) {
        const key = this.keys[c]!;
        out.raw(key, 0, key.length);
        const col = columns[c]!;
        if (col.isNull(r)) out.ascii('null');
        else col.json(out, r);
      }
      out.byte(125 /* } */);
      if (!array) out.byte(LF);
    }
    return out.take();
  }

  tail(): string {
    if (this.format !== 'json') return '';
    return this.first ? ']\n' : '\n]\n';
  }
}

// ── Parquet (export/parquet-arrow.ts) ─────────────────────────────────────────────────────────────────

/** A text cell as a string (another kind's cell, binary or time, as its CSV text). */
export function stringCell(data: Data, kind: ColumnKind, r: number): string {
  if (kind === 'text') {
    const offsets = data.valueOffsets as ArrayLike<number | bigint>;
    const bytes = data.values as Uint8Array;
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(
      'utf8',
      Number(offsets[r + data.offset]!),
      Number(offsets[r + data.offset + 1]!),
    );
  }
  const out = new Bytes();
  column(data, kind).csv(out, r);
  return Buffer.from(out.take()).toString('utf8');
}
