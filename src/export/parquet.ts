// Parquet export (docs: README "Export at scale"): typed columns from the job's schema, written a row group at
// a time as pages arrive, so memory holds one row group whatever the row count. hyparquet-writer encodes; this
// module maps the service's types and values onto Parquet's and hands out each row group's bytes. A row group
// ends once its cells hold about GROUP_BYTES of data, so a wide or text-heavy result does not hold more.
// For --resume, `state()` is the metadata of the row groups written so far (the footer lists them at the end);
// a formatter given it back continues the file after them, byte for byte as if it had never stopped.
//   VARCHAR → string · BIGINT → int64 · INTEGER/SMALLINT/TINYINT → int32 · DOUBLE → double · FLOAT → float
//   BOOLEAN → boolean · DATE → date · TIMESTAMP → timestamp (ms, UTC) · DECIMAL(p,s) → decimal(p,s)
//   anything else (LIST, STRUCT, TIME, INTERVAL, …) → its JSON text as a string.
// Every column is OPTIONAL: null stays null, and the empty string stays an empty string.
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { JsonNumber, stringifyExact } from '../api/exact-json.js';
import type { ResultField, ResultRow } from '../api/jobs.js';
import { ServiceError } from '../errors.js';
import { decodeState, encodeState } from './parquet-state.js';
import { cellOf } from './writers.js';

type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]['schema'][number];

/** Data (string lengths, 8 bytes for any other value) buffered before a row group is written. */
const GROUP_BYTES = 2 * 1024 * 1024;
const DAY_MS = 86_400_000;

interface Column {
  name: string;
  element: SchemaElement;
  /** One cell as the encoder wants it (null for SQL NULL). */
  convert: (v: unknown) => unknown;
  /** Strings are counted by their length, any other value as 8 bytes. */
  text: boolean;
  values: unknown[];
}

/** Where a resumed export continues FILE.partial: after `bytes` bytes, the writer's row groups restored. */
interface ParquetResume {
  bytes: number;
  state: unknown;
}

interface ParquetOptions {
  /** Data per row group (default GROUP_BYTES). */
  groupBytes?: number;
  resume?: ParquetResume;
}

/** The writer's state that the footer is made of; everything else it holds is its options. */
interface WriterState {
  row_groups: ParquetWriter['row_groups'];
  num_rows: bigint;
  pendingIndexes: ParquetWriter['pendingIndexes'];
}

export class ParquetFormatter {
  readonly head: Uint8Array;
  private readonly columns: Column[];
  private readonly out = new ByteWriter();
  private readonly writer: ParquetWriter;
  private readonly groupBytes: number;
  /** Rows and data buffered for the next row group. */
  private buffered = 0;
  private bufferedBytes = 0;

  constructor(schema: readonly ResultField[], opts: ParquetOptions = {}) {
    this.columns = schema.map((f) => column(f));
    this.writer = new ParquetWriter({
      writer: this.out,
      schema: [{ name: 'root', num_children: this.columns.length }, ...this.columns.map((c) => c.element)],
      createdBy: 'dlake',
    });
    this.head = this.take();
    this.groupBytes = opts.groupBytes ?? GROUP_BYTES;
    if (opts.resume) {
      // The magic bytes are already in FILE.partial: go on after its last complete row group.
      this.head = new Uint8Array(0);
      this.out.offset = opts.resume.bytes;
      this.restore(opts.resume.state);
    }
  }

  /** Rows given to `page` that are not yet in the bytes it handed out (the row group being filled). */
  get held(): number {
    return this.buffered;
  }

  /** Rows of one page: buffered, and a row group's bytes once enough are (else an empty string). */
  page(rows: readonly ResultRow[]): Uint8Array | string {
    let bytes = 0;
    for (const c of this.columns) {
      const { name, convert, values, text } = c;
      for (let r = 0; r < rows.length; r++) {
        const v = cellOf(rows[r]!, name);
        if (v === null || v === undefined) values.push(null);
        else {
          const cell = convert(v);
          values.push(cell);
          bytes += text ? (cell as string).length : 8;
        }
      }
    }
    this.buffered += rows.length;
    this.bufferedBytes += bytes;
    return this.bufferedBytes >= this.groupBytes ? this.flush() : '';
  }

  /**
   * Rows given column by column (an Arrow batch's, export/flight/batch-writers.ts), each value already what
   * the encoder takes for its column (null for NULL); `bytes` counts them as `page` would.
   */
  pageColumns(columns: readonly (readonly unknown[])[], rows: number, bytes: number): Uint8Array | string {
    for (let c = 0; c < this.columns.length; c++) {
      const values = this.columns[c]!.values;
      const given = columns[c]!;
      for (let r = 0; r < rows; r++) values.push(given[r]);
    }
    this.buffered += rows;
    this.bufferedBytes += bytes;
    return this.bufferedBytes >= this.groupBytes ? this.flush() : '';
  }

  /**
   * The metadata of the row groups handed out so far, JSON-safe (for the sidecar). Taken between row groups
   * (`held` is 0), it is all a formatter needs to continue the file.
   */
  state(): unknown {
    const w = this.writer;
    return encodeState({
      row_groups: w.row_groups,
      num_rows: w.num_rows,
      // Each entry's `chunk` is the column chunk in row_groups (the page indexes fill in its offsets at the
      // end): kept once, and joined again on restore.
      pendingIndexes: w.pendingIndexes.map(({ chunk: _, ...rest }) => rest),
    });
  }

  private restore(encoded: unknown): void {
    const s = writerState(encoded, this.columns.length);
    if (!s) throw new Error('not the state of a Parquet export');
    const chunks = s.row_groups.flatMap((g) => g.columns);
    this.writer.row_groups = s.row_groups;
    this.writer.num_rows = s.num_rows;
    this.writer.pendingIndexes = s.pendingIndexes.map((p, i) => ({ ...p, chunk: chunks[i]! }));
  }

  /** The last row group, the footer. */
  tail(): Uint8Array {
    const last = this.flush();
    this.writer.finish();
    return concat(last, this.take());
  }

  private flush(): Uint8Array {
    if (this.buffered === 0) return new Uint8Array(0);
    const columnData = this.columns.map((c) => ({ name: c.name, data: c.values }));
    this.writer.write({ columnData, rowGroupSize: this.buffered });
    for (const c of this.columns) c.values = [];
    this.buffered = 0;
    this.bufferedBytes = 0;
    return this.take();
  }

  /** The bytes encoded since the last take; the buffer is then reused. */
  private take(): Uint8Array {
    const bytes = Buffer.from(this.out.getBytes());
    this.out.index = 0;
    return bytes;
  }
}

/**
 * The writer state in a sidecar, if it has the shape `state()` gives: row groups of `width` column chunks
 * each (any width when undefined), one page index entry a chunk, and the row count they add up to.
 */
export function writerState(encoded: unknown, width?: number): WriterState | undefined {
  let s: Partial<WriterState>;
  try {
    s = decodeState(encoded) as Partial<WriterState>;
  } catch {
    return undefined;
  }
  if (!s || !Array.isArray(s.row_groups) || !Array.isArray(s.pendingIndexes)) return undefined;
  if (typeof s.num_rows !== 'bigint') return undefined;
  let rows = 0n;
  let chunks = 0;
  for (const g of s.row_groups) {
    if (!g || !Array.isArray(g.columns) || typeof g.num_rows !== 'bigint') return undefined;
    if (width !== undefined && g.columns.length !== width) return undefined;
    rows += g.num_rows;
    chunks += g.columns.length;
  }
  if (rows !== s.num_rows || chunks !== s.pendingIndexes.length) return undefined;
  return s as WriterState;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  return a.length === 0 ? b : Buffer.concat([a, b]);
}

function column(field: ResultField): Column {
  const name = field.name;
  const optional = { name, repetition_type: 'OPTIONAL' } as const;
  const make = (element: SchemaElement, convert: (v: unknown) => unknown): Column => ({
    name,
    element,
    convert,
    text: element.type === 'BYTE_ARRAY' && element.converted_type === 'UTF8',
    values: [],
  });
  const type = String(field.type?.name ?? '').toUpperCase();
  switch (type) {
    case 'VARCHAR':
    case 'CHAR':
      return make({ ...optional, type: 'BYTE_ARRAY', converted_type: 'UTF8' }, (v) =>
        typeof v === 'string' ? v : stringifyExact(v),
      );
    case 'BIGINT':
      return make({ ...optional, type: 'INT64' }, (v) => integer(name, v));
    case 'INTEGER':
    case 'SMALLINT':
    case 'TINYINT':
      return make({ ...optional, type: 'INT32' }, (v) => Number(integer(name, v)));
    case 'DOUBLE':
      return make({ ...optional, type: 'DOUBLE' }, (v) => float(name, v));
    case 'FLOAT':
      return make({ ...optional, type: 'FLOAT' }, (v) => float(name, v));
    case 'BOOLEAN':
      return make({ ...optional, type: 'BOOLEAN' }, (v) => {
        if (typeof v === 'boolean') return v;
        if (v === 'true' || v === 'false') return v === 'true';
        throw badValue(name, v, 'BOOLEAN');
      });
    case 'DATE':
      return make({ ...optional, type: 'INT32', converted_type: 'DATE' }, (v) => {
        const ms = Date.parse(`${String(v).slice(0, 10)}T00:00:00Z`);
        if (!Number.isFinite(ms)) throw badValue(name, v, 'DATE');
        return Math.round(ms / DAY_MS);
      });
    case 'TIMESTAMP':
      return make(
        {
          ...optional,
          type: 'INT64',
          converted_type: 'TIMESTAMP_MILLIS',
          logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
        },
        (v) => {
          // The service writes `YYYY-MM-DD HH:MM:SS.fff` in UTC; an ISO form is accepted as well.
          const text = String(v).replace(' ', 'T');
          const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`);
          if (!Number.isFinite(ms)) throw badValue(name, v, 'TIMESTAMP');
          return BigInt(ms);
        },
      );
    case 'DECIMAL': {
      const precision = Number(field.type.precision ?? 38);
      const scale = Number(field.type.scale ?? 0);
      const small = precision <= 18;
      return make(
        {
          ...optional,
          type: small ? 'INT64' : 'BYTE_ARRAY',
          converted_type: 'DECIMAL',
          precision,
          scale,
          logical_type: { type: 'DECIMAL', precision, scale },
        },
        (v) => unscaled(name, v, scale),
      );
    }
    default:
      return make({ ...optional, type: 'BYTE_ARRAY', converted_type: 'UTF8' }, (v) =>
        typeof v === 'string' ? v : stringifyExact(v),
      );
  }
}

const textOf = (v: unknown): string => (v instanceof JsonNumber ? v.text : String(v));

function integer(name: string, v: unknown): bigint {
  // Most ids are plain numbers: no trip through their text.
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  const text = textOf(v);
  if (!/^-?\d+$/.test(text)) throw badValue(name, v, 'an integer');
  return BigInt(text);
}

function float(name: string, v: unknown): number {
  const n = typeof v === 'number' ? v : Number(textOf(v));
  if (Number.isNaN(n) && textOf(v) !== 'NaN') throw badValue(name, v, 'a number');
  return n;
}

/** A decimal's digits as an integer scaled by 10^scale, exactly (no trip through a double). */
export function unscaled(name: string, v: unknown, scale: number): bigint {
  const m = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(textOf(v));
  if (!m || (m[2] === '' && !m[3])) throw badValue(name, v, 'a decimal');
  const [, sign, whole = '', frac = '', exp] = m;
  // Move the point by the exponent, then pad or round the fraction to `scale` digits.
  let digits = whole + frac;
  let point = whole.length + Number(exp ?? 0);
  if (point < 0) {
    digits = '0'.repeat(-point) + digits;
    point = 0;
  }
  digits = digits.padEnd(point, '0');
  const intPart = digits.slice(0, point) || '0';
  const fracPart = digits.slice(point);
  let n = BigInt(intPart + fracPart.slice(0, scale).padEnd(scale, '0'));
  if ((fracPart[scale] ?? '0') >= '5') n += 1n;
  return sign ? -n : n;
}

function badValue(name: string, v: unknown, what: string): ServiceError {
  return new ServiceError(
    `cannot write column ${JSON.stringify(name)} as Parquet: ${JSON.stringify(textOf(v)).slice(0, 60)} is not ${what}`,
  );
}
