// CSV, NDJSON and JSON written from Arrow record batches (docs/cli-contract.md "Export over Arrow Flight"), byte
// for byte as the REST export writes the same rows (the same header, quoting, and one canonical text per value:
// ../values.ts), read from the batches' column buffers straight into bytes (./arrow-cells.ts), with no row
// objects. The text formats' modules (../csv.ts, ../json.ts) load this for a Flight export.
import type { RecordBatch, Schema } from 'apache-arrow';
import { csvLine } from '../../util/csv-field.js';
import { Bytes } from '../bytes.js';
import type { ColumnType } from '../column-types.js';
import type { Formatter } from '../formatter.js';
import { type Cells, cellsOf } from './arrow-cells.js';
import { columnTypes } from './arrow-types.js';

const COMMA = 44;
const LF = 10;
const EMPTY = new Uint8Array(0);

/** The columns of a batch as cells, by the types looked up once from the schema. */
const cellsOfBatch = (batch: RecordBatch, types: readonly ColumnType[]): Cells[] =>
  batch.data.children.map((data, c) => cellsOf(data, types[c]!));

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
    const columns = cellsOfBatch(batch, this.types);
    const width = columns.length;
    if (rows === 0 || width === 0) return EMPTY;
    const out = this.out;
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
  private readonly keys: Buffer[];
  private readonly out = new Bytes();
  private first = true;

  constructor(
    schema: Schema,
    private readonly array: boolean,
  ) {
    this.types = columnTypes(schema);
    this.keys = schema.fields.map((f, c) => Buffer.from(`${c === 0 ? '{' : ','}${JSON.stringify(f.name)}:`));
    this.head = array ? '[' : '';
  }

  format(batch: RecordBatch): Uint8Array {
    const rows = batch.numRows;
    if (rows === 0) return EMPTY;
    const columns = cellsOfBatch(batch, this.types);
    const width = columns.length;
    const out = this.out;
    const array = this.array;
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

  recycle(chunk: Uint8Array): void {
    this.out.recycle(chunk);
  }

  tail(): string {
    if (!this.array) return '';
    return this.first ? ']\n' : '\n]\n';
  }
}
