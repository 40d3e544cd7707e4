// Parquet files read back by the readers people use: pyarrow (Arrow C++, under pandas) and DuckDB, each value in
// dlake's canonical text (test/helpers/parquet-readers.py), to compare with the NDJSON export of the same rows.
// The Python with both is DLAKE_TEST_PYTHON, else a venv of the repository's own (.venv-readers, made here from the
// machine's Python package index the first time it is needed, as CI's clean clone needs it).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { JsonNumber, parseJsonExact } from '../../src/api/exact-json.js';

const ROOT = resolve(import.meta.dirname, '../..');

const VENV = resolve(ROOT, '.venv-readers');

const hasReaders = (python: string): boolean => {
  try {
    execFileSync(python, ['-c', 'import pyarrow, duckdb'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** The Python that has pyarrow and duckdb: made (a venv, a minute or two) when there is none yet. */
export function readersPython(): string {
  const given = process.env.DLAKE_TEST_PYTHON;
  if (given) return given;
  const python = resolve(VENV, 'bin/python');
  if (existsSync(python) && hasReaders(python)) return python;
  execFileSync('python3', ['-m', 'venv', VENV], { stdio: 'ignore' });
  execFileSync(python, ['-m', 'pip', 'install', '--quiet', 'pyarrow', 'duckdb'], { stdio: 'ignore' });
  return python;
}

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
