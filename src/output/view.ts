// A view says how one kind of data is shown as rows and columns (table and csv). json and ndjson ignore
// it and print the service's objects as they came.
import { JsonNumber, stringifyExact } from '../api/exact-json.js';

interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

export interface View<T> {
  columns: Column<T>[];
  /** Printed on stderr instead of an empty table. */
  empty?: string;
}

/** A command's result, as src/output/render.ts prints it. */
export interface Renderable<T = unknown> {
  /** What json/ndjson print and --query filters. */
  data: unknown;
  /** Rows for table/csv; default: `data` itself (a list) or its fields (an object). */
  rows?: T[];
  view?: View<T>;
}

/** One row of a detail: the table form of one object, a FIELD and its VALUE. */
export interface Detail {
  key: string;
  value: unknown;
}

export const DETAIL_VIEW: View<Detail> = {
  columns: [
    { header: 'FIELD', value: (r) => r.key },
    { header: 'VALUE', value: (r) => r.value },
  ],
};

/** Key/value rows for one object, as they are: the table form of an object printed without a view. */
export function detailRows(obj: Record<string, unknown>): Detail[] {
  // A field the service left out or sent as null was made `undefined` by the schema: no row for it.
  return Object.entries(obj)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => ({ key, value }));
}

/**
 * What a `get` command prints: the object itself in json and ndjson; in table and csv one FIELD/VALUE row per
 * detail, leaving out those without a value.
 */
export function detail(data: unknown, rows: readonly Detail[]): Renderable<Detail> {
  return { data, rows: rows.filter((r) => r.value !== undefined), view: DETAIL_VIEW };
}

/** How a field shows in a detail: under another name, or formatted (sizes and durations in human units). */
export interface FieldSpec<T> {
  field: keyof T & string;
  label?: string;
  value?: (obj: T) => unknown;
}

/** Rows for an object's fields: those of `order` first, as the specs say, then every other field as it is. */
export function fieldRows<T extends Record<string, unknown>>(
  obj: T,
  order: readonly FieldSpec<T>[],
): Detail[] {
  const known = new Set<string>(order.map((f) => f.field));
  return [
    ...order
      .filter((f) => obj[f.field] !== undefined)
      .map((f) => ({ key: f.label ?? f.field, value: f.value ? f.value(obj) : obj[f.field] })),
    ...Object.keys(obj)
      .filter((k) => !known.has(k) && obj[k] !== undefined)
      .map((key) => ({ key, value: obj[key] })),
  ];
}

/** Text of one cell: scalars as they are, objects and arrays as compact JSON. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  // A number kept exactly (a result row's, or --query's) is its text, inside a nested value too.
  if (v instanceof JsonNumber) return v.text;
  if (typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON !== 'function')
    return stringifyExact(v);
  // JSON.stringify gives undefined for functions and symbols: a cell is always a string.
  return JSON.stringify(v) ?? '';
}

/** Columns guessed from the keys of arbitrary objects (the result of --query, `api`). */
export function genericView(rows: unknown[]): View<unknown> {
  const seen = new Set<string>();
  for (const r of rows) {
    if (r && typeof r === 'object' && !Array.isArray(r)) for (const k of Object.keys(r)) seen.add(k);
  }
  const keys = [...seen];
  if (keys.length === 0) return { columns: [{ header: 'VALUE', value: (r) => r }] };
  return {
    columns: keys.map((k) => ({
      header: k.toUpperCase(),
      // Own fields of object rows only: not a string's `length`, an array's `0`, or an inherited `constructor`.
      value: (r) =>
        r && typeof r === 'object' && !Array.isArray(r) && Object.hasOwn(r, k)
          ? (r as Record<string, unknown>)[k]
          : undefined,
    })),
  };
}
