// Export formats written from Arrow record batches (docs/cli-contract.md "Export over Arrow Flight"): CSV,
// NDJSON and JSON byte for byte as the REST export writes the same rows (the same header, quoting, and one
// canonical text per value: ../values.ts), read from the batches' column buffers straight into bytes
// (./arrow-cells.ts), with no row objects.
import type { RecordBatch, Schema } from 'apache-arrow';
import { csvField } from '../../util/csv-field.js';
import { Bytes } from '../bytes.js';
import type { ColumnType } from '../column-types.js';
import { type Cells, cellsOf } from './arrow-cells.js';
import { columnTypes } from './arrow-types.js';

export interface BatchFormatter {
  readonly head: string | Uint8Array;
  /** One batch's rows (possibly empty while Parquet fills a row group). */
  batch(batch: RecordBatch): string | Uint8Array;
  tail(): string | Uint8Array;
}

const COMMA = 44;
const LF = 10;

export class TextBatchFormatter implements BatchFormatter {
  readonly head: string;
  private readonly keys: Buffer[];
  private readonly types: ColumnType[];
  private readonly out = new Bytes();
  private first = true;

  constructor(
    private readonly format: 'csv' | 'json' | 'ndjson',
    schema: Schema,
  ) {
    const names = schema.fields.map((f) => f.name);
    this.types = columnTypes(schema);
    this.keys = names.map((n, c) => Buffer.from(`${c === 0 ? '{' : ','}${JSON.stringify(n)}:`));
    this.head =
      format === 'csv'
        ? names.length
          ? `${names.map(csvField).join(',')}\n`
          : ''
        : format === 'json'
          ? '['
          : '';
  }

  batch(batch: RecordBatch): Uint8Array {
    const rows = batch.numRows;
    if (rows === 0) return new Uint8Array(0);
    const columns: Cells[] = batch.data.children.map((data, c) => cellsOf(data, this.types[c]!));
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
