// DuckDB results as Arrow record batches, column by column, in the Arrow types the service sends
// (docs/api-facts.md §16) or another encoding (./encoding.ts). DuckDB's own Arrow export needs an extension the
// emulator cannot download, so the mapping is done here. The service's flat columns (booleans, integers, floats,
// VARCHAR as Utf8, TIMESTAMP as Timestamp(ms), DECIMAL as Decimal128) are filled from the vectors' own typed arrays
// where DuckDB exposes them, never through row objects; every other column (dates, times, binary, intervals, the
// nested types, the other encodings) is built from its values by ./arrow-values.ts.

import { createRequire } from 'node:module';
import type { DuckDBDataChunk, DuckDBType, DuckDBValue, DuckDBVector } from '@duckdb/node-api';
import { DuckDBTypeId } from '@duckdb/node-api';
import {
  Bool,
  type Data,
  type DataType,
  Decimal,
  Field,
  Float32,
  Float64,
  Int8,
  Int16,
  Int32,
  Int64,
  Message,
  makeData,
  RecordBatch,
  RecordBatchStreamWriter,
  Schema,
  Struct,
  Table,
  TimestampMillisecond,
  Utf8,
} from 'apache-arrow';
import { type ValuePlan, valuePlan } from './arrow-values.js';
import { type FlightEncoding, SERVICE_ENCODING } from './encoding.js';

/** How one column becomes Arrow: straight from DuckDB's vector (a flat column), or from its values. */
type ColumnPlan =
  | { field: Field; fromVector: (vector: DuckDBVector, rows: number) => Data }
  | { field: Field; fromValues: ValuePlan };

/** How each column of a result becomes an Arrow column. `names` are the result's (unique) column names. */
export function planColumns(
  names: readonly string[],
  types: readonly DuckDBType[],
  encoding: FlightEncoding = SERVICE_ENCODING,
): ColumnPlan[] {
  return types.map((t, i) => planColumn(names[i]!, t, encoding));
}

export function schemaOf(plans: readonly ColumnPlan[]): Schema {
  return new Schema(plans.map((p) => p.field));
}

/** One DuckDB data chunk, copied out of DuckDB's memory (which it reuses): each column as Arrow data or values. */
export interface ChunkPart {
  rows: number;
  columns: Array<Data | DuckDBValue[]>;
}

export function chunkPart(plans: readonly ColumnPlan[], chunk: DuckDBDataChunk): ChunkPart {
  const rows = chunk.rowCount;
  const columns = plans.map((p, c) => {
    const vector = chunk.getColumnVector(c);
    if ('fromVector' in p) return p.fromVector(vector, rows);
    return Array.from({ length: rows }, (_, i) => vector.getItem(i));
  });
  return { rows, columns };
}

// ── Vectors ─────────────────────────────────────────────────────────────────────────────────────────

/** What the vector classes of @duckdb/node-api hold (not in their public types): the chunk's typed array. */
interface RawVector {
  items?: ArrayLike<number | bigint> & { slice(a?: number, b?: number): unknown };
  validity?: { itemValid(i: number): boolean };
}

/** The validity bitmap (LSB first, as Arrow's) and the null count. */
function validityOf(vector: DuckDBVector, rows: number): { bitmap: Uint8Array; nulls: number } {
  const bitmap = new Uint8Array((rows + 7) >> 3);
  const validity = (vector as unknown as RawVector).validity;
  let nulls = 0;
  for (let i = 0; i < rows; i++) {
    const valid = validity ? validity.itemValid(i) : vector.getItem(i) !== null;
    if (valid) bitmap[i >> 3]! |= 1 << (i & 7);
    else nulls++;
  }
  return { bitmap, nulls };
}

/** A fixed-width column copied from the vector's typed array (the chunk's memory is DuckDB's to reuse). */
function fixed(type: DataType, make: (rows: number) => { [i: number]: number | bigint }) {
  return (vector: DuckDBVector, rows: number): Data => {
    const { bitmap, nulls } = validityOf(vector, rows);
    const items = (vector as unknown as RawVector).items;
    let values: unknown;
    if (items && items.length >= rows) values = items.slice(0, rows);
    else {
      const out = make(rows);
      for (let i = 0; i < rows; i++) {
        const v = vector.getItem(i);
        if (v !== null) out[i] = v as number | bigint;
      }
      values = out;
    }
    return makeData({
      type: type as Int32,
      length: rows,
      nullCount: nulls,
      nullBitmap: nulls ? bitmap : null,
      data: values as Int32Array,
    });
  };
}

function bools(vector: DuckDBVector, rows: number): Data {
  const { bitmap, nulls } = validityOf(vector, rows);
  const bits = new Uint8Array((rows + 7) >> 3);
  for (let i = 0; i < rows; i++) if (vector.getItem(i) === true) bits[i >> 3]! |= 1 << (i & 7);
  return makeData({
    type: new Bool(),
    length: rows,
    nullCount: nulls,
    nullBitmap: nulls ? bitmap : null,
    data: bits,
  });
}

/** Utf8 from each cell's text (`text` turns a non-null DuckDB value into it). */
function strings(text: (v: unknown) => string) {
  return (vector: DuckDBVector, rows: number): Data => {
    const offsets = new Int32Array(rows + 1);
    const bitmap = new Uint8Array((rows + 7) >> 3);
    const cells: string[] = new Array(rows);
    let nulls = 0;
    let bytes = 0;
    for (let i = 0; i < rows; i++) {
      const v = vector.getItem(i);
      if (v === null) {
        nulls++;
        cells[i] = '';
      } else {
        bitmap[i >> 3]! |= 1 << (i & 7);
        const s = text(v);
        cells[i] = s;
        bytes += Buffer.byteLength(s);
      }
      offsets[i + 1] = bytes;
    }
    const data = Buffer.allocUnsafe(bytes);
    for (let i = 0; i < rows; i++) if (cells[i]) data.write(cells[i]!, offsets[i]!);
    return makeData({
      type: new Utf8(),
      length: rows,
      nullCount: nulls,
      nullBitmap: nulls ? bitmap : null,
      valueOffsets: offsets,
      data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    });
  };
}

type Bindings = Pick<typeof import('@duckdb/node-bindings'), 'get_data_from_pointer'>;
let bindings: Bindings | undefined;
/** The native bindings @duckdb/node-api itself loaded (the same copy: one native module in the process). */
function nodeBindings(): Bindings {
  bindings ??= createRequire(createRequire(import.meta.url).resolve('@duckdb/node-api'))(
    '@duckdb/node-bindings',
  ) as Bindings;
  return bindings;
}

/**
 * VARCHAR straight from DuckDB's string vector into Utf8's buffers, bytes copied without decoding them. Each
 * cell is 16 bytes: its length, then the string itself when it is 12 bytes or fewer, else a pointer to it.
 * Reading a pointed-to string costs a native call; DuckDB mostly lays a chunk's strings end to end, so a run
 * of strings each starting where the last ended is read with one call.
 */
function varchars(vector: DuckDBVector, rows: number): Data {
  const { get_data_from_pointer } = nodeBindings();
  const dv = (vector as unknown as { dataView?: DataView }).dataView;
  if (!dv || dv.byteLength < rows * 16) return strings(String)(vector, rows);
  const { bitmap, nulls } = validityOf(vector, rows);
  const offsets = new Int32Array(rows + 1);
  for (let i = 0; i < rows; i++) {
    const valid = (bitmap[i >> 3]! & (1 << (i & 7))) !== 0;
    offsets[i + 1] = offsets[i]! + (valid ? dv.getUint32(i * 16, true) : 0);
  }
  const data = new Uint8Array(offsets[rows]!);
  const base = dv.byteOffset;
  for (let i = 0; i < rows; ) {
    const len = offsets[i + 1]! - offsets[i]!;
    if (len <= 12) {
      if (len > 0) data.set(new Uint8Array(dv.buffer, base + i * 16 + 4, len), offsets[i]!);
      i++;
      continue;
    }
    // A run of pointed-to strings, each starting where the one before ended.
    let end = i + 1;
    let next = dv.getBigUint64(i * 16 + 8, true) + BigInt(len);
    while (end < rows) {
      const l = offsets[end + 1]! - offsets[end]!;
      if (l <= 12 || dv.getBigUint64(end * 16 + 8, true) !== next) break;
      next += BigInt(l);
      end++;
    }
    const bytes = get_data_from_pointer(
      dv.buffer as ArrayBuffer,
      base + i * 16 + 8,
      offsets[end]! - offsets[i]!,
    );
    data.set(bytes, offsets[i]!);
    i = end;
  }
  return makeData({
    type: new Utf8(),
    length: rows,
    nullCount: nulls,
    nullBitmap: nulls ? bitmap : null,
    valueOffsets: offsets,
    data,
  });
}

/** Timestamps in milliseconds, from DuckDB's `unit`s per millisecond (1000 for its microseconds). */
function timestamps(perMs: bigint, msPer = 1n) {
  return (vector: DuckDBVector, rows: number): Data => {
    const { bitmap, nulls } = validityOf(vector, rows);
    const items = (vector as unknown as RawVector).items as BigInt64Array | undefined;
    const out = new BigInt64Array(rows);
    for (let i = 0; i < rows; i++) {
      const raw = items ? items[i]! : rawTime(vector.getItem(i));
      // Floor, as the REST encoding does (a time before 1970 rounds down, not towards zero).
      const q = (raw * msPer) / perMs;
      out[i] = raw < 0n && q * perMs !== raw * msPer ? q - 1n : q;
    }
    return makeData({
      type: new TimestampMillisecond(),
      length: rows,
      nullCount: nulls,
      nullBitmap: nulls ? bitmap : null,
      data: out,
    });
  };
}

function rawTime(v: unknown): bigint {
  if (v === null || typeof v !== 'object') return 0n;
  const o = v as { micros?: bigint; millis?: bigint; seconds?: bigint; nanos?: bigint };
  return o.micros ?? o.millis ?? o.seconds ?? o.nanos ?? 0n;
}

function decimals(precision: number, scale: number) {
  return (vector: DuckDBVector, rows: number): Data => {
    const { bitmap, nulls } = validityOf(vector, rows);
    const words = new Uint32Array(rows * 4);
    const mask = (1n << 32n) - 1n;
    for (let i = 0; i < rows; i++) {
      const v = vector.getItem(i) as { value: bigint } | null;
      if (v === null) continue;
      // Two's complement over 128 bits, little-endian 32-bit words.
      let n = BigInt.asUintN(128, v.value);
      for (let w = 0; w < 4; w++) {
        words[i * 4 + w] = Number(n & mask);
        n >>= 32n;
      }
    }
    return makeData({
      type: new Decimal(scale, precision, 128),
      length: rows,
      nullCount: nulls,
      nullBitmap: nulls ? bitmap : null,
      data: words,
    });
  };
}

function planColumn(name: string, t: DuckDBType, enc: FlightEncoding): ColumnPlan {
  const field = (type: DataType) => new Field(name, type, true);
  const col = (type: DataType, fromVector: (vector: DuckDBVector, rows: number) => Data): ColumnPlan => ({
    field: field(type),
    fromVector,
  });
  /** A column of fixed-width values: the Arrow type and the typed array its values go into. */
  const fixedCol = (type: DataType, make: (rows: number) => { [i: number]: number | bigint }) =>
    col(type, fixed(type, make));
  const serviceTimestamps = enc.timestamp === 'ms' && enc.zone === null;
  switch (t.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return col(new Bool(), bools);
    case DuckDBTypeId.TINYINT:
      return fixedCol(new Int8(), (n) => new Int8Array(n));
    case DuckDBTypeId.SMALLINT:
      return fixedCol(new Int16(), (n) => new Int16Array(n));
    case DuckDBTypeId.INTEGER:
      return fixedCol(new Int32(), (n) => new Int32Array(n));
    case DuckDBTypeId.BIGINT:
      return fixedCol(new Int64(), (n) => new BigInt64Array(n));
    case DuckDBTypeId.FLOAT:
      return fixedCol(new Float32(), (n) => new Float32Array(n));
    case DuckDBTypeId.DOUBLE:
      return fixedCol(new Float64(), (n) => new Float64Array(n));
    case DuckDBTypeId.VARCHAR:
      if (enc.strings === 'utf8') return col(new Utf8(), varchars);
      break;
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_TZ:
      if (serviceTimestamps) return col(new TimestampMillisecond(), timestamps(1000n));
      break;
    case DuckDBTypeId.TIMESTAMP_MS:
      if (serviceTimestamps) return col(new TimestampMillisecond(), timestamps(1n));
      break;
    case DuckDBTypeId.TIMESTAMP_S:
      if (serviceTimestamps) return col(new TimestampMillisecond(), timestamps(1n, 1000n));
      break;
    case DuckDBTypeId.TIMESTAMP_NS:
      if (serviceTimestamps) return col(new TimestampMillisecond(), timestamps(1_000_000n));
      break;
    case DuckDBTypeId.DECIMAL:
      if (enc.decimal === 128) return col(new Decimal(t.scale, t.width, 128), decimals(t.width, t.scale));
      break;
  }
  const fromValues = valuePlan(t, name, enc);
  return { field: field(fromValues.type), fromValues };
}

// ── Flight framing ─────────────────────────────────────────────────────────────────────────────────

/** One FlightData message: an IPC message's flatbuffer header and its body. */
export interface FlightPayload {
  data_header: Uint8Array;
  data_body: Uint8Array;
}

const CONTINUATION = 0xffffffff;

/**
 * The IPC messages of a stream as FlightData payloads. apache-arrow writes the IPC stream (and decodes each
 * message's flatbuffer: `Message.decode`); Flight carries each message's header and body apart, without the
 * stream's framing (continuation marker and length), which is all that is read here.
 */
export function payloadsOf(stream: Uint8Array): FlightPayload[] {
  const view = new DataView(stream.buffer, stream.byteOffset, stream.byteLength);
  const out: FlightPayload[] = [];
  let pos = 0;
  while (pos + 8 <= stream.byteLength) {
    let len = view.getInt32(pos, true);
    pos += 4;
    if (len === -1 || view.getUint32(pos - 4, true) === CONTINUATION) {
      len = view.getInt32(pos, true);
      pos += 4;
    }
    if (len === 0) break; // end of stream
    const header = stream.subarray(pos, pos + len);
    pos += len;
    const bodyLength = Number(Message.decode(header).bodyLength);
    out.push({ data_header: header, data_body: stream.subarray(pos, pos + bodyLength) });
    pos += bodyLength;
  }
  return out;
}

/** The schema message (FlightInfo.schema: with the IPC framing) and the FlightData of a schema. */
export function schemaBytes(schema: Schema): Uint8Array {
  const stream = RecordBatchStreamWriter.writeAll(new Table(schema)).toUint8Array(true);
  const view = new DataView(stream.buffer, stream.byteOffset, stream.byteLength);
  const len = view.getInt32(4, true);
  return stream.slice(0, 8 + len);
}

/** The FlightData messages of one batch (its schema message left out: the stream's first message has it). */
export function batchPayloads(batch: RecordBatch): { schema: FlightPayload; batch: FlightPayload[] } {
  const [schema, ...rest] = payloadsOf(RecordBatchStreamWriter.writeAll([batch]).toUint8Array(true));
  return { schema: schema!, batch: rest };
}

// ── Batches of the service's size ──────────────────────────────────────────────────────────────────

/** Rows of a Flight batch as the service sends them (Dremio: 4,095) and the bounds of `--flight-batch-rows`. */
export const SERVICE_BATCH_ROWS = 4095;
export const MAX_BATCH_ROWS = 65_536;

/**
 * Regroups DuckDB's chunks (2,048 rows) into batches of `rows` rows, the last one shorter: the service's batches
 * are not DuckDB's. A flat column is cut and joined as Arrow data; a column built from values is built once per
 * batch from the values of its rows.
 */
export class Rebatcher {
  private pending: ChunkPart[] = [];
  /** Rows of `pending[0]` already taken. */
  private taken = 0;
  private pendingRows = 0;

  constructor(
    private readonly schema: Schema,
    private readonly plans: readonly ColumnPlan[],
    private readonly rows: number,
  ) {}

  /** Takes a chunk; answers the batches now complete. */
  push(part: ChunkPart): RecordBatch[] {
    this.pending.push(part);
    this.pendingRows += part.rows;
    const out: RecordBatch[] = [];
    while (this.pendingRows >= this.rows) out.push(this.take(this.rows));
    return out;
  }

  /** The rows left, as one last batch (none when there are none). */
  flush(): RecordBatch[] {
    return this.pendingRows > 0 ? [this.take(this.pendingRows)] : [];
  }

  private take(n: number): RecordBatch {
    // The pieces of the batch: [part, first row, rows].
    const pieces: Array<[ChunkPart, number, number]> = [];
    let need = n;
    while (need > 0) {
      const part = this.pending[0]!;
      const count = Math.min(need, part.rows - this.taken);
      pieces.push([part, this.taken, count]);
      need -= count;
      this.taken += count;
      if (this.taken === part.rows) {
        this.pending.shift();
        this.taken = 0;
      }
    }
    this.pendingRows -= n;
    const children = this.plans.map((plan, c) => {
      if ('fromValues' in plan) {
        const values = pieces.flatMap(([p, from, count]) =>
          (p.columns[c] as DuckDBValue[]).slice(from, from + count),
        );
        return plan.fromValues.build(values);
      }
      const parts = pieces.map(([p, from, count]) => {
        const data = p.columns[c] as Data;
        return from === 0 && count === data.length ? data : data.slice(from, count);
      });
      return parts.length === 1 && parts[0]!.offset === 0 ? parts[0]! : concatColumn(parts);
    });
    const data = makeData({ type: new Struct(this.schema.fields), length: n, nullCount: 0, children });
    return new RecordBatch(this.schema, data);
  }
}

/**
 * One column of several parts as one, for the flat types built above. A slice (apache-arrow's `Data.slice`)
 * keeps its validity and Bool bits whole, read at `offset`, but cuts its offsets and fixed-width values to
 * start at its first row.
 */
function concatColumn(parts: Data[]): Data {
  const type = parts[0]!.type;
  const length = parts.reduce((n, p) => n + p.length, 0);
  const bitmap = new Uint8Array((length + 7) >> 3);
  let nulls = 0;
  let row = 0;
  for (const p of parts) {
    for (let i = 0; i < p.length; i++, row++) {
      if (p.getValid(i)) bitmap[row >> 3]! |= 1 << (row & 7);
      else nulls++;
    }
  }
  const nullBitmap = nulls ? bitmap : null;
  if (type instanceof Bool) {
    const bits = new Uint8Array((length + 7) >> 3);
    let r = 0;
    for (const p of parts) {
      for (let i = 0; i < p.length; i++, r++) {
        const at = p.offset + i;
        if ((p.values[at >> 3]! >> (at & 7)) & 1) bits[r >> 3]! |= 1 << (r & 7);
      }
    }
    return makeData({ type, length, nullCount: nulls, nullBitmap, data: bits });
  }
  if (type instanceof Utf8) {
    const offsets = new Int32Array(length + 1);
    const bytes = parts.reduce((n, p) => n + (p.valueOffsets[p.length]! - p.valueOffsets[0]!), 0);
    const data = new Uint8Array(bytes);
    let r = 0;
    let w = 0;
    for (const p of parts) {
      const base = p.valueOffsets[0]!;
      const end = p.valueOffsets[p.length]!;
      data.set((p.values as Uint8Array).subarray(base, end), w);
      for (let i = 0; i < p.length; i++) offsets[++r] = w + p.valueOffsets[i + 1]! - base;
      w += end - base;
    }
    return makeData({ type, length, nullCount: nulls, nullBitmap, valueOffsets: offsets, data });
  }
  // Fixed width: `stride` values per row.
  const stride = parts[0]!.stride;
  const Ctor = (parts[0]!.values as { constructor: new (n: number) => Int32Array }).constructor;
  const values = new Ctor(length * stride);
  let w = 0;
  for (const p of parts) {
    values.set((p.values as Int32Array).subarray(0, p.length * stride), w);
    w += p.length * stride;
  }
  return makeData({ type: type as Int32, length, nullCount: nulls, nullBitmap, data: values });
}
