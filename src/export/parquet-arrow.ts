// Parquet from Arrow record batches (a Flight export): each batch's columns go into the Parquet column buffers
// straight from their Arrow buffers (export/parquet-columns.ts), with the Parquet types the REST export gives the
// same columns (export/parquet.ts): fixed-width values copied as bytes, Utf8 cells as bytes, no JS value per
// cell. Only the types the service writes as text (times, nested values, …) go through their text.
import type { Data, DataType, RecordBatch, Schema } from 'apache-arrow';
import { makeVector, Type } from 'apache-arrow';
import type { ResultField } from '../api/jobs.js';
import type { BatchFormatter } from './flight/batch-writers.js';
import { stringCell } from './flight/batch-writers.js';
import { type ParquetColumn, ParquetFormatter, putDecimal } from './parquet.js';

/** Milliseconds per unit of a Timestamp (Arrow's TimeUnit: 0 s, 1 ms, 2 µs, 3 ns). */
const MS_PER_UNIT = [1000, 1, 0.001, 0.000001];

/** The service's type name of an Arrow column, as the REST schema gives it: what picks its Parquet type. */
function serviceField(name: string, type: DataType): ResultField {
  const t = type as DataType & { bitWidth?: number; isSigned?: boolean; precision?: number; scale?: number };
  switch (type.typeId) {
    case Type.Int: {
      // An unsigned integer takes the next signed width (UInt64 has none: its text).
      const bits = (t.bitWidth ?? 0) * (t.isSigned === false ? 2 : 1);
      const service = { 8: 'TINYINT', 16: 'SMALLINT', 32: 'INTEGER', 64: 'BIGINT' }[bits] ?? 'VARCHAR';
      return { name, type: { name: service } };
    }
    case Type.Float:
      // Arrow's float precision: 0 half, 1 single, 2 double.
      return { name, type: { name: t.precision === 2 ? 'DOUBLE' : 'FLOAT' } };
    case Type.Bool:
      return { name, type: { name: 'BOOLEAN' } };
    case Type.Date:
      return { name, type: { name: 'DATE' } };
    case Type.Timestamp:
      return { name, type: { name: 'TIMESTAMP' } };
    case Type.Decimal:
      return { name, type: { name: 'DECIMAL', precision: t.precision, scale: t.scale } };
    default:
      return { name, type: { name: 'VARCHAR' } };
  }
}

/** Arrow's validity bitmap of a column, or undefined when no cell is null. */
function bitmapOf(data: Data): Uint8Array | undefined {
  return data.nullCount > 0 && data.nullBitmap && data.nullBitmap.length > 0 ? data.nullBitmap : undefined;
}

const isNull = (bitmap: Uint8Array | undefined, j: number): boolean =>
  bitmap !== undefined && (bitmap[j >> 3]! & (1 << (j & 7))) === 0;

/** Whether an Arrow column's value buffer already holds the Parquet column's PLAIN bytes. */
function sameBytes(col: ParquetColumn, data: Data): boolean {
  const type = data.type as DataType & { unit?: number };
  const values = data.values as unknown;
  switch (col.element.type) {
    case 'INT64':
      // BIGINT from Int64, TIMESTAMP (ms) from Timestamp(ms); not a decimal's 128-bit words.
      return (
        values instanceof BigInt64Array &&
        (type.typeId === Type.Int || (type.typeId === Type.Timestamp && type.unit === 1))
      );
    case 'INT32':
      // INTEGER from Int32, DATE from Date(DAY).
      return (
        values instanceof Int32Array &&
        (type.typeId === Type.Int || (type.typeId === Type.Date && type.unit === 0)) &&
        col.element.converted_type !== 'DECIMAL'
      );
    case 'DOUBLE':
      return values instanceof Float64Array;
    case 'FLOAT':
      return values instanceof Float32Array;
    default:
      return false;
  }
}

/**
 * Appends `rows` cells of one Arrow column to its Parquet column. As apache-arrow slices a column, its values
 * start at its first row and its validity bitmap (and a Bool column's bits) `data.offset` bits in.
 */
function append(col: ParquetColumn, data: Data, rows: number): void {
  const b = col.buffer;
  const off = data.offset;
  const bitmap = bitmapOf(data);
  const type = data.type as DataType & { unit?: number };
  if (type.typeId === Type.Null) {
    for (let r = 0; r < rows; r++) b.null();
    return;
  }
  if (sameBytes(col, data)) {
    b.fixed(data.values as ArrayBufferView, rows, bitmap, off);
    return;
  }
  if (type.typeId === Type.Bool) {
    b.booleans(data.values as Uint8Array, rows, bitmap, off);
    return;
  }
  if (type.typeId === Type.Utf8) {
    b.byteArrays(data.valueOffsets as Int32Array, data.values as Uint8Array, rows, bitmap, off);
    return;
  }
  let cell: (r: number) => void;
  switch (col.type) {
    case 'DATE':
    case 'TIMESTAMP': {
      // Date(MILLISECOND), or a Timestamp in another unit than milliseconds.
      const values = data.values as unknown as ArrayLike<number | bigint>;
      const perUnit = type.typeId === Type.Timestamp ? MS_PER_UNIT[type.unit ?? 1]! : 1;
      cell =
        col.type === 'DATE'
          ? (r) => b.int32(Math.floor(Number(values[r]!) / 86_400_000))
          : (r) => b.int64(BigInt(Math.floor(Number(values[r]!) * perUnit)));
      break;
    }
    case 'DECIMAL': {
      const words = data.values as unknown as Uint32Array;
      cell = (r) => {
        let n = 0n;
        for (let w = 3; w >= 0; w--) n = (n << 32n) | BigInt(words[r * 4 + w]!);
        putDecimal(b, col.element, BigInt.asIntN(128, n));
      };
      break;
    }
    case 'BIGINT':
    case 'INTEGER':
    case 'SMALLINT':
    case 'TINYINT':
    case 'DOUBLE':
    case 'FLOAT': {
      // Narrower or unsigned integers, half floats: their values as apache-arrow reads them, converted as a
      // REST cell of the same type is.
      const vector = makeVector(data);
      cell = (r) => col.put(vector.get(r));
      break;
    }
    default:
      // Written as text (LargeUtf8, binary, times, …): the cell's text as the REST export writes it.
      cell = (r) => b.text(stringCell(data, r));
  }
  for (let r = 0; r < rows; r++) {
    if (isNull(bitmap, r + off)) b.null();
    else cell(r);
  }
}

/** Parquet from a Flight export's record batches. */
export class ParquetBatchFormatter implements BatchFormatter {
  readonly head: Uint8Array;
  private readonly parquet: ParquetFormatter;

  constructor(schema: Schema, opts: { groupBytes?: number } = {}) {
    this.parquet = new ParquetFormatter(
      schema.fields.map((f) => serviceField(f.name, f.type)),
      opts,
    );
    this.head = this.parquet.head;
  }

  batch(batch: RecordBatch): string | Uint8Array {
    const columns = this.parquet.columns();
    const rows = batch.numRows;
    batch.data.children.forEach((data, c) => {
      append(columns[c]!, data, rows);
    });
    return this.parquet.filled();
  }

  tail(): Uint8Array {
    return this.parquet.tail();
  }
}
