// CSV (docs/cli-contract.md "Job results and export"): the header from the schema, each field by csv-field.ts
// (the one encoder); null and '' both empty; every value in its one canonical text (rest-cells.ts, values.ts).
// REST rows are written a page to one string; Arrow batches (a Flight export) from their column buffers,
// flight/text-batches.ts, loaded only then. A flat REST page read straight from its bytes (csv-pages.ts) skips
// the row objects altogether.
import type { ResultField } from '../api/jobs.js';
import { csvField, csvLine } from '../util/csv-field.js';
import { columnTypeOfResult } from './column-types.js';
import type { ExportFormatModule, Formatter, PageRows } from './formatter.js';
import { cellOf, type RestCells, restCells } from './rest-cells.js';

export const csv: ExportFormatModule = {
  rows: (schema, opts = {}) => new CsvRows(schema, opts.continuing ?? false),
  batches: async (schema) => new (await import('./flight/text-batches.js')).CsvBatches(schema),
  // The header is a line of its own, unless the result had no columns (and the file no bytes of text).
  keptRows: async (kept) => Math.max(0, (await (await import('./kept-lines.js')).keptLines(kept, true)) - 1),
};

class CsvRows implements Formatter<PageRows> {
  readonly head: string;
  private readonly names: string[];
  private readonly cells: readonly RestCells[];

  constructor(schema: readonly ResultField[], continuing: boolean) {
    this.names = schema.map((f) => f.name);
    this.cells = schema.map((f) => restCells(columnTypeOfResult(f.type), f.name));
    // A result of no columns has no lines at all, not even a header.
    this.head = continuing || this.names.length === 0 ? '' : `${csvLine(this.names)}\n`;
  }

  format({ rows }: PageRows): string {
    if (rows.length === 0 || this.names.length === 0) return '';
    const names = this.names;
    const cells = this.cells;
    const width = names.length;
    // One string per page, built by concatenation: V8 joins the pieces once, when the page is written.
    let out = '';
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      out += csvField(cells[0]!.text(cellOf(row, names[0]!)));
      for (let c = 1; c < width; c++) out += `,${csvField(cells[c]!.text(cellOf(row, names[c]!)))}`;
      out += '\n';
    }
    return out;
  }

  tail(): string {
    return '';
  }
}
