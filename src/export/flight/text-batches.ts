// CSV, NDJSON and JSON written from Arrow record batches (docs/cli-contract.md "Export over Arrow Flight"), byte
// for byte as the REST export writes the same rows (the same header, quoting, and one canonical text per value:
// ../values.ts), read from the batches' column buffers straight into bytes (./arrow-cells.ts), with no row
// objects. The text formats' modules (../csv.ts, ../json.ts) load this for a Flight export.
import { type RecordBatch, type Schema, Type } from 'apache-arrow';
import { csvLine } from '../../util/csv-field.js';
import { Bytes } from '../bytes.js';
import type { ColumnType } from '../column-types.js';
import type { Formatter } from '../formatter.js';
import { type Cells, cellsOf } from './arrow-cells.js';
import { columnTypes } from './arrow-types.js';

const COMMA = 44;
const LF = 10;
const EMPTY = new Uint8Array(0);
const NULL = Buffer.from('null');

/**
 * A batch's columns as the row loops read them, each property an array by column, chosen once a batch: the
 * cell writers (no lookup of a method on cells of different shapes per cell), and the validity bitmap tested
 * in the loop itself where a column has nulls and no other way to be null (a dictionary's value, a NULL column).
 */
interface BatchColumns {
  csv: Cells['csv'][];
  json: Cells['json'][];
  /** The validity bitmap, or undefined when `isNull` decides (or the column has no nulls: `isNull` undefined too). */
  bits: (Uint8Array | undefined)[];
  /** The bitmap's first bit (a sliced column's offset). */
  offset: number[];
  isNull: (Cells['isNull'] | undefined)[];
}

function batchColumns(batch: RecordBatch, types: readonly ColumnType[]): BatchColumns {
  const cols: BatchColumns = { csv: [], json: [], bits: [], offset: [], isNull: [] };
  batch.data.children.forEach((data, c) => {
    const cells = cellsOf(data, types[c]!);
    cols.csv.push(cells.csv);
    cols.json.push(cells.json);
    const simple = data.typeId !== Type.Dictionary && data.typeId !== Type.Null && types[c]!.kind !== 'null';
    const bitmap =
      data.nullCount > 0 && data.nullBitmap && data.nullBitmap.length > 0 ? data.nullBitmap : undefined;
    cols.bits.push(simple ? bitmap : undefined);
    cols.offset.push(data.offset);
    cols.isNull.push(simple ? undefined : cells.isNull);
  });
  return cols;
}

/** Row `r` of column `c` is null. */
function isNullAt(cols: BatchColumns, c: number, r: number): boolean {
  const bits = cols.bits[c];
  if (bits !== undefined) {
    const j = r + cols.offset[c]!;
    return (bits[j >> 3]! & (1 << (j & 7))) === 0;
  }
  const test = cols.isNull[c];
  return test?.(r) === true;
}

export class CsvBatches implements Formatter<RecordBatch> {
  readonly head: string;
  /** Every column's type; a type no writer takes is refused here, by name (arrow-types.ts). */
  private readonly types: ColumnType[];
  private readonly out = new Bytes();

  constructor(schema: Schema) {
    this.types = columnTypes(schema);
    const names = schema.fields.map((f) => f.name);
    this.head = names.length ? `${csvLine(names)}\n` : '';
  }

  format(batch: RecordBatch): Uint8Array {
    const rows = batch.numRows;
    const width = this.types.length;
    if (rows === 0 || width === 0) return EMPTY;
    const cols = batchColumns(batch, this.types);
    const csv = cols.csv;
    const out = this.out;
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < width; c++) {
        if (c > 0) out.byte(COMMA);
        if (!isNullAt(cols, c, r)) csv[c]!(out, r);
      }
      out.byte(LF);
    }
    return out.take();
  }

  recycle(chunk: Uint8Array): void {
    this.out.recycle(chunk);
  }

  tail(): string {
    return '';
  }
}

/** JSON (`array`: one array of row objects, a row a line) or NDJSON (a row object a line). */
export class JsonBatches implements Formatter<RecordBatch> {
  readonly head: string;
  private readonly types: ColumnType[];
  /** Each column's key after the first (`,"name":`), its colon included. */
  private readonly keys: Buffer[];
  /**
   * What opens the first row and every later one, the first column's key included (`{"id":`; in a JSON array
   * after the line end, and the comma, before it), and what closes every row: the bytes between two rows'
   * values written at once.
   */
  private readonly open: { first: Buffer; next: Buffer };
  private readonly close: Buffer;
  private readonly out = new Bytes();
  private first = true;

  constructor(
    schema: Schema,
    private readonly array: boolean,
  ) {
    this.types = columnTypes(schema);
    const keys = schema.fields.map((f, c) => `${c === 0 ? '{' : ','}${JSON.stringify(f.name)}:`);
    this.keys = keys.map((k) => Buffer.from(k));
    const start = keys[0] ?? '{';
    this.open = array
      ? { first: Buffer.from(`\n${start}`), next: Buffer.from(`,\n${start}`) }
      : { first: Buffer.from(start), next: Buffer.from(start) };
    this.close = Buffer.from(array ? '}' : '}\n');
    this.head = array ? '[' : '';
  }

  format(batch: RecordBatch): Uint8Array {
    const rows = batch.numRows;
    if (rows === 0) return EMPTY;
    const width = this.types.length;
    const cols = batchColumns(batch, this.types);
    const json = cols.json;
    const keys = this.keys;
    const close = this.close;
    const out = this.out;
    for (let r = 0; r < rows; r++) {
      const open = this.first ? this.open.first : this.open.next;
      this.first = false;
      out.raw(open, 0, open.length);
      for (let c = 0; c < width; c++) {
        if (c > 0) {
          const key = keys[c]!;
          out.raw(key, 0, key.length);
        }
        if (isNullAt(cols, c, r)) out.raw(NULL, 0, 4);
        else json[c]!(out, r);
      }
      out.raw(close, 0, close.length);
    }
    return out.take();
  }

  recycle(chunk: Uint8Array): void {
    this.out.recycle(chunk);
  }

  tail(): string {
    if (!this.array) return '';
    return this.first ? ']\n' : '\n]\n';
  }
}
