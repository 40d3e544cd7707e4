// Filesystem (NAS) sources: a real folder on disk read live at every listing, the file formats the emulator can
// promote, and the schema of a promoted file as the SQL engine (DuckDB) sees it.
import { readdirSync, statSync } from 'node:fs';
import { basename, extname, isAbsolute, join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';

export type FileFormat = 'csv' | 'parquet' | 'json';

export interface DiskEntry {
  name: string;
  abs: string;
  isDir: boolean;
  mtimeMs: number;
}

export interface Field {
  name: string;
  type: { name: string };
}

/** The promotion `format.type` each readable file kind answers to. */
export const FORMAT_TYPE_OF: Record<FileFormat, string> = { csv: 'Text', parquet: 'Parquet', json: 'JSON' };

const EXTENSIONS: Record<string, FileFormat> = {
  '.csv': 'csv',
  '.tsv': 'csv',
  '.txt': 'csv',
  '.parquet': 'parquet',
  '.json': 'json',
  '.jsonl': 'json',
  '.ndjson': 'json',
};

export function fileFormatOf(name: string): FileFormat | undefined {
  return EXTENSIONS[extname(name).toLowerCase()];
}

/**
 * The real service lists filesystems through Hadoop's path filter, which hides names starting with `.` or `_`
 * (checksums, `_SUCCESS` markers): the emulator hides them too, in listings and in lookups.
 */
const hidden = (name: string): boolean => name.startsWith('.') || name.startsWith('_');

/** Children of a folder, sorted by name like namespace listings; unreadable entries are skipped. */
export function listDisk(abs: string): DiskEntry[] {
  let names: string[];
  try {
    names = readdirSync(abs);
  } catch {
    return [];
  }
  const out: DiskEntry[] = [];
  for (const name of names) {
    if (hidden(name)) continue;
    const entry = statEntry(join(abs, name), name);
    if (entry) out.push(entry);
  }
  return out.sort((a, b) => compareNames(a.name, b.name));
}

/** The entry at `rel` (path components) under `root`, or undefined; `.`/`..`/hidden components never resolve. */
export function statDisk(root: string, rel: string[]): DiskEntry | undefined {
  if (
    rel.some((c) => c === '' || c === '.' || c === '..' || c.includes('/') || c.includes('\0') || hidden(c))
  ) {
    return undefined;
  }
  return statEntry(join(root, ...rel), rel.at(-1) ?? '');
}

/** The file or folder at an absolute path, or undefined. */
export const statPath = (abs: string): DiskEntry | undefined => statEntry(abs, basename(abs));

function statEntry(abs: string, name: string): DiskEntry | undefined {
  try {
    const st = statSync(abs); // follows symlinks, as the real NAS plugin does
    if (!st.isDirectory() && !st.isFile()) return undefined;
    return { name, abs, isDir: st.isDirectory(), mtimeMs: Math.floor(st.mtimeMs) };
  } catch {
    return undefined;
  }
}

/** Whether a folder holds (at any depth) a file of the format, so a folder promotion has something to read. */
export function folderHasFormat(abs: string, format: FileFormat, depth = 8): boolean {
  for (const e of listDisk(abs)) {
    if (!e.isDir && fileFormatOf(e.name) === format) return true;
    if (e.isDir && depth > 0 && folderHasFormat(e.abs, format, depth - 1)) return true;
  }
  return false;
}

/** Health of a NAS source, recomputed at every read: `bad` while its folder is missing. */
export function nasState(path: unknown): {
  status: string;
  messages: Array<{ level: string; message: string }>;
} {
  const dir = typeof path === 'string' && isAbsolute(path) ? statEntry(path, '') : undefined;
  if (dir?.isDir) return { status: 'good', messages: [] };
  return {
    status: 'bad',
    messages: [{ level: 'ERROR', message: `Path [${String(path)}] does not exist or is not a directory.` }],
  };
}

/** Namespace name order: case-insensitive (keys are lower-cased), ties broken by the exact name. */
export function compareNames(a: string, b: string): number {
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  if (la !== lb) return la < lb ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Options of a Text (CSV) format that matter for reading. */
export interface CsvOptions {
  delimiter: string;
  header: boolean;
  skipFirstLine: boolean;
}

/**
 * Reads the schema of promoted files with DuckDB, the engine the jobs area queries them with, so a table's
 * `fields` match what a query returns. One in-memory instance, opened at first use; failures leave `fields` unset.
 */
export class FieldProbe {
  private conn: Promise<DuckDBConnection> | undefined;
  private closeFn: (() => void) | undefined;

  async probe(
    abs: string,
    isFolder: boolean,
    format: FileFormat,
    csv?: CsvOptions,
  ): Promise<Field[] | undefined> {
    try {
      const conn = await this.connect();
      const reader = readerSql(abs, isFolder, format, csv);
      const result = await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${reader}`);
      return result
        .getRows()
        .map((row) => ({ name: String(row[0]), type: { name: serviceType(String(row[1])) } }));
    } catch {
      return undefined;
    }
  }

  close(): void {
    this.closeFn?.();
    this.conn = undefined;
  }

  private connect(): Promise<DuckDBConnection> {
    this.conn ??= (async () => {
      const { DuckDBInstance } = await import('@duckdb/node-api');
      const db = await DuckDBInstance.create(':memory:');
      const conn = await db.connect();
      this.closeFn = () => {
        conn.closeSync();
        db.closeSync();
      };
      return conn;
    })();
    return this.conn;
  }
}

const sqlString = (s: string): string => `'${s.replaceAll("'", "''")}'`;

function readerSql(abs: string, isFolder: boolean, format: FileFormat, csv?: CsvOptions): string {
  const ext = format === 'csv' ? 'csv' : format;
  const target = sqlString(isFolder ? join(abs, '**', `*.${ext}`) : abs);
  if (format === 'parquet') return `read_parquet(${target})`;
  if (format === 'json') return `read_json_auto(${target})`;
  const o = csv ?? { delimiter: ',', header: true, skipFirstLine: false };
  return `read_csv(${target}, header = ${o.header}, delim = ${sqlString(o.delimiter)}, skip = ${o.skipFirstLine ? 1 : 0})`;
}

/** DuckDB type names to the service's (`VARCHAR`, `BIGINT`, `DOUBLE`, `BOOLEAN`, …). */
export function serviceType(duck: string): string {
  const t = duck.toUpperCase();
  if (t.endsWith('[]') || t.startsWith('LIST')) return 'LIST';
  if (t.startsWith('STRUCT')) return 'STRUCT';
  if (t.startsWith('MAP')) return 'MAP';
  if (t.startsWith('DECIMAL')) return 'DECIMAL';
  if (t.startsWith('TIMESTAMP')) return 'TIMESTAMP';
  if (/^(TINYINT|SMALLINT|INTEGER|UTINYINT|USMALLINT)$/.test(t)) return 'INTEGER';
  if (/^(BIGINT|UINTEGER|UBIGINT|HUGEINT|UHUGEINT)$/.test(t)) return 'BIGINT';
  if (t === 'FLOAT' || t === 'REAL') return 'FLOAT';
  if (t === 'DOUBLE') return 'DOUBLE';
  if (t === 'BOOLEAN') return 'BOOLEAN';
  if (t === 'DATE' || t === 'TIME') return t;
  if (t === 'BLOB') return 'VARBINARY';
  return 'VARCHAR';
}
