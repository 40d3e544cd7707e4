// Parquet from Arrow record batches (a Flight export): each batch's columns go into the Parquet column buffers
// straight from their Arrow buffers (export/parquet-columns.ts), with the Parquet types the REST export gives the
// same columns (export/parquet.ts, through the one type map, column-types.ts): fixed-width values copied as
// bytes, Utf8 cells as bytes, no JS value per cell. Only the rarer types go cell by cell.
import type { Data, DataType, RecordBatch, Schema } from 'apache-arrow';
import { Type } from 'apache-arrow';
import { type ColumnKind, columnKinds, halfToNumber, serviceFields } from './column-types.js';
import type { BatchFormatter } from './flight/batch-writers.js';
import { stringCell } from './flight/batch-writers.js';
import { type ParquetColumn, ParquetFormatter, putDecimal } from './parquet.js';

/** Milliseconds per unit of a Timestamp (Arrow's TimeUnit: 0 s, 1 ms, 2 µs, 3 ns). */
const MS_PER_UNIT = [1000, 1, 0.001, 0.000001];

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
function append(col: ParquetColumn, kind: ColumnKind, data: Data, rows: number): void {
  const b = col.buffer;
  const off = data.offset;
  const bitmap = bitmapOf(data);
  const type = data.type as DataType & { unit?: number };
  if (kind === 'null') {
    for (let r = 0; r < rows; r++) b.null();
    return;
  }
  if (sameBytes(col, data)) {
    b.fixed(data.values as ArrayBufferView, rows, bitmap, off);
    return;
  }
  if (kind === 'bool') {
    b.booleans(data.values as Uint8Array, rows, bitmap, off);
    return;
  }
  if (kind === 'text' && data.valueOffsets instanceof Int32Array) {
    b.byteArrays(data.valueOffsets, data.values as Uint8Array, rows, bitmap, off);
    return;
  }
  const values = data.values as unknown as ArrayLike<number | bigint>;
  let cell: (r: number) => void;
  switch (kind) {
    case 'date':
      // Date(MILLISECOND).
      cell = (r) => b.int32(Math.floor(Number(values[r]!) / 86_400_000));
      break;
    case 'timestamp': {
      // A Timestamp in another unit than milliseconds.
      const perUnit = MS_PER_UNIT[type.unit ?? 1]!;
      cell = (r) => b.int64(BigInt(Math.floor(Number(values[r]!) * perUnit)));
      break;
    }
    case 'decimal': {
      const words = data.values as unknown as Uint32Array;
      cell = (r) => {
        let n = 0n;
        for (let w = 3; w >= 0; w--) n = (n << 32n) | BigInt(words[r * 4 + w]!);
        putDecimal(b, col.element, BigInt.asIntN(128, n));
      };
      break;
    }
    case 'number':
      // Narrower or unsigned integers: converted as a REST cell of the same type is.
      cell = (r) => col.put(values[r]);
      break;
    case 'half':
      cell = (r) => col.put(halfToNumber(values[r] as number));
      break;
    default:
      // Written as text (LargeUtf8, binary, times): the cell's text as the REST export writes it.
      cell = (r) => b.text(stringCell(data, kind, r));
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
  private readonly kinds: ColumnKind[];

  constructor(schema: Schema, opts: { groupBytes?: number } = {}) {
    // The Parquet type of each column is that of the REST export of the same column (column-types.ts).
    this.kinds = columnKinds(schema);
    this.parquet = new ParquetFormatter(serviceFields(schema), opts);
    this.head = this.parquet.head;
  }

  batch(batch: RecordBatch): string | Uint8Array {
    const columns = this.parquet.columns();
    const rows = batch.numRows;
    batch.data.children.forEach((data, c) => {
      append(columns[c]!, this.kinds[c]!, data, rows);
    });
    return this.parquet.filled();
  }

  tail(): Uint8Array {
    return this.parquet.tail();
  }
}
