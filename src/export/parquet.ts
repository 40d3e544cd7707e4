// Parquet (docs/cli-contract.md "Every type the service answers with", docs/architecture.md "Parquet"): typed
// columns written a row group at a time (parquet-file.ts), from REST rows here, each cell read as its type's
// value (rest-cells.ts), or from Arrow record batches (parquet-arrow.ts, loaded only for a Flight export).
import type { ExportFormatModule, PageRows } from './formatter.js';
import { type Column, ParquetFile, type ParquetOptions, writerState } from './parquet-file.js';
import { cellOf, restValue } from './rest-cells.js';

export const parquet: ExportFormatModule = {
  rows: (schema, opts = {}) =>
    new ParquetRows(schema, {
      resume: opts.continuing ? { bytes: opts.bytes ?? 0, state: opts.state } : undefined,
    }),
  batches: async (schema) => new (await import('./parquet-arrow.js')).ParquetBatches(schema),
  // The footer lists the row groups already written: the record must hold them, for as many rows.
  keptRows: async ({ sidecar, record }) => {
    const rows = writerState(record.writer)?.num_rows;
    return rows === BigInt(record.rows) ? record.rows : `${sidecar} does not describe its Parquet row groups`;
  },
};

/** Parquet from REST rows. */
export class ParquetRows extends ParquetFile<PageRows> {
  /** How each column's REST cell becomes its value (rest-cells.ts). */
  private readonly restValues: ((v: unknown) => unknown)[];
  private readonly names: string[];

  constructor(schema: readonly Column[], opts: ParquetOptions = {}) {
    super(schema, opts);
    this.names = schema.map((f) => f.name);
    this.restValues = schema.map((f, c) => restValue(this.types[c]!, f.name));
  }

  /** Rows of one page: buffered, and a row group's bytes once enough are (else an empty string). */
  format({ rows }: PageRows): Uint8Array | string {
    this.columns().forEach((c, i) => {
      const value = this.restValues[i]!;
      const name = this.names[i]!;
      for (let r = 0; r < rows.length; r++) {
        const v = cellOf(rows[r]!, name);
        c.put(v === null || v === undefined ? null : value(v));
      }
    });
    return this.filled();
  }
}
