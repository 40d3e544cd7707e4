// Real readers of the Parquet files dlake writes: pyarrow (Arrow C++, under pandas and most Python tools) and DuckDB
// (the emulator's own engine), each reading a file the way its users do, with the values it read returned in one
// comparable form: the contract's canonical text of each value (docs/cli-contract.md "Every type the service answers
// with"), lists as arrays, structs as objects, maps as [key, value] pairs. Two readers, because one lenient reader
// proves nothing: DuckDB opens files that Arrow C++ refuses.
//
// pyarrow comes from the machine's Python package index (pip's own configuration) into a virtual environment made
// once and kept outside the clone (testPython). A test that needs it fails, loudly, when it cannot be made:
// a reader that silently skipped would be a test that cannot fail.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { DuckDBInstance, type DuckDBType, DuckDBTypeId, type DuckDBValue } from '@duckdb/node-api';
import lockfile from 'proper-lockfile';

const run = promisify(execFile);

/** A column as a reader sees it: its name, the reader's own type name, and its values (canonical texts). */
export interface ReadColumn {
  name: string;
  type: string;
  values: ReadValue[];
}
export type ReadValue = null | boolean | string | ReadValue[] | { [field: string]: ReadValue };

export interface ReadFile {
  reader: string;
  rows: number;
  columns: ReadColumn[];
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

const SCRIPT = resolve(import.meta.dirname, 'pyarrow-read.py');

/** `file` as pyarrow reads it (`pyarrow.parquet.read_table`). */
export const readWithPyarrow = (file: string): Promise<ReadFile> => pyarrowRead(['parquet', file]);

/** The results of `sql` as Arrow C++'s Flight client reads them (a Basic handshake as `user`), with Arrow types. */
export const readFlightWithPyarrow = (
  url: string,
  user: string,
  password: string,
  sql: string,
): Promise<ReadFile> => pyarrowRead(['flight', url, user, sql], { READ_PASSWORD: password });

async function pyarrowRead(args: string[], env: Record<string, string> = {}): Promise<ReadFile> {
  const python = await testPython();
  const { stdout } = await run(python, [SCRIPT, ...args], {
    maxBuffer: 1024 * 1024 * 1024,
    env: { ...process.env, ...env },
  });
  const read = JSON.parse(stdout) as {
    reader: string;
    rows: number;
    columns: Array<ReadColumn & { values: unknown[] }>;
  };
  return { ...read, columns: read.columns.map((c) => ({ ...c, values: c.values.map(canonical) })) };
}

/** `file` as DuckDB reads it (`read_parquet`), on an instance of its own. */
export async function readWithDuckDB(file: string): Promise<ReadFile> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    const result = await conn.runAndReadAll(`SELECT * FROM read_parquet('${file.replaceAll("'", "''")}')`);
    const types = result.columnTypes();
    const rows = result.getRows();
    return {
      reader: 'duckdb',
      rows: rows.length,
      columns: result.columnNames().map((name, c) => ({
        name,
        type: types[c]!.toString(),
        values: rows.map((row) => canonical(tagDuck(row[c] ?? null, types[c]!))),
      })),
    };
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** `file` read by both: the two must agree, and each is returned for comparing with the source. */
export async function readWithBoth(file: string): Promise<{ pyarrow: ReadFile; duckdb: ReadFile }> {
  const [pyarrow, duckdb] = await Promise.all([readWithPyarrow(file), readWithDuckDB(file)]);
  return { pyarrow, duckdb };
}

// ── One form for both readers ─────────────────────────────────────────────────────────────────────────

/** A DuckDB value tagged as read-parquet.py tags pyarrow's. */
function tagDuck(v: DuckDBValue, t: DuckDBType): unknown {
  if (v === null) return null;
  switch (t.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return v;
    case DuckDBTypeId.FLOAT:
      return { f32: Object.is(v, -0) ? '-0' : String(v) };
    case DuckDBTypeId.DOUBLE:
      return { f64: Object.is(v, -0) ? '-0' : String(v) };
    case DuckDBTypeId.DECIMAL:
      return { dec: String(v) };
    case DuckDBTypeId.VARCHAR:
      return { str: v };
    case DuckDBTypeId.BLOB:
      return { bin: Buffer.from((v as { bytes: Uint8Array }).bytes).toString('base64') };
    case DuckDBTypeId.DATE:
      return { date: String((v as { days: number }).days) };
    case DuckDBTypeId.TIME:
      return { time: String((v as { micros: bigint }).micros), unit: 'us' };
    case DuckDBTypeId.TIME_NS:
      return { time: String((v as { nanos: bigint }).nanos), unit: 'ns' };
    case DuckDBTypeId.TIMESTAMP:
      return { ts: String((v as { micros: bigint }).micros), unit: 'us', tz: null };
    case DuckDBTypeId.TIMESTAMP_TZ:
      return { ts: String((v as { micros: bigint }).micros), unit: 'us', tz: 'UTC' };
    case DuckDBTypeId.TIMESTAMP_MS:
      return { ts: String((v as { millis: bigint }).millis), unit: 'ms', tz: null };
    case DuckDBTypeId.TIMESTAMP_NS:
      return { ts: String((v as { nanos: bigint }).nanos), unit: 'ns', tz: null };
    case DuckDBTypeId.TIMESTAMP_S:
      return { ts: String((v as { seconds: bigint }).seconds), unit: 's', tz: null };
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY:
      return (v as { items: DuckDBValue[] }).items.map((x) => tagDuck(x, t.valueType));
    case DuckDBTypeId.STRUCT: {
      const entries = (v as { entries: Record<string, DuckDBValue> }).entries;
      return {
        struct: Object.fromEntries(
          t.entryNames.map((n, i) => [n, tagDuck(entries[n] ?? null, t.entryTypes[i]!)]),
        ),
      };
    }
    case DuckDBTypeId.MAP:
      return {
        map: (v as { entries: Array<{ key: DuckDBValue; value: DuckDBValue }> }).entries.map((e) => [
          tagDuck(e.key, t.keyType),
          tagDuck(e.value, t.valueType),
        ]),
      };
    case DuckDBTypeId.TINYINT:
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UTINYINT:
    case DuckDBTypeId.USMALLINT:
    case DuckDBTypeId.UINTEGER:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
      return { int: String(v) };
    default:
      return { str: String(v) };
  }
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
