// The emulator's SQL engine: DuckDB (`@duckdb/node-api`) behind the service's SQL dialect and type system.
//
// - One in-memory DuckDB instance holds the generated table `big` (export and paging tests).
// - Catalog datasets (promoted NAS files/folders, virtual datasets) are made queryable under their catalog
//   paths by rewriting each query: every reference written in the service's dialect (`Samples.sales."2024.csv"`,
//   `myspace.folder.myview`) becomes a temporary DuckDB view created on the query's own connection.
// - Results come back as the service's schema (`{name, type: {name}}`, service type names) and each row's JSON
//   text as the service's results writer prints it (docs/api-facts.md §4.3; emulator/src/service-text.ts).
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import {
  type DuckDBConnection,
  DuckDBInstance,
  type DuckDBPreparedStatement,
  type DuckDBResult,
  type DuckDBType,
  DuckDBTypeId,
  type DuckDBValue,
} from '@duckdb/node-api';
import { everyTypeTableSql } from './every-type.js';
import {
  bigDecimalPlain,
  bigDecimalText,
  floorDiv,
  isoDate,
  isoTime,
  isoTimestamp,
  javaDouble,
  javaFloat,
  jsonFloating,
  serviceDate,
  serviceIntervalDay,
  serviceIntervalYear,
  serviceTime,
  serviceTimestamp,
} from './service-text.js';

/** A dataset the catalog owns, as `area.shared.catalogDatasets()` describes it. */
export interface CatalogDataset {
  path: string[];
  /** `system`: a system table (emulator/src/job-history.ts), read by `sql` as it is, not rewritten. */
  kind: 'file' | 'view' | 'system';
  /** Files: a file or a folder (a promoted folder reads every file of its format below it). */
  filePath?: string;
  format?: 'csv' | 'parquet' | 'json';
  /** Files: whether `filePath` is a folder (checked on disk when not given). */
  isFolder?: boolean;
  /** Text files: how to read them (default: `,`, a header line, nothing skipped). */
  csv?: { delimiter: string; header: boolean; skipFirstLine: boolean };
  /** Views: their SQL, resolved in `sqlContext`. */
  sql?: string;
  sqlContext?: string[];
  /** The catalog id, when the catalog gives it (used for job acceleration data). */
  id?: string;
}

export interface FieldType {
  name: string;
  precision?: number;
  scale?: number;
  subSchema?: FieldSchema[];
}

/** A column of a results `schema`; LIST/UNION children carry no name (the service's APIFieldDescriber). */
export interface FieldSchema {
  name?: string;
  type: FieldType;
}

/** A row as a plain object (what `JSON.parse` makes of a row of the results answer). */
export type Row = Record<string, unknown>;

export interface QueryResult {
  schema: FieldSchema[];
  /**
   * Each row as the JSON object text the service's results answer holds (exact digits: a row is never a
   * JavaScript object on its way out).
   */
  rows: string[];
}

/** A dataset a query read: `['big']` for the generated table, else a catalog dataset (with its id). */
export interface TouchedDataset {
  path: string[];
  id?: string;
}

export interface QueryOutcome {
  result: QueryResult;
  touched: TouchedDataset[];
}

/** Told the columns of every virtual dataset a query expanded (the catalog shows them as `fields`). */
export type ViewSchemaListener = (path: string[], fields: Array<{ name: string; type: FieldType }>) => void;

export const BIG_TABLE = 'big';

/**
 * The generated table `big`: `id` 1..n and columns whose values cycle deterministically through what breaks
 * naive exporters (commas, quotes, LF and CRLF, non-ASCII, empty strings, NULLs). Built with `range()`, so
 * a million rows take well under a second. Queryable as plain `big` only (not as `"@admin".big`).
 */
export function bigTableSql(rows: number): string {
  const n = Math.max(0, Math.floor(rows));
  return `CREATE OR REPLACE TABLE ${BIG_TABLE} AS
SELECT
  i AS id,
  CASE WHEN i % 97 = 0 THEN NULL ELSE 'user_' || i END AS name,
  CASE WHEN i % 89 = 0 THEN NULL ELSE round(((i * 7919) % 100000) / 100.0 - 500, 2)::DOUBLE END AS amount,
  CASE WHEN i % 53 = 0 THEN NULL ELSE i % 2 = 0 END AS flag,
  CASE i % 10
    WHEN 0 THEN 'plain text ' || i
    WHEN 1 THEN 'with, commas, inside'
    WHEN 2 THEN 'with "double quotes" inside'
    WHEN 3 THEN 'line one' || chr(10) || 'line two'
    WHEN 4 THEN 'crlf one' || chr(13) || chr(10) || 'crlf two'
    WHEN 5 THEN 'naïve café – 東京 🚀'
    WHEN 6 THEN ''
    WHEN 7 THEN NULL
    WHEN 8 THEN '"quoted, with comma"' || chr(10) || 'and a new line'
    ELSE '  padded  '
  END AS note
FROM range(1, ${n} + 1) AS t(i)`;
}

export const WIDE_TABLE = 'wide';

/**
 * The generated table `wide`: rows of a few kilobytes each (Flight batches of megabytes, as a service sends for
 * wide rows), their text holding what needs quoting. Queryable as plain `wide`.
 */
export function wideTableSql(rows = 1000): string {
  return `CREATE OR REPLACE TABLE ${WIDE_TABLE} AS
SELECT
  i AS id,
  repeat(chr(97 + (i % 26)::INTEGER), 2048 + (i * 37) % 2048) AS a,
  CASE WHEN i % 11 = 0 THEN NULL ELSE repeat('naïve, "quoted"' || chr(10) || 'line ', 60 + i % 40) END AS b,
  i * 1.5 AS x
FROM range(1, ${Math.max(0, Math.floor(rows))} + 1) AS t(i)`;
}

/**
 * The hosted edition's organisation default project, as the emulator's Flight serves it to a call without a
 * session: its own `big`, three rows that are not the served project's (emulator/src/flight/server.ts).
 */
export const DEFAULT_PROJECT_SCHEMA = 'org_default_project';
const DEFAULT_PROJECT_SQL = `CREATE SCHEMA IF NOT EXISTS ${DEFAULT_PROJECT_SCHEMA};
CREATE OR REPLACE TABLE ${DEFAULT_PROJECT_SCHEMA}.${BIG_TABLE} AS
SELECT 1000000 + i AS id, 'default project row ' || i AS name, -1.0::DOUBLE AS amount, false AS flag,
  'this is the organisation default project' AS note
FROM range(1, 4) AS t(i)`;

export class SqlEngine {
  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly floats: FloatText,
  ) {}

  /** `floats`: how REST results print FLOAT and DOUBLE (FloatText). */
  static async create(bigRows: number, floats: FloatText = 'java'): Promise<SqlEngine> {
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    try {
      await conn.run(bigTableSql(bigRows));
      await conn.run(wideTableSql());
      await conn.run(everyTypeTableSql());
      await conn.run(DEFAULT_PROJECT_SQL);
    } finally {
      conn.closeSync();
    }
    return new SqlEngine(instance, floats);
  }

  /**
   * Runs one query written in the service's dialect on its own connection (so its temporary views and an
   * interrupt stay private to it). Aborting `signal` interrupts DuckDB; the promise then rejects.
   */
  async query(
    sql: string,
    context: string[],
    datasets: readonly CatalogDataset[],
    signal?: AbortSignal,
    onViewSchema?: ViewSchemaListener,
  ): Promise<QueryOutcome> {
    return this.withPlan(sql, context, datasets, signal, onViewSchema, async (conn, plan) => {
      const result = await conn.run(plan.sql);
      return { result: await convertResult(result, this.floats, signal), touched: plan.touched };
    });
  }

  /**
   * Plans a query and hands its prepared statement to `body` on a connection of its own: the Flight server
   * reads its columns without running it, then streams its rows chunk by chunk (emulator/src/flight).
   */
  async prepared<T>(
    sql: string,
    context: string[],
    datasets: readonly CatalogDataset[],
    signal: AbortSignal | undefined,
    body: (statement: DuckDBPreparedStatement) => Promise<T>,
    /** Names not qualified resolve in this schema first (the hosted default project's: DEFAULT_PROJECT_SCHEMA). */
    schema?: string,
  ): Promise<T> {
    return this.withPlan(sql, context, datasets, signal, undefined, async (conn, plan) => {
      if (schema) await conn.run(`SET search_path = '${schema},main'`);
      return body(await conn.prepare(plan.sql));
    });
  }

  /** CTAS: runs a query and writes its rows into one Parquet file. Returns the rows written. */
  async copyToParquet(
    sql: string,
    context: string[],
    datasets: readonly CatalogDataset[],
    file: string,
    signal?: AbortSignal,
  ): Promise<{ rows: number; touched: TouchedDataset[] }> {
    return this.withPlan(sql, context, datasets, signal, undefined, async (conn, plan) => {
      const r = await conn.runAndReadAll(
        `COPY (${plan.sql}) TO '${file.replaceAll("'", "''")}' (FORMAT parquet)`,
      );
      return { rows: Number(r.getRows()[0]?.[0] ?? 0), touched: plan.touched };
    });
  }

  /** Plans a query and runs `body` on a connection of its own once the query's views exist. */
  private async withPlan<T>(
    sql: string,
    context: string[],
    datasets: readonly CatalogDataset[],
    signal: AbortSignal | undefined,
    onViewSchema: ViewSchemaListener | undefined,
    body: (conn: DuckDBConnection, plan: QueryPlan) => Promise<T>,
  ): Promise<T> {
    const plan = planQuery(sql, context, datasets);
    const conn: DuckDBConnection = await this.instance.connect();
    const interrupt = (): void => conn.interrupt();
    signal?.addEventListener('abort', interrupt);
    try {
      for (const view of plan.views) {
        await conn.run(view.create);
        if (view.kind === 'view' && onViewSchema) await reportSchema(conn, view, onViewSchema);
      }
      if (signal?.aborted) throw new Error('Interrupted');
      return await body(conn, plan);
    } catch (err) {
      throw inServiceWords(asWritten(err, plan), sql, context);
    } finally {
      signal?.removeEventListener('abort', interrupt);
      conn.closeSync();
    }
  }

  /** Runs a statement of the engine's own (e.g. seeding the job history) on a connection of its own. */
  async exec(sql: string): Promise<void> {
    const conn = await this.instance.connect();
    try {
      await conn.run(sql);
    } finally {
      conn.closeSync();
    }
  }

  close(): void {
    this.instance.closeSync();
  }
}

/** A view's columns, read without running it; a failure here is left for the query itself to report. */
async function reportSchema(conn: DuckDBConnection, view: PlannedView, listener: ViewSchemaListener) {
  try {
    const r = await conn.run(`SELECT * FROM ${quoteIdent(view.name)} LIMIT 0`);
    const names = uniqueNames(r.columnNames());
    const types = r.columnTypes().map((t) => describeType(t).type);
    listener(
      view.path,
      names.map((name, i) => ({ name, type: types[i]! })),
    );
  } catch {
    // Not the place to fail the job.
  }
}

// ── Dataset references ──────────────────────────────────────────────────────────────────────────────
//
// The service's dialect: a dataset is named by its catalog path, components joined by `.`; a component is
// a bare identifier (letters, digits, `_`, `$`, not starting with a digit) or double-quoted, with `""` for a
// quote inside (`Samples."my ""odd"" file.csv"`, `"@admin".v`). Matching is case-insensitive, as the
// service's identifiers are. With a query `context`, a reference is tried relative to the context first,
// then as an absolute path.
//
// Limits (kept on purpose; it is an emulator):
// - References are found lexically: string literals and comments are skipped, everything else is scanned
//   for dotted identifier chains. A multi-component chain equal to a dataset path is replaced wherever it
//   stands; a single-component one (resolvable only through the context) only right after FROM, JOIN or a
//   comma, so that column names are left alone.
// - A replaced table reference without an alias gets its last path component as alias, so
//   `"2024.csv".amount` still works; a dataset referenced by its full path in a column qualifier does not.
// - CSV files are read with DuckDB's type sniffing, so columns get typed (BIGINT, DOUBLE…) where the real
//   service reads text files as VARCHAR.
// - Views nest up to 32 levels; a cycle fails the query.

interface QueryPlan {
  /** The query with dataset references replaced by view names. */
  sql: string;
  /** Views to create, dependencies first. */
  views: PlannedView[];
  touched: TouchedDataset[];
}

interface PlannedView {
  path: string[];
  kind: CatalogDataset['kind'];
  name: string;
  create: string;
  /** The reference as the query (or the view that reads it) wrote it: what an error names. */
  written: string;
}

/**
 * An engine error in the user's terms: the temporary views' names (`"ds_cfda…" AS "sales"`) become the
 * references as written (`Samples.sales`), in the message and in DuckDB's excerpt of the query (`LINE 1: …`),
 * whose caret is moved to stay under the same character.
 */
function asWritten(err: unknown, plan: QueryPlan): unknown {
  if (!(err instanceof Error) || plan.views.length === 0) return err;
  const swaps = plan.views.flatMap((v) => [
    [`${quoteIdent(v.name)} AS ${quoteIdent(v.path.at(-1)!)}`, v.written],
    [quoteIdent(v.name), v.written],
    [v.name, v.written],
  ]);
  const lines = err.message.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const caret = lines[i + 1]?.match(/^(\s*)\^\s*$/);
    let line = lines[i]!;
    let column = caret ? caret[1]!.length : -1;
    // An excerpt cut short (`LINE 1: ...9be5" AS "sales" JOIN …`) may start inside a name.
    const cut = /^LINE \d+: \.\.\./.exec(line)?.[0].length ?? 0;
    if (cut) {
      const tail = swaps
        .flatMap(([from, to]) => [...Array(from!.length).keys()].map((k) => [from!.slice(k), to!]))
        .find(([part]) => part!.length >= 4 && line.startsWith(part!, cut));
      if (tail) {
        line = line.slice(0, cut) + tail[1] + line.slice(cut + tail[0]!.length);
        if (column >= cut) column += tail[1]!.length - tail[0]!.length;
      }
    }
    for (const [from, to] of swaps) {
      for (let at = line.indexOf(from!); at >= 0; at = line.indexOf(from!, at + to!.length)) {
        line = line.slice(0, at) + to + line.slice(at + from!.length);
        if (column >= at + from!.length) column += to!.length - from!.length;
      }
    }
    out.push(line);
    if (caret) {
      out.push(`${' '.repeat(Math.max(0, column))}^`);
      i++;
    }
  }
  const message = out.join('\n');
  return message === err.message ? err : new Error(message);
}

/**
 * The engine's errors that have a wording of the service's own (docs/api-facts.md §4.2), said in it: a table
 * that does not exist, or a name DuckDB took for a file pattern, is the service's `Object 'x' not found within
 * 'a.b'`, with none of DuckDB's category (`Catalog Error:`, `IO Error:`), suggestions of its internal tables
 * (`Did you mean "sqlite_master"?`) or excerpt of the query.
 */
function inServiceWords(err: unknown, sql: string, context: string[]): unknown {
  if (!(err instanceof Error)) return err;
  const first = err.message.split('\n')[0] ?? '';
  const notFound = (parts: string[]): Error =>
    new Error(
      parts.length > 1
        ? `Object '${parts.at(-1)}' not found within '${parts.slice(0, -1).join('.')}'`
        : context.length
          ? `Object '${parts[0]}' not found within '${context.join('.')}'`
          : `Object '${parts[0]}' not found`,
    );
  const table = /^Catalog Error: Table with name (.+?) does not exist!/.exec(first);
  if (table) return notFound([table[1]!]);
  const pattern = /^IO Error: No files found that match the pattern "(.+)"/.exec(first);
  if (pattern) {
    // DuckDB read a dotted name as a file: the reference the statement wrote, as its parts.
    const written = scanChains(sql).find(
      (c) => c.tablePos && c.parts.join('.').toLowerCase() === pattern[1]!.toLowerCase(),
    );
    return notFound(written?.parts ?? [pattern[1]!]);
  }
  return err;
}

interface Chain {
  start: number;
  end: number;
  parts: string[];
  /** Right after FROM, JOIN or a comma: where a table reference stands. */
  tablePos: boolean;
  /** A single bare (unquoted) identifier, e.g. a keyword. */
  bare: boolean;
}

/** Words that may follow a table reference without being its alias. */
const CLAUSE_WORDS = new Set(
  (
    'WHERE GROUP ORDER LIMIT OFFSET FETCH JOIN INNER LEFT RIGHT FULL OUTER CROSS NATURAL POSITIONAL ASOF ANTI ' +
    'SEMI LATERAL ON USING UNION EXCEPT INTERSECT MINUS HAVING WINDOW QUALIFY TABLESAMPLE SAMPLE AT FOR ' +
    'PIVOT UNPIVOT RETURNING SELECT'
  ).split(' '),
);

const MAX_VIEW_DEPTH = 32;

export function planQuery(sql: string, context: string[], datasets: readonly CatalogDataset[]): QueryPlan {
  const byKey = new Map<string, CatalogDataset>();
  for (const d of datasets) byKey.set(pathKey(d.path), d);
  const views: PlannedView[] = [];
  const created = new Set<string>();
  const touched = new Map<string, TouchedDataset>();

  const viewFor = (ds: CatalogDataset, stack: string[], written: string): string => {
    const key = pathKey(ds.path);
    const name = viewName(ds.path);
    if (created.has(name)) return name;
    if (stack.includes(key)) throw new Error(`Cyclic view definition: ${ds.path.join('.')}`);
    if (stack.length >= MAX_VIEW_DEPTH) throw new Error(`Views nested too deeply at ${ds.path.join('.')}`);
    const body =
      ds.kind === 'view'
        ? rewrite(stripSemicolons(ds.sql ?? ''), ds.sqlContext ?? [], [...stack, key])
        : ds.kind === 'system'
          ? (ds.sql ?? '')
          : fileSelect(ds);
    created.add(name);
    views.push({
      path: ds.path,
      kind: ds.kind,
      name,
      create: `CREATE OR REPLACE TEMP VIEW ${quoteIdent(name)} AS ${body}`,
      written,
    });
    return name;
  };

  const rewrite = (text: string, ctx: string[], stack: string[]): string => {
    let out = '';
    let last = 0;
    for (const chain of scanChains(text)) {
      if (chain.parts.length === 1 && !chain.tablePos) continue;
      const ds = resolve(chain.parts, ctx, byKey);
      if (!ds) {
        if (chain.tablePos && chain.parts.length === 1 && chain.parts[0]!.toLowerCase() === BIG_TABLE) {
          touched.set(BIG_TABLE, { path: [BIG_TABLE] });
        }
        continue;
      }
      // A system table is no dataset a reflection could accelerate.
      if (ds.kind !== 'system') touched.set(pathKey(ds.path), { path: ds.path, id: ds.id });
      const name = viewFor(ds, stack, text.slice(chain.start, chain.end));
      const alias = chain.tablePos && !hasAlias(text, chain.end) ? ` AS ${quoteIdent(ds.path.at(-1)!)}` : '';
      out += text.slice(last, chain.start) + quoteIdent(name) + alias;
      last = chain.end;
    }
    return out + text.slice(last);
  };

  const rewritten = rewrite(sql, context, []);
  return { sql: rewritten, views, touched: [...touched.values()] };
}

function resolve(
  parts: string[],
  context: string[],
  byKey: Map<string, CatalogDataset>,
): CatalogDataset | undefined {
  if (context.length) {
    const rel = byKey.get(pathKey([...context, ...parts]));
    if (rel) return rel;
  }
  return byKey.get(pathKey(parts));
}

const pathKey = (path: readonly string[]): string => path.map((p) => p.toLowerCase()).join('\u0000');

const viewName = (path: readonly string[]): string =>
  `ds_${createHash('sha1').update(pathKey(path)).digest('hex').slice(0, 16)}`;

const quoteIdent = (s: string): string => `"${s.replaceAll('"', '""')}"`;
const quoteLiteral = (s: string): string => `'${s.replaceAll("'", "''")}'`;
const stripSemicolons = (s: string): string => s.replace(/[;\s]+$/, '');

/**
 * The DuckDB reader of a promoted file or folder. Text files are read with the promotion's options and
 * DuckDB's type sniffing, exactly as the catalog probes their `fields` (nas.ts), so both agree.
 */
function fileSelect(ds: CatalogDataset): string {
  const file = ds.filePath;
  if (!file) throw new Error(`Dataset ${ds.path.join('.')} has no file`);
  const format = ds.format ?? formatOf(file);
  const target = quoteLiteral(isFolder(ds, file) ? join(file, '**', `*.${format}`) : file);
  if (format === 'parquet') return `SELECT * FROM read_parquet(${target})`;
  if (format === 'json') return `SELECT * FROM read_json_auto(${target})`;
  const o = ds.csv ?? { delimiter: ',', header: true, skipFirstLine: false };
  return (
    `SELECT * FROM read_csv(${target}, header = ${o.header}, delim = ${quoteLiteral(o.delimiter)}, ` +
    `skip = ${o.skipFirstLine ? 1 : 0})`
  );
}

function isFolder(ds: CatalogDataset, file: string): boolean {
  if (ds.isFolder !== undefined) return ds.isFolder;
  try {
    return statSync(file).isDirectory();
  } catch {
    return false; // A missing file is DuckDB's to report, with its own message.
  }
}

function formatOf(file: string): 'csv' | 'parquet' | 'json' {
  const ext = file.toLowerCase().split('.').at(-1);
  return ext === 'parquet' ? 'parquet' : ext === 'json' || ext === 'jsonl' ? 'json' : 'csv';
}

const isIdentStart = (c: string | undefined): boolean => c !== undefined && /[\p{L}_]/u.test(c);
const isIdentPart = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{N}_$]/u.test(c);
const isSpace = (c: string | undefined): boolean => c !== undefined && /\s/.test(c);

/** Skips whitespace and comments from `i`; returns the next significant index. */
function skipTrivia(s: string, i: number): number {
  for (;;) {
    while (isSpace(s[i])) i++;
    if (s.startsWith('--', i)) {
      const e = s.indexOf('\n', i);
      i = e < 0 ? s.length : e + 1;
    } else if (s.startsWith('/*', i)) {
      const e = s.indexOf('*/', i + 2);
      i = e < 0 ? s.length : e + 2;
    } else {
      return i;
    }
  }
}

/** Reads one identifier at `i` (bare or double-quoted). */
function readIdent(s: string, i: number): { value: string; end: number; quoted: boolean } | null {
  if (s[i] === '"') {
    let value = '';
    let j = i + 1;
    while (j < s.length) {
      if (s[j] === '"') {
        if (s[j + 1] === '"') {
          value += '"';
          j += 2;
          continue;
        }
        return { value, end: j + 1, quoted: true };
      }
      value += s[j];
      j++;
    }
    return { value, end: s.length, quoted: true };
  }
  if (!isIdentStart(s[i])) return null;
  let j = i + 1;
  while (isIdentPart(s[j])) j++;
  return { value: s.slice(i, j), end: j, quoted: false };
}

/**
 * The catalog paths a statement's table references may name: each dotted name after FROM, JOIN or a comma, as
 * written and inside the query's context.
 */
export function tableReferences(sql: string, context: readonly string[]): string[][] {
  return scanChains(sql)
    .filter((c) => c.tablePos)
    .flatMap((c) => (context.length ? [[...context, ...c.parts], c.parts] : [c.parts]));
}

/** The dotted identifier chains of a SQL text, outside string literals and comments. */
function scanChains(s: string): Chain[] {
  const chains: Chain[] = [];
  let prev = '';
  let i = 0;
  while (i < s.length) {
    const next = skipTrivia(s, i);
    if (next !== i) {
      i = next;
      continue;
    }
    const c = s[i]!;
    if (c === "'") {
      i = skipString(s, i);
      prev = "'";
    } else if (/[0-9]/.test(c)) {
      const m = /^[0-9_]*(\.[0-9_]*)?([eE][+-]?[0-9]+)?/.exec(s.slice(i, i + 64))!;
      i += Math.max(1, m[0].length);
      while (isIdentPart(s[i])) i++;
      prev = '0';
    } else if (c === '"' || isIdentStart(c)) {
      const start = i;
      const parts: string[] = [];
      let bare = false;
      let j = i;
      for (;;) {
        const id = readIdent(s, j)!;
        if (!parts.length) bare = !id.quoted;
        parts.push(id.value);
        j = id.end;
        let k = skipTrivia(s, j);
        if (s[k] !== '.') break;
        k = skipTrivia(s, k + 1);
        if (s[k] !== '"' && !isIdentStart(s[k])) break;
        j = k;
      }
      bare = bare && parts.length === 1;
      chains.push({
        start,
        end: j,
        parts,
        tablePos: prev === 'FROM' || prev === 'JOIN' || prev === ',',
        bare,
      });
      prev = bare ? parts[0]!.toUpperCase() : 'IDENT';
      i = j;
    } else {
      prev = c;
      i++;
    }
  }
  return chains;
}

function skipString(s: string, i: number): number {
  let j = i + 1;
  while (j < s.length) {
    if (s[j] === "'") {
      if (s[j + 1] === "'") {
        j += 2;
        continue;
      }
      return j + 1;
    }
    j++;
  }
  return s.length;
}

/** Whether the table reference ending at `end` is followed by an alias (`AS x`, or a non-clause word). */
function hasAlias(s: string, end: number): boolean {
  const i = skipTrivia(s, end);
  const id = readIdent(s, i);
  if (!id) return false;
  if (id.quoted) return true;
  return id.value.toUpperCase() === 'AS' || !CLAUSE_WORDS.has(id.value.toUpperCase());
}

// ── Results: the service's types and value texts ───────────────────────────────────────────────────

/**
 * How REST results print a FLOAT or DOUBLE: as the service's Java does (`1.0`, `-0.0`, `1.0E300`, a FLOAT's own
 * shortest digits `0.33333334`), or as JavaScript prints the number (`1`, `0`, `1e+300`, a FLOAT widened to a
 * double `0.3333333432674408`). NaN and the infinities are the quoted strings either way.
 */
export type FloatText = 'java' | 'javascript';

/** Writes one value (never null: the caller writes `null`) as the service's JSON writer prints it. */
type WriteJson = (v: DuckDBValue) => string;

export interface Described {
  type: FieldType;
  /** The value's JSON text as the service's results answer holds it; `null` for NULL. */
  json: (v: DuckDBValue) => string;
  /** The value as a map key names its entry, or undefined for a type the service refuses as a key. */
  key?: (v: DuckDBValue) => string;
}

const quote = (s: string): string => JSON.stringify(s);
/** JavaScript's text of a float (NaN and the infinities as Java's, for jsonFloating to quote). */
const jsFloating = (v: DuckDBValue): string => (Number.isNaN(v) ? 'NaN' : String(v));
const base64 = (v: DuckDBValue): string => Buffer.from((v as { bytes: Uint8Array }).bytes).toString('base64');
const days = (v: DuckDBValue): number => (v as { days: number }).days;
/** Milliseconds, floored, from DuckDB's raw time units (`perMs` of them per millisecond). */
const millis = (raw: bigint, perMs: bigint): bigint => floorDiv(raw, perMs);

/**
 * DuckDB has one INTERVAL type, the service two: an INTERVAL column (or struct field) whose name ends in `_ym` is
 * INTERVAL YEAR TO MONTH, any other INTERVAL DAY TO SECOND (a month counted as 30 days). The emulator's choice:
 * a result's types are known before its values are (Flight sends the schema first), and a name is all there is.
 */
export const isYearMonth = (name: string | undefined): boolean => /_ym$/i.test(name ?? '');

/** An INTERVAL DAY TO SECOND's milliseconds, from DuckDB's months, days and microseconds. */
export function intervalMillis(v: DuckDBValue): bigint {
  const i = v as { months: number; days: number; micros: bigint };
  return BigInt(i.months * 30 + i.days) * 86_400_000n + floorDiv(i.micros, 1000n);
}

/**
 * Maps a DuckDB type to the service's type name (docs/api-facts.md §4.3) and the text its JSON writer prints for
 * each value (docs/api-facts.md §16): exact integers, BigDecimal and Java float texts, quoted NaN and infinities,
 * Joda dates, nested values as JSON. Types the service lacks take its nearest: unsigned and 128-bit integers widen
 * to BIGINT (so `sum(bigint)`, a HUGEINT in DuckDB, is BIGINT as on the service), UUID and ENUM are VARCHAR,
 * DuckDB's fixed-size ARRAY a LIST; others are `OTHER` with DuckDB's text. `name` is the column's (or field's) name,
 * which picks the INTERVAL type (isYearMonth); `floats` how FLOAT and DOUBLE are printed (FloatText).
 */
export function describeType(t: DuckDBType, name?: string, floats: FloatText = 'java'): Described {
  const simple = (typeName: string, write: WriteJson, key?: (v: DuckDBValue) => string): Described => ({
    type: { name: typeName },
    json: (v) => (v === null ? 'null' : write(v)),
    key,
  });
  const text = (v: DuckDBValue): string => String(v);
  switch (t.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return simple('BOOLEAN', text, text);
    case DuckDBTypeId.TINYINT:
      return simple('TINYINT', text);
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.UTINYINT:
      return simple('SMALLINT', text);
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.USMALLINT:
      return simple('INTEGER', text, text);
    case DuckDBTypeId.UINTEGER:
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
    case DuckDBTypeId.BIGNUM:
      // Jackson writes a Java long's digits: exact, whatever a JavaScript reader makes of them.
      return simple('BIGINT', text, text);
    case DuckDBTypeId.FLOAT: {
      const f = (v: DuckDBValue): string => (floats === 'java' ? javaFloat(v as number) : jsFloating(v));
      return simple('FLOAT', (v) => jsonFloating(f(v)), f);
    }
    case DuckDBTypeId.DOUBLE: {
      const d = (v: DuckDBValue): string => (floats === 'java' ? javaDouble(v as number) : jsFloating(v));
      return simple('DOUBLE', (v) => jsonFloating(d(v)), d);
    }
    case DuckDBTypeId.DECIMAL: {
      const unscaled = (v: DuckDBValue): bigint => (v as { value: bigint }).value;
      return {
        type: { name: 'DECIMAL', precision: t.width, scale: t.scale },
        json: (v) => (v === null ? 'null' : bigDecimalText(unscaled(v), t.scale)),
        key: (v) => bigDecimalPlain(unscaled(v), t.scale),
      };
    }
    case DuckDBTypeId.VARCHAR:
    case DuckDBTypeId.ENUM:
    case DuckDBTypeId.UUID:
      return simple('VARCHAR', (v) => quote(String(v)), text);
    case DuckDBTypeId.BLOB:
      // Jackson writes byte arrays as base64.
      return simple('VARBINARY', (v) => quote(base64(v)), base64);
    case DuckDBTypeId.DATE:
      return simple(
        'DATE',
        (v) => quote(serviceDate(days(v))),
        (v) => isoDate(days(v)),
      );
    case DuckDBTypeId.TIME:
    case DuckDBTypeId.TIME_TZ: {
      const ms = (v: DuckDBValue): number => Number(millis((v as { micros: bigint }).micros, 1000n));
      return simple(
        'TIME',
        (v) => quote(serviceTime(ms(v))),
        (v) => isoTime(ms(v)),
      );
    }
    case DuckDBTypeId.TIME_NS: {
      const ms = (v: DuckDBValue): number => Number(millis((v as { nanos: bigint }).nanos, 1_000_000n));
      return simple(
        'TIME',
        (v) => quote(serviceTime(ms(v))),
        (v) => isoTime(ms(v)),
      );
    }
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_TZ:
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_NS: {
      const ms = (v: DuckDBValue): bigint => timestampMillis(t.typeId, v);
      return simple(
        'TIMESTAMP',
        (v) => quote(serviceTimestamp(ms(v))),
        (v) => isoTimestamp(ms(v)),
      );
    }
    case DuckDBTypeId.INTERVAL:
      return isYearMonth(name)
        ? simple('INTERVAL YEAR TO MONTH', (v) =>
            quote(serviceIntervalYear((v as { months: number }).months)),
          )
        : simple('INTERVAL DAY TO SECOND', (v) => quote(serviceIntervalDay(intervalMillis(v))));
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY: {
      const child = describeType(t.valueType, undefined, floats);
      return {
        type: { name: 'LIST', subSchema: [{ type: child.type }] },
        json: (v) =>
          v === null
            ? 'null'
            : `[${(v as { items: readonly DuckDBValue[] }).items.map(child.json).join(',')}]`,
      };
    }
    case DuckDBTypeId.STRUCT: {
      const names = t.entryNames;
      const fields = t.entryTypes.map((e, i) => describeType(e, names[i], floats));
      const keys = names.map(quote);
      return {
        type: { name: 'STRUCT', subSchema: names.map((n, i) => ({ name: n, type: fields[i]!.type })) },
        // A null field is left out of its object, as the service's writer does (it writes only the set ones).
        json: (v) => {
          if (v === null) return 'null';
          const entries = (v as { entries: Readonly<Record<string, DuckDBValue>> }).entries;
          const parts: string[] = [];
          names.forEach((n, i) => {
            const value = entries[n] ?? null;
            if (value !== null) parts.push(`${keys[i]}:${fields[i]!.json(value)}`);
          });
          return `{${parts.join(',')}}`;
        },
      };
    }
    case DuckDBTypeId.MAP: {
      const key = describeType(t.keyType, 'key', floats);
      const value = describeType(t.valueType, 'value', floats);
      const keyText = key.key;
      return {
        // Arrow's Map is a list of `entries` structs; the schema describes it so (APIFieldDescriber).
        type: {
          name: 'MAP',
          subSchema: [
            {
              type: {
                name: 'STRUCT',
                subSchema: [
                  { name: 'key', type: key.type },
                  { name: 'value', type: value.type },
                ],
              },
            },
          ],
        },
        // An object named by each key's text (DataJsonOutput.writeMap).
        json: (v) => {
          if (v === null) return 'null';
          if (!keyText) throw new Error(`unsupported type for a map key ${key.type.name}`);
          const entries = (v as { entries: Array<{ key: DuckDBValue; value: DuckDBValue }> }).entries;
          return `{${entries.map((e) => `${quote(keyText(e.key))}:${value.json(e.value)}`).join(',')}}`;
        },
      };
    }
    case DuckDBTypeId.UNION: {
      const members = t.memberTypes.map((m, i) => describeType(m, t.memberTags[i], floats));
      const tags = t.memberTags;
      return {
        type: { name: 'UNION', subSchema: members.map((m) => ({ type: m.type })) },
        json: (v) => {
          if (v === null) return 'null';
          const u = v as { tag: string; value: DuckDBValue };
          return members[tags.indexOf(u.tag)]?.json(u.value) ?? 'null';
        },
      };
    }
    case DuckDBTypeId.SQLNULL:
      return { type: { name: 'OTHER' }, json: () => 'null' };
    default:
      return simple('OTHER', (v) => quote(String(v)));
  }
}

/** A timestamp's milliseconds since the epoch, floored (a time before 1970 rounds down, as the service's do). */
export function timestampMillis(typeId: DuckDBTypeId, v: DuckDBValue): bigint {
  const o = v as { micros?: bigint; millis?: bigint; seconds?: bigint; nanos?: bigint };
  switch (typeId) {
    case DuckDBTypeId.TIMESTAMP_S:
      return o.seconds! * 1000n;
    case DuckDBTypeId.TIMESTAMP_MS:
      return o.millis!;
    case DuckDBTypeId.TIMESTAMP_NS:
      return floorDiv(o.nanos!, 1_000_000n);
    default:
      return floorDiv(o.micros!, 1000n);
  }
}

/**
 * Column names made unique as the service's planner does (`a`, `a0`, `a1`…), since rows are objects keyed
 * by name.
 */
export function uniqueNames(names: string[]): string[] {
  const seen = new Set<string>();
  return names.map((n) => {
    let name = n;
    for (let i = 0; seen.has(name.toLowerCase()); i++) name = `${n}${i}`;
    seen.add(name.toLowerCase());
    return name;
  });
}

/**
 * Reads the result chunk by chunk into each row's JSON text (a million rows of `big` take about a second).
 */
async function convertResult(
  result: DuckDBResult,
  floats: FloatText,
  signal?: AbortSignal,
): Promise<QueryResult> {
  const names = uniqueNames(result.columnNames());
  const described = result.columnTypes().map((t, i) => describeType(t, names[i], floats));
  const writers = described.map((d) => d.json);
  const keys = names.map((n) => `${JSON.stringify(n)}:`);
  const width = names.length;
  const rows: string[] = [];
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    if (signal?.aborted) throw new Error('Interrupted');
    for (const src of chunk.getRows()) {
      let row = '{';
      for (let c = 0; c < width; c++) row += (c ? ',' : '') + keys[c] + writers[c]!(src[c] ?? null);
      rows.push(`${row}}`);
    }
  }
  return { schema: names.map((name, i) => ({ name, type: described[i]!.type })), rows };
}
