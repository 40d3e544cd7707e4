// A view says how one kind of data is shown as rows and columns (table and csv). json and ndjson ignore
// it and print the service's objects as they came.

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

export interface View<T> {
  columns: Column<T>[];
  /** Printed on stderr instead of an empty table. */
  empty?: string;
}

/** Key/value rows for one object: the table form of `get` commands. */
export function detailRows(obj: Record<string, unknown>): { key: string; value: unknown }[] {
  return Object.entries(obj).map(([key, value]) => ({ key, value }));
}

export const DETAIL_VIEW: View<{ key: string; value: unknown }> = {
  columns: [
    { header: 'FIELD', value: (r) => r.key },
    { header: 'VALUE', value: (r) => r.value },
  ],
};

/** Text of one cell: scalars as they are, objects and arrays as compact JSON. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  // JSON.stringify gives undefined for functions and symbols: a cell is always a string.
  return JSON.stringify(v) ?? '';
}

/** Columns guessed from the keys of arbitrary objects (the result of --query, `api`). */
export function genericView(rows: unknown[]): View<unknown> {
  const keys: string[] = [];
  for (const r of rows) {
    if (r && typeof r === 'object' && !Array.isArray(r))
      for (const k of Object.keys(r)) if (!keys.includes(k)) keys.push(k);
  }
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
