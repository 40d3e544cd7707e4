// Row formats of an export: each turns one page of rows into one string, so a page costs one write.
// CSV (docs/cli-contract.md "Streams and formats"): header from the schema, each field by csv-field.ts (the
// one encoder); null and '' both empty; every value in its one canonical text (rest-cells.ts, values.ts).
// JSON: one array of row objects, a row a line; NDJSON: one row object a line. Columns in the schema's order.
// Parquet (parquet.ts, loaded only when asked for): typed columns, a row group at a time.
import { JsonNumber, parseJsonExact, stringifyExact } from '../api/exact-json.js';
import type { ResultField, ResultRow } from '../api/jobs.js';
import { csvField } from '../util/csv-field.js';
import { type ColumnType, columnTypeOfResult } from './column-types.js';
import type { ExportFormat } from './formats.js';
import { cellOf, type RestCells, restCanon, restCells } from './rest-cells.js';

type TextFormat = Exclude<ExportFormat, 'parquet'>;

interface RowFormatter {
  /** What comes before the first row: the CSV header, the opening bracket, Parquet's magic bytes. */
  readonly head: string | Uint8Array;
  /** One page of rows (possibly '' while a format buffers them); `exact` when the page holds JsonNumbers. */
  page(rows: readonly ResultRow[], exact: boolean): string | Uint8Array;
  /** What comes after the last row. */
  tail(): string | Uint8Array;
  /** Rows given to `page` whose bytes are not handed out yet (Parquet's row group being filled); else 0. */
  readonly held?: number;
  /** What a resumed export needs besides the bytes to continue them (Parquet's row groups), JSON-safe. */
  state?(): unknown;
}

/** How a text format writes: after rows already written (a resumed export), indented for a reader. */
interface FormatterOptions {
  /** The rows follow rows already written (a resumed export): no head, and the first row is not the file's first. */
  continuing?: boolean;
  /** JSON indented for a reader, as every other command prints it (standard output, not files). */
  pretty?: boolean;
  /** The formatter's `state()` at the checkpoint a resumed export continues from (Parquet). */
  state?: unknown;
  /** The bytes of FILE.partial kept up to that checkpoint. */
  bytes?: number;
}

/** The formatter of any export format; Parquet's encoder is loaded only for a Parquet export. */
export async function loadFormatter(
  format: ExportFormat,
  schema: readonly ResultField[],
  opts: FormatterOptions = {},
): Promise<RowFormatter> {
  if (format !== 'parquet') return createFormatter(format, schema, opts);
  const { ParquetFormatter } = await import('./parquet.js');
  const resume = opts.continuing ? { bytes: opts.bytes ?? 0, state: opts.state } : undefined;
  return new ParquetFormatter(schema, { resume });
}

/** The formatter of a text format. */
export function createFormatter(
  format: TextFormat,
  schema: readonly ResultField[],
  { continuing = false, pretty = false }: FormatterOptions = {},
): RowFormatter {
  const names = schema.map((f) => f.name);
  const types = schema.map((f) => columnTypeOfResult(f.type));
  const cells = types.map((t, c) => restCells(t, names[c]!));
  switch (format) {
    case 'csv':
      return new CsvFormatter(names, cells, continuing);
    case 'json':
      return new JsonFormatter(names, types, cells, true, continuing, pretty);
    case 'ndjson':
      return new JsonFormatter(names, types, cells, false, continuing, false);
  }
}

class CsvFormatter implements RowFormatter {
  readonly head: string;

  constructor(
    private readonly names: string[],
    private readonly cells: readonly RestCells[],
    continuing: boolean,
  ) {
    this.head = names.length && !continuing ? `${names.map(csvField).join(',')}\n` : '';
  }

  page(rows: readonly ResultRow[]): string {
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

/** The kinds of column whose values JSON.stringify writes as their canonical text. */
const PLAIN_JSON = new Set(['varchar', 'integer', 'boolean', 'float']);

/** How a CSV page read straight from its bytes writes each column (json-csv.ts). */
export interface DirectColumns {
  names: string[];
  /** A column's cell text to its canonical text, where it is not written as it came (rest-cells.ts restCanon). */
  canon: (((text: string, isString: boolean) => string | undefined) | undefined)[];
}

/** The columns of a results `schema` (as the service sent it) when all are flat, else undefined. */
export function flatColumns(schema: unknown): DirectColumns | undefined {
  // No schema, or an empty one: the ordinary path takes the rows' own keys (api/jobs.ts fieldsOfRows).
  if (!Array.isArray(schema) || schema.length === 0) return undefined;
  const names: string[] = [];
  const canon: DirectColumns['canon'] = [];
  for (const f of schema as Array<{ name?: unknown; type?: ResultField['type'] } | null>) {
    if (typeof f?.name !== 'string' || typeof f?.type?.name !== 'string') return undefined;
    const fix = restCanon(columnTypeOfResult(f.type), f.name);
    if (fix === null) return undefined;
    names.push(f.name);
    canon.push(fix);
  }
  return { names, canon };
}

class JsonFormatter implements RowFormatter {
  readonly head: string;
  private readonly keys: string[];
  private readonly flat: boolean;
  private first = true;

  constructor(
    private readonly names: string[],
    types: readonly ColumnType[],
    private readonly cells: readonly RestCells[],
    private readonly array: boolean,
    continuing: boolean,
    /** Two-space indents, as `JSON.stringify(value, null, 2)` would print the array. */
    private readonly pretty: boolean,
  ) {
    this.head = array && !continuing ? '[' : '';
    this.first = !continuing;
    this.keys = names.map((n) => `${JSON.stringify(n)}:`);
    // JSON.stringify writes these types' values as their canonical text (a double that is not: -0, 2.0,
    // 1.0E300, is held as a JsonNumber, which takes the careful path).
    this.flat = types.every((t) => PLAIN_JSON.has(t.kind) && (t.kind !== 'float' || t.bits === 64));
  }

  page(rows: readonly ResultRow[], exact: boolean): string {
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
      const json = this.cells[c]!.json(cellOf(row, name));
      const value = /^[[{]/.test(json) ? parseJsonExact(json).value : new JsonNumber(json);
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
