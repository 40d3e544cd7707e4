// Real readers of the Parquet files dlake writes: pyarrow (Arrow C++, under pandas and most Python tools) and DuckDB
// (the emulator's own engine), each reading a file the way its users do (real-readers.py, one run for any number
// of files), with the values it read returned in two comparable forms: by column, each value's text in the
// reader's own terms (the fraction digits of its unit, maps as [key, value] pairs, lists as arrays, structs as
// objects), and by row as dlake's NDJSON export writes the same values (docs/cli-contract.md "Every type the
// service answers with"), to compare a whole file with the NDJSON export of the same rows. Two readers, because
// one lenient reader proves nothing: DuckDB opens files that Arrow C++ refuses. pyarrow's Flight client reads a
// Flight stream the same way.
//
// pyarrow comes from the machine's Python package index (pip's own configuration) into a virtual environment made
// once and kept outside the clone (testPython). A test that needs it fails, loudly, when it cannot be made:
// a reader that silently skipped would be a test that cannot fail.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import lockfile from 'proper-lockfile';
import { JsonNumber, parseJsonExact } from '../../src/api/exact-json.js';

const run = promisify(execFile);

/** A column as a reader sees it: its name, the reader's own type name, and its values (canonical texts). */
export interface ReadColumn {
  name: string;
  type: string;
  values: ReadValue[];
}
export type ReadValue = null | boolean | string | ReadValue[] | { [field: string]: ReadValue };

/**
 * A value as dlake's NDJSON export writes it (docs/cli-contract.md "Every type the service answers with"), a
 * number as `{$n: its text}` so that no digit is lost and a number is told from a string: a MAP of text keys an
 * object, of other keys an array of `{key, value}`; TIME and TIMESTAMP with milliseconds, and more digits only
 * where the value has them.
 */
export type ExportValue =
  | null
  | boolean
  | string
  | { $n: string }
  | ExportValue[]
  | { [field: string]: ExportValue };

export interface ReadFile {
  reader: string;
  rows: number;
  /** Each value in the reader's own terms: the fraction digits of its unit, maps as [key, value] pairs. */
  columns: ReadColumn[];
  /** The rows as dlake's NDJSON export writes the same values (ndjsonValues), for comparing a whole file. */
  records: Record<string, ExportValue>[];
}

/** Where the test environment is kept: `$DLAKE_TEST_CACHE`, else ~/.cache/dlake-tests. */
const cacheDir = (): string => process.env.DLAKE_TEST_CACHE ?? join(homedir(), '.cache', 'dlake-tests');

/** The Python packages of the tests' Python: the readers people open exports with. */
const PACKAGES = ['pyarrow', 'duckdb'];

/**
 * The tests' Python, with pyarrow and duckdb: `$DLAKE_TEST_PYTHON` when given, else a virtual environment made on
 * first use (python3 -m venv, pip install from whatever index pip is configured with) and kept in the cache folder
 * for every later run and every clone. Made in a folder of its own and renamed into place when complete, under a
 * lock, so that concurrent test processes neither make it twice nor use a half-made one. Throws, with pip's own
 * words, when it cannot be made.
 */
export async function testPython(): Promise<string> {
  if (process.env.DLAKE_TEST_PYTHON) return process.env.DLAKE_TEST_PYTHON;
  const root = cacheDir();
  const venv = join(root, 'python-readers');
  const python = join(venv, 'bin', 'python');
  if (existsSync(python)) return python;
  mkdirSync(root, { recursive: true });
  const release = await lockfile.lock(root, { retries: { retries: 120, minTimeout: 500, maxTimeout: 2000 } });
  try {
    if (existsSync(python)) return python;
    const making = join(root, `python-readers.${process.pid}.tmp`);
    rmSync(making, { recursive: true, force: true });
    try {
      await run('python3', ['-m', 'venv', making]);
      await run(
        join(making, 'bin', 'python'),
        ['-m', 'pip', 'install', '--disable-pip-version-check', ...PACKAGES],
        {
          maxBuffer: 64 * 1024 * 1024,
        },
      );
      await run(join(making, 'bin', 'python'), ['-c', 'import pyarrow.parquet, pyarrow.flight, duckdb']);
    } catch (err) {
      rmSync(making, { recursive: true, force: true });
      const e = err as { message: string; stderr?: string };
      throw new Error(
        `cannot make a Python environment with ${PACKAGES.join(' and ')} in ${root}: ${e.stderr || e.message}`,
      );
    }
    renameSync(making, venv);
    return python;
  } finally {
    await release();
  }
}

const SCRIPT = resolve(import.meta.dirname, 'real-readers.py');

/** What a reader made of a file: its columns, or the error it refused the file with. */
type ReadOrRefused = ReadFile | { error: string };

/** The reader's answer as real-readers.py wrote it, its values still tagged. */
interface Tagged {
  reader: string;
  rows: number;
  columns: Array<{ name: string; type: string; values: unknown[] }>;
}

/**
 * Each of `files` as pyarrow (`pyarrow.parquet.read_table`) and DuckDB (`read_parquet`) read it, in one run of the
 * readers' script; a reader that refuses a file gives the error it raised.
 */
export async function readParquet(
  files: readonly string[],
): Promise<Record<string, Record<'pyarrow' | 'duckdb', ReadOrRefused>>> {
  const read = await readersScript<Record<string, Record<'pyarrow' | 'duckdb', Tagged | { error: string }>>>([
    'parquet',
    ...files,
  ]);
  const out: Record<string, Record<'pyarrow' | 'duckdb', ReadOrRefused>> = {};
  for (const [file, by] of Object.entries(read))
    out[file] = { pyarrow: untag(by.pyarrow), duckdb: untag(by.duckdb) };
  return out;
}

/** A file's rows as dlake's NDJSON export writes them (ReadFile `records`), or the reader's refusal. */
export const recordsOf = (read: ReadOrRefused): ExportValue[] | { error: string } =>
  'error' in read ? read : read.records;

/** `file` as one reader reads it; throws the reader's error when it refuses the file. */
async function readWith(reader: 'pyarrow' | 'duckdb', file: string): Promise<ReadFile> {
  const read = (await readParquet([file]))[file]![reader];
  if ('error' in read) throw new Error(`${reader} refused ${file}: ${read.error}`);
  return read;
}

/** `file` as pyarrow reads it (`pyarrow.parquet.read_table`). */
export const readWithPyarrow = (file: string): Promise<ReadFile> => readWith('pyarrow', file);

/** `file` as DuckDB reads it (`read_parquet`). */
export const readWithDuckDB = (file: string): Promise<ReadFile> => readWith('duckdb', file);

/** `file` read by both: the two must agree, and each is returned for comparing with the source. */
export async function readWithBoth(file: string): Promise<{ pyarrow: ReadFile; duckdb: ReadFile }> {
  const read = (await readParquet([file]))[file]!;
  for (const reader of ['pyarrow', 'duckdb'] as const) {
    const r = read[reader];
    if ('error' in r) throw new Error(`${reader} refused ${file}: ${r.error}`);
  }
  return read as { pyarrow: ReadFile; duckdb: ReadFile };
}

/** The results of `sql` as Arrow C++'s Flight client reads them (a Basic handshake as `user`), with Arrow types. */
export const readFlightWithPyarrow = async (
  url: string,
  user: string,
  password: string,
  sql: string,
): Promise<ReadFile> =>
  untag(await readersScript<Tagged>(['flight', url, user, sql], { READ_PASSWORD: password })) as ReadFile;

async function readersScript<T>(args: string[], env: Record<string, string> = {}): Promise<T> {
  const python = await testPython();
  const { stdout } = await run(python, [SCRIPT, ...args], {
    maxBuffer: 1024 * 1024 * 1024,
    env: { ...process.env, ...env },
  });
  return JSON.parse(stdout) as T;
}

function untag(read: Tagged | { error: string }): ReadOrRefused {
  if ('error' in read) return read;
  return {
    ...read,
    columns: read.columns.map((c) => ({ ...c, values: c.values.map(canonical) })),
    records: Array.from({ length: read.rows }, (_, r) => {
      const record: Record<string, ExportValue> = {};
      for (const c of read.columns) record[c.name] = exported(c.values[r]);
      return record;
    }),
  };
}

const pad = (n: number | bigint, width = 2): string => String(n).padStart(width, '0');
const UNIT_DIGITS: Record<string, number> = { s: 0, ms: 3, us: 6, ns: 9 };

/** ⌊a / b⌋ and the remainder, for b > 0. */
function divmod(a: bigint, b: bigint): [bigint, bigint] {
  const q = a / b - (a % b < 0n ? 1n : 0n);
  return [q, a - q * b];
}

/** `YYYY-MM-DD` of a day count from 1970-01-01, proleptic Gregorian; astronomical years (`-0220`, `+10000`). */
function dateText(days: number): string {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  const year = y < 0 ? `-${pad(-y, 4)}` : y > 9999 ? `+${y}` : pad(y, 4);
  return `${year}-${pad(m)}-${pad(d)}`;
}

/** `HH:MM:SS` and the fraction digits of `unit`, of a count of `unit` since midnight. */
function timeText(count: bigint, unit: string): string {
  const digits = UNIT_DIGITS[unit]!;
  const [seconds, fraction] = divmod(count, 10n ** BigInt(digits));
  const s = Number(seconds);
  const hms = `${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
  return digits ? `${hms}.${pad(fraction, digits)}` : hms;
}

/** The shortest text that reads back as the same float of the width (`NaN`, `Infinity`, `-0`). */
function floatText(v: number, width: 32 | 64): string {
  if (Object.is(v, -0)) return '-0';
  if (width === 64 || !Number.isFinite(v)) return String(v);
  for (let p = 1; p < 9; p++) {
    const shorter = Number(v.toPrecision(p));
    if (Math.fround(shorter) === v) return String(shorter);
  }
  return String(v);
}

/** A tagged value in its canonical text (docs/cli-contract.md "Every type the service answers with"). */
function canonical(tagged: unknown): ReadValue {
  if (tagged === null || typeof tagged === 'boolean') return tagged;
  if (Array.isArray(tagged)) return tagged.map(canonical);
  const t = tagged as Record<string, unknown>;
  if ('int' in t || 'dec' in t || 'str' in t || 'bin' in t) return String(t.int ?? t.dec ?? t.str ?? t.bin);
  if ('f64' in t) return floatText(Number(t.f64), 64);
  if ('f32' in t) return floatText(Math.fround(Number(t.f32)), 32);
  if ('date' in t) return dateText(Number(t.date));
  if ('time' in t) return timeText(BigInt(t.time as string), t.unit as string);
  if ('ts' in t) {
    const digits = UNIT_DIGITS[t.unit as string]!;
    const [days, inDay] = divmod(BigInt(t.ts as string), 86_400n * 10n ** BigInt(digits));
    return `${dateText(Number(days))} ${timeText(inDay, t.unit as string)}`;
  }
  if ('struct' in t) {
    return Object.fromEntries(
      Object.entries(t.struct as Record<string, unknown>).map(([k, v]) => [k, canonical(v)]),
    );
  }
  if ('map' in t) return (t.map as unknown[][]).map((pair) => pair.map(canonical));
  throw new Error(`a reader's value of no known kind: ${JSON.stringify(tagged)}`);
}

/** A number of ms, µs or ns within a day as dlake writes it: milliseconds, then µs or ns only where they are not 0. */
function clockText(count: bigint, unit: string): string {
  const nanos = count * 10n ** BigInt(9 - UNIT_DIGITS[unit]!);
  const [ms, sub] = divmod(nanos, 1_000_000n);
  const text = timeText(ms, 'ms');
  if (sub === 0n) return text;
  const six = pad(sub, 6);
  return text + (six.endsWith('000') ? six.slice(0, 3) : six);
}

/** A tagged value as dlake's NDJSON export writes it (ExportValue). */
function exported(tagged: unknown): ExportValue {
  if (tagged === null || typeof tagged === 'boolean') return tagged;
  if (Array.isArray(tagged)) return tagged.map(exported);
  const t = tagged as Record<string, unknown>;
  if ('int' in t || 'dec' in t) return { $n: String(t.int ?? t.dec) };
  if ('f64' in t || 'f32' in t) {
    const text = canonical(t) as string;
    return ['NaN', 'Infinity', '-Infinity'].includes(text) ? text : { $n: text };
  }
  if ('str' in t || 'bin' in t) return canonical(t);
  // dlake writes a year after 9999 without ISO 8601's sign.
  if ('date' in t) return dateText(Number(t.date)).replace(/^\+/, '');
  if ('time' in t) return clockText(BigInt(t.time as string), t.unit as string);
  if ('ts' in t) {
    const digits = UNIT_DIGITS[t.unit as string]!;
    const [days, inDay] = divmod(BigInt(t.ts as string), 86_400n * 10n ** BigInt(digits));
    return `${dateText(Number(days)).replace(/^\+/, '')} ${clockText(inDay, t.unit as string)}`;
  }
  if ('struct' in t)
    return Object.fromEntries(
      Object.entries(t.struct as Record<string, unknown>).map(([k, v]) => [k, exported(v)]),
    );
  if ('map' in t) {
    const pairs = (t.map as unknown[][]).map(([k, v]) => [exported(k), exported(v)] as const);
    return t.text_keys
      ? Object.fromEntries(pairs.map(([k, v]) => [k as string, v]))
      : pairs.map(([key, value]) => ({ key, value }));
  }
  throw new Error(`a reader's value of no known kind: ${JSON.stringify(tagged)}`);
}

/** NDJSON text as ExportValues (each number as {$n: its text}), to compare with a file's `records`. */
export function ndjsonValues(text: string): ExportValue[] {
  const wrap = (v: unknown): ExportValue => {
    if (v instanceof JsonNumber) return { $n: v.text };
    if (typeof v === 'number') return { $n: String(v) };
    if (Array.isArray(v)) return v.map(wrap);
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, wrap(x)]));
    return v as ExportValue;
  };
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => wrap(parseJsonExact(line).value));
}
