// Parquet files read back by the readers people use, pyarrow (Arrow C++, under pandas) and DuckDB, as the NDJSON
// export writes values: each in its canonical text, however many fraction digits the file's unit has
// (test/helpers/parquet-readers.py), so that a whole file compares with the NDJSON export of the same rows. The
// Python is the tests' one (real-readers.ts testPython).
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { JsonNumber, parseJsonExact } from '../../src/api/exact-json.js';

/** A value as the readers' script writes it: numbers as {$n: text}, so that no digit is lost in between. */
export type ReadValue = null | boolean | string | { $n: string } | ReadValue[] | { [k: string]: ReadValue };

/** Each file's rows as each reader (`pyarrow`, `duckdb`) gives them, or the error the reader raised. */
export function readParquet(
  python: string,
  files: readonly string[],
): Record<string, Record<'pyarrow' | 'duckdb', ReadValue[] | { error: string }>> {
  const out = execFileSync(python, [resolve(import.meta.dirname, 'parquet-readers.py'), ...files], {
    maxBuffer: 256 * 1024 * 1024,
  });
  return JSON.parse(out.toString());
}

/** NDJSON text as the readers' script writes values: each number as {$n: its text}. */
export function ndjsonValues(text: string): ReadValue[] {
  const wrap = (v: unknown): ReadValue => {
    if (v instanceof JsonNumber) return { $n: v.text };
    if (typeof v === 'number') return { $n: String(v) };
    if (Array.isArray(v)) return v.map(wrap);
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, wrap(x)]));
    return v as ReadValue;
  };
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => wrap(parseJsonExact(line).value));
}
