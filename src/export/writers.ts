// Row formats of an export: each turns one page of rows into one string, so a page costs one write.
// CSV (cli.md): header from the schema, comma-separated, LF line ends, quoted only when a field holds a comma,
// a double quote, CR or LF; null and '' both empty; booleans true/false; numbers as the API wrote them.
// JSON: one array of row objects, a row a line; NDJSON: one row object a line. Columns in the schema's order.
import { stringify } from 'csv-stringify/sync';
import { JsonNumber, stringifyExact } from '../api/exact-json.js';
import type { ResultField, ResultRow } from '../api/jobs.js';

export const EXPORT_FORMATS = ['csv', 'json', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface RowFormatter {
  /** Text before the first row: the CSV header, the opening bracket. */
  readonly head: string;
  /** Text of one page of rows; `exact` when the page holds JsonNumbers. */
  page(rows: readonly ResultRow[], exact: boolean): string;
  /** Text after the last row. */
  tail(): string;
}

export function createFormatter(
  format: ExportFormat,
  schema: readonly ResultField[],
  opts: { pretty?: boolean } = {},
): RowFormatter {
  const names = schema.map((f) => f.name);
  switch (format) {
    case 'csv':
      return new CsvFormatter(names);
    case 'json':
      return new JsonFormatter(names, schema, true, Boolean(opts.pretty));
    case 'ndjson':
      return new JsonFormatter(names, schema, false, false);
  }
}

/** The file format a name suggests (`.csv`, `.json`, `.ndjson`/`.jsonl`), if any. */
export function formatFromFileName(file: string): ExportFormat | undefined {
  const ext = /\.([a-z]+)$/i.exec(file)?.[1]?.toLowerCase();
  if (ext === 'csv' || ext === 'json' || ext === 'ndjson') return ext;
  if (ext === 'jsonl') return 'ndjson';
  return undefined;
}

// An explicit record_delimiter turns the library's quoting of CR off unless quote_record_delimiter says otherwise.
const CSV_OPTIONS = { record_delimiter: 'unix', quote_record_delimiter: true, eof: true } as const;

class CsvFormatter implements RowFormatter {
  readonly head: string;

  constructor(private readonly names: string[]) {
    this.head = names.length ? stringify([names], CSV_OPTIONS) : '';
  }

  page(rows: readonly ResultRow[]): string {
    if (rows.length === 0 || this.names.length === 0) return '';
    const names = this.names;
    const width = names.length;
    const records = new Array<Array<string | null>>(rows.length);
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      const cells = new Array<string | null>(width);
      for (let c = 0; c < width; c++) cells[c] = csvCell(row[names[c]!]);
      records[r] = cells;
    }
    // The library does the quoting; cells arrive as text already, so its own casts (booleans as 1/'') never apply.
    return stringify(records, CSV_OPTIONS);
  }

  tail(): string {
    return '';
  }
}

/** A value as CSV text before quoting; null for an empty field. */
export function csvCell(v: unknown): string | null {
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
      return String(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'undefined':
      return null;
    default:
      if (v === null) return null;
      if (v instanceof JsonNumber) return v.text;
      return stringifyExact(v);
  }
}

/** Types whose values are objects or arrays: their rows are written value by value. */
const NESTED = /^(LIST|STRUCT|MAP|UNION|ARRAY|ROW)\b/i;

class JsonFormatter implements RowFormatter {
  readonly head: string;
  private readonly keys: string[];
  private readonly flat: boolean;
  private first = true;

  constructor(
    private readonly names: string[],
    schema: readonly ResultField[],
    private readonly array: boolean,
    /** Two-space indents, as `JSON.stringify(value, null, 2)` would print the array. */
    private readonly pretty: boolean,
  ) {
    this.head = array ? '[' : '';
    this.keys = names.map((n) => `${JSON.stringify(n)}:`);
    this.flat = !schema.some((f) => NESTED.test(f.type.name));
  }

  page(rows: readonly ResultRow[], exact: boolean): string {
    if (rows.length === 0) return '';
    const lines = new Array<string>(rows.length);
    const simple = this.flat && !exact;
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      if (this.pretty) lines[r] = `  ${prettyExact(this.ordered(row), '  ')}`;
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

  /** The row with its keys in the schema's order. */
  private ordered(row: ResultRow): ResultRow {
    const out: ResultRow = {};
    for (const name of this.names) out[name] = row[name] === undefined ? null : row[name];
    return out;
  }

  private rowText(row: ResultRow): string {
    const parts = new Array<string>(this.names.length);
    for (let c = 0; c < this.names.length; c++)
      parts[c] = this.keys[c]! + stringifyExact(row[this.names[c]!]);
    return `{${parts.join(',')}}`;
  }
}

/** `stringifyExact` with `JSON.stringify(value, null, 2)`'s layout, nested under `indent`. */
export function prettyExact(value: unknown, indent = ''): string {
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
