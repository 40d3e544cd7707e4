// Parquet from Arrow record batches (a Flight export): each batch's columns go into the Parquet columns of
// their column type (parquet-schema.ts, the same as a REST export of the same columns), flat columns straight
// from their Arrow buffers where those already hold the Parquet bytes (Int32/Int64, Float32/Float64, Date32,
// Time32(ms), Timestamp in ms/µs/ns) or are copied cell by cell without a JS value (booleans, Utf8 and Binary);
// nested, dictionary-encoded and the rarer columns go value by value (flight/arrow-values.ts).
import type { Data, RecordBatch, Schema } from 'apache-arrow';
import { Type } from 'apache-arrow';
import { arrowTypeName, columnTypes } from './flight/arrow-types.js';
import { arrowCursor, arrowValues } from './flight/arrow-values.js';
import { ParquetFile } from './parquet-file.js';
import type { ParquetColumn } from './parquet-schema.js';
import { Shredder } from './parquet-shred.js';

/** Arrow's validity bitmap of a column, or undefined when no cell is null. */
function bitmapOf(data: Data): Uint8Array | undefined {
  return data.nullCount > 0 && data.nullBitmap && data.nullBitmap.length > 0 ? data.nullBitmap : undefined;
}

/** Whether a flat column's Arrow value buffer already holds its Parquet leaf's PLAIN bytes. */
function sameBytes(col: ParquetColumn, data: Data): boolean {
  const values = data.values as unknown;
  const t = col.type;
  switch (col.leaves[0]!.physical) {
    case 'INT64':
      // BIGINT from Int64, TIMESTAMP from Timestamp in ms, µs or ns (not seconds, written as ms).
      return (
        values instanceof BigInt64Array &&
        ((t.kind === 'integer' && !t.unsigned) || (t.kind === 'timestamp' && t.unit !== 1_000_000_000))
      );
    case 'INT32':
      // INTEGER from Int32, DATE from Date32, TIME from Time32(ms).
      return (
        values instanceof Int32Array &&
        ((t.kind === 'integer' && t.bits === 32 && !t.unsigned) ||
          (t.kind === 'date' && data.typeId === Type.Date && (data.type as { unit?: number }).unit === 0) ||
          (t.kind === 'time' && t.unit === 1_000_000))
      );
    case 'DOUBLE':
      return values instanceof Float64Array;
    case 'FLOAT':
      return values instanceof Float32Array;
    default:
      return false;
  }
}

/** Appends `rows` cells of one Arrow column to its Parquet column (a nested one's tree: `shredder`). */
function append(col: ParquetColumn, data: Data, rows: number, shredder: Shredder | undefined): void {
  const flat = col.leaves.length === 1 && col.leaves[0]!.maxDef === 1 && data.typeId !== Type.Dictionary;
  if (flat) {
    const b = col.leaves[0]!;
    const bitmap = bitmapOf(data);
    const off = data.offset;
    if (data.typeId === Type.Null) {
      for (let r = 0; r < rows; r++) b.null();
      return;
    }
    if (sameBytes(col, data)) {
      b.fixed(data.values as ArrayBufferView, rows, bitmap, off);
      return;
    }
    if (col.type.kind === 'boolean') {
      b.booleans(data.values as Uint8Array, rows, bitmap, off);
      return;
    }
    if (
      (col.type.kind === 'varchar' || col.type.kind === 'varbinary') &&
      data.valueOffsets instanceof Int32Array
    ) {
      b.byteArrays(data.valueOffsets, data.values as Uint8Array, rows, bitmap, off);
      return;
    }
  }
  if (shredder) {
    // Nested: a whole batch at a time where its layout allows, else read where the values are, no array or
    // object made per cell.
    if (shredder.takes(data)) {
      shredder.shred(data, rows);
      return;
    }
    const put = col.from(arrowCursor(data, col.type));
    for (let r = 0; r < rows; r++) put(r);
    return;
  }
  const value = arrowValues(data, col.type);
  for (let r = 0; r < rows; r++) col.put(value(r));
}

/** Parquet from a Flight export's record batches. */
export class ParquetBatches extends ParquetFile<RecordBatch> {
  /** Each nested column's tree (undefined for a flat column). */
  private readonly shredders: (Shredder | undefined)[];

  /** Every column's type is looked up first (arrow-types.ts): a type no writer takes is refused by name. */
  constructor(schema: Schema, opts: { groupBytes?: number } = {}) {
    const types = columnTypes(schema);
    super(
      schema.fields.map((f, c) => ({ name: f.name, type: types[c]!, typeName: arrowTypeName(f.type) })),
      opts,
    );
    this.shredders = this.columns().map((col) =>
      col.leaves.length > 1 || col.leaves[0]!.maxDef > 1 ? new Shredder(col) : undefined,
    );
  }

  format(batch: RecordBatch): string | Uint8Array {
    const columns = this.columns();
    const rows = batch.numRows;
    batch.data.children.forEach((data, c) => {
      append(columns[c]!, data, rows, this.shredders[c]);
    });
    return this.filled();
  }
}
