// JSON and NDJSON (docs/cli-contract.md "Job results and export"): JSON one array of row objects, a row a line;
// NDJSON one row object a line; columns in the schema's order, every value in its one canonical text
// (rest-cells.ts, values.ts). REST rows are written a page to one string; Arrow batches (a Flight export) from
// their column buffers, flight/text-batches.ts, loaded only then.
import { JsonNumber, parseJsonExact, stringifyExact } from '../api/exact-json.js';
import type { ResultField, ResultRow } from '../api/jobs.js';
import { columnTypeOfResult } from './column-types.js';
import type { ExportFormatModule, FormatOptions, Formatter, PageRows } from './formatter.js';
import { cellOf, type RestCells, restCells } from './rest-cells.js';

/** JSON (`array`) or NDJSON. */
const jsonFormat = (array: boolean): ExportFormatModule => ({
  rows: (schema, opts = {}) => new JsonRows(schema, array, opts),
  batches: async (schema) => new (await import('./flight/text-batches.js')).JsonBatches(schema, array),
  // A row a line in both (JSON's array opens on the first row's line).
  keptRows: async (kept) => (await import('./kept-lines.js')).keptLines(kept, false),
});

export const json = jsonFormat(true);
export const ndjson = jsonFormat(false);

/** The kinds of column whose values JSON.stringify writes as their canonical text. */
const PLAIN_JSON = new Set(['varchar', 'integer', 'boolean', 'float']);

class JsonRows implements Formatter<PageRows> {
  readonly head: string;
  private readonly names: string[];
  private readonly cells: readonly RestCells[];
  private readonly keys: string[];
  private readonly flat: boolean;
  /** Two-space indents, as `JSON.stringify(value, null, 2)` would print the array. */
  private readonly pretty: boolean;
  private first: boolean;

  constructor(
    schema: readonly ResultField[],
    private readonly array: boolean,
    { continuing = false, pretty = false }: FormatOptions,
  ) {
    this.names = schema.map((f) => f.name);
    const types = schema.map((f) => columnTypeOfResult(f.type));
    this.cells = types.map((t, c) => restCells(t, this.names[c]!));
    this.head = array && !continuing ? '[' : '';
    this.first = !continuing;
    this.pretty = array && pretty;
    this.keys = this.names.map((n) => `${JSON.stringify(n)}:`);
    // JSON.stringify writes these types' values as their canonical text (a double that is not: -0, 2.0,
    // 1.0E300, is held as a JsonNumber, which takes the careful path).
    this.flat = types.every((t) => PLAIN_JSON.has(t.kind) && (t.kind !== 'float' || t.bits === 64));
  }

  format({ rows, exact }: PageRows): string {
    if (rows.length === 0) return '';
    const lines = new Array<string>(rows.length);
    const simple = this.flat && !exact;
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      if (this.pretty) lines[r] = `  ${prettyExact(this.ordered(row), '  ')}`;
      else if (!simple && this.flat) lines[r] = this.rowText(row);
      // Fast path: a row whose keys are exactly the schema's, in its order, is written by JSON.stringify.
      else lines[r] = simple && this.inSchemaOrder(row) ? JSON.stringify(row) : this.rowText(row);
    }
    if (!this.array) return `${lines.join('\n')}\n`;
    const sep = this.first ? '\n' : ',\n';
    this.first = false;
    return sep + lines.join(',\n');
  }

  tail(): string {
    if (!this.array) return '';
    return this.first ? ']\n' : '\n]\n';
  }

  private inSchemaOrder(row: ResultRow): boolean {
    const names = this.names;
    let i = 0;
    for (const k in row) if (k !== names[i++]) return false;
    return i === names.length;
  }

  /** The row with its keys in the schema's order, each value its canonical JSON (nested ones parsed again, for layout). */
  private ordered(row: ResultRow): ResultRow {
    const out: ResultRow = {};
    for (let c = 0; c < this.names.length; c++) {
      const name = this.names[c]!;
      const text = this.cells[c]!.json(cellOf(row, name));
      const value = /^[[{]/.test(text) ? parseJsonExact(text).value : new JsonNumber(text);
      // Assigned, a key named __proto__ would set the prototype instead.
      Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  private rowText(row: ResultRow): string {
    const parts = new Array<string>(this.names.length);
    for (let c = 0; c < this.names.length; c++)
      parts[c] = this.keys[c]! + this.cells[c]!.json(cellOf(row, this.names[c]!));
    return `{${parts.join(',')}}`;
  }
}

/** `stringifyExact` with `JSON.stringify(value, null, 2)`'s layout, nested under `indent`. */
function prettyExact(value: unknown, indent = ''): string {
  if (value === null || typeof value !== 'object' || value instanceof JsonNumber)
    return stringifyExact(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => inner + prettyExact(v, inner)).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return '{}';
  const parts = entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${prettyExact(v, inner)}`);
  return `{\n${parts.join(',\n')}\n${indent}}`;
}
