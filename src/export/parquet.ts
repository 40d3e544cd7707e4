// Parquet export (docs: README "Export at scale", docs/architecture.md "Parquet"): typed columns from the
// job's schema, written a row group at a time as pages (REST) or record batches (Flight) arrive, so memory holds
// one row group whatever the row count. Each column's cells are PLAIN-encoded as they come into a ColumnBuffer
// (export/parquet-columns.ts), which compresses each page as it fills; hyparquet-writer writes the footer. A
// row group ends once its columns hold about GROUP_BYTES of encoded values, so a wide or text-heavy result does
// not hold more.
// For --resume, `state()` is the metadata of the row groups written so far (the footer lists them at the end);
// a formatter given it back continues the file after them, byte for byte as if it had never stopped.
//   VARCHAR → string · BIGINT → int64 · INTEGER/SMALLINT/TINYINT → int32 · DOUBLE → double · FLOAT → float
//   BOOLEAN → boolean · DATE → date · TIMESTAMP → timestamp (ms, UTC) · DECIMAL(p,s) → decimal(p,s)
//   anything else (LIST, STRUCT, TIME, INTERVAL, …) → its JSON text as a string.
// Every column is OPTIONAL: null stays null, and the empty string stays an empty string.
//
// The interface a delivery pipeline uses: `head` (the bytes that open the file), `page(rows)` for REST pages
// (or ParquetBatchFormatter's `batch(batch)` for Flight's, export/parquet-arrow.ts, which fills the buffers
// through `columns()` and `filled()`), and `tail()`; each returns the bytes to append next (possibly none). The
// bytes returned are the caller's to keep: nothing here writes into them again. `held` and `state()` are for
// --resume.
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { JsonNumber, stringifyExact } from '../api/exact-json.js';
import type { ResultField, ResultRow } from '../api/jobs.js';
import { ServiceError } from '../errors.js';
import { ColumnBuffer, PAGE_BYTES } from './parquet-columns.js';
import { decodeState, encodeState } from './parquet-state.js';
import { cellOf } from './writers.js';

type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]['schema'][number];

/** Encoded values buffered before a row group is written. */
const GROUP_BYTES = 2 * 1024 * 1024;
const DAY_MS = 86_400_000;

/** One column of the file: its schema element, its buffer, and how a REST cell (not null) goes into it. */
export interface ParquetColumn {
  name: string;
  /** The service's type name (upper case), which picked the Parquet type. */
  type: string;
  element: SchemaElement;
  buffer: ColumnBuffer;
  put: (v: unknown) => void;
}

/** Where a resumed export continues FILE.partial: after `bytes` bytes, the writer's row groups restored. */
interface ParquetResume {
  bytes: number;
  state: unknown;
}

interface ParquetOptions {
  /** Encoded bytes per row group (default GROUP_BYTES). */
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
  private readonly cols: ParquetColumn[];
  private readonly out = new ByteWriter();
  private readonly writer: ParquetWriter;
  private readonly groupBytes: number;

  constructor(schema: readonly ResultField[], opts: ParquetOptions = {}) {
    this.cols = schema.map((f) => column(f));
    this.writer = new ParquetWriter({
      writer: this.out,
      schema: [{ name: 'root', num_children: this.cols.length }, ...this.cols.map((c) => c.element)],
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

  /** Rows given that are not yet in the bytes handed out (the row group being filled). */
  get held(): number {
    return this.cols[0]?.buffer.rows ?? 0;
  }

  /** Rows of one page: buffered, and a row group's bytes once enough are (else an empty string). */
  page(rows: readonly ResultRow[]): Uint8Array | string {
    for (const c of this.cols) {
      const { name, put, buffer } = c;
      for (let r = 0; r < rows.length; r++) {
        const v = cellOf(rows[r]!, name);
        if (v === null || v === undefined) buffer.null();
        else put(v);
      }
    }
    return this.filled();
  }

  /**
   * The columns, for a caller that appends to their buffers itself (the same number of rows to each, with
   * values of each column's Parquet type), then calls `filled()`.
   */
  columns(): readonly ParquetColumn[] {
    return this.cols;
  }

  /** After rows were appended: a row group's bytes once enough are buffered (else an empty string). */
  filled(): Uint8Array | string {
    let bytes = 0;
    for (const c of this.cols) {
      if (c.buffer.size >= PAGE_BYTES) c.buffer.endPage();
      bytes += c.buffer.plainBytes;
    }
    return bytes >= this.groupBytes ? this.flush() : '';
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
    const s = writerState(encoded, this.cols.length);
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
    const rows = this.held;
    if (rows === 0) return new Uint8Array(0);
    const w = this.writer;
    const start = this.out.offset;
    const columns = this.cols.map((c) => {
      if (c.buffer.rows !== rows)
        throw new Error(`column ${c.name} holds ${c.buffer.rows} rows, not ${rows}`);
      const written = c.buffer.write(this.out, c.name);
      w.pendingIndexes.push(written);
      return written.chunk;
    });
    let total_byte_size = 0n;
    for (const { meta_data } of columns) total_byte_size += meta_data?.total_uncompressed_size ?? 0n;
    w.num_rows += BigInt(rows);
    w.row_groups.push({
      columns,
      total_byte_size,
      num_rows: BigInt(rows),
      total_compressed_size: BigInt(this.out.offset - start),
    });
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

function column(field: ResultField): ParquetColumn {
  const name = field.name;
  const optional = { name, repetition_type: 'OPTIONAL' } as const;
  const type = String(field.type?.name ?? '').toUpperCase();
  const make = (
    element: SchemaElement,
    put: (b: ColumnBuffer) => (v: unknown) => void,
    minMax = true,
  ): ParquetColumn => {
    const buffer = new ColumnBuffer(element, minMax);
    return { name, type, element, buffer, put: put(buffer) };
  };
  const text = (b: ColumnBuffer) => (v: unknown) => b.text(typeof v === 'string' ? v : stringifyExact(v));
  switch (type) {
    case 'VARCHAR':
    case 'CHAR':
      return make({ ...optional, type: 'BYTE_ARRAY', converted_type: 'UTF8' }, text);
    case 'BIGINT':
      return make({ ...optional, type: 'INT64' }, (b) => (v) => b.int64(integer(name, v)));
    case 'INTEGER':
    case 'SMALLINT':
    case 'TINYINT':
      return make({ ...optional, type: 'INT32' }, (b) => (v) => {
        const n = integer(name, v);
        if (BigInt.asIntN(32, n) !== n) throw badValue(name, v, 'a 32-bit integer');
        b.int32(Number(n));
      });
    case 'DOUBLE':
      return make({ ...optional, type: 'DOUBLE' }, (b) => (v) => b.double(float(name, v)));
    case 'FLOAT':
      return make({ ...optional, type: 'FLOAT' }, (b) => (v) => b.float(float(name, v)));
    case 'BOOLEAN':
      return make({ ...optional, type: 'BOOLEAN' }, (b) => (v) => {
        if (typeof v === 'boolean') return b.boolean(v);
        if (v === 'true' || v === 'false') return b.boolean(v === 'true');
        throw badValue(name, v, 'BOOLEAN');
      });
    case 'DATE':
      return make({ ...optional, type: 'INT32', converted_type: 'DATE' }, (b) => (v) => {
        const ms = Date.parse(`${String(v).slice(0, 10)}T00:00:00Z`);
        if (!Number.isFinite(ms)) throw badValue(name, v, 'DATE');
        b.int32(Math.round(ms / DAY_MS));
      });
    case 'TIMESTAMP':
      return make(
        {
          ...optional,
          type: 'INT64',
          converted_type: 'TIMESTAMP_MILLIS',
          logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
        },
        (b) => (v) => {
          // The service writes `YYYY-MM-DD HH:MM:SS.fff` in UTC; an ISO form is accepted as well.
          const text = String(v).replace(' ', 'T');
          const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`);
          if (!Number.isFinite(ms)) throw badValue(name, v, 'TIMESTAMP');
          b.int64(BigInt(ms));
        },
      );
    case 'DECIMAL': {
      const precision = Number(field.type.precision ?? 38);
      const scale = Number(field.type.scale ?? 0);
      const element: SchemaElement = {
        ...optional,
        type: precision <= 18 ? 'INT64' : 'BYTE_ARRAY',
        converted_type: 'DECIMAL',
        precision,
        scale,
        logical_type: { type: 'DECIMAL', precision, scale },
      };
      // A wide decimal's bytes (big-endian two's complement) do not sort as unsigned bytes: no min/max.
      return make(element, (b) => (v) => putDecimal(b, element, unscaled(name, v, scale)), precision <= 18);
    }
    default:
      return make({ ...optional, type: 'BYTE_ARRAY', converted_type: 'UTF8' }, text);
  }
}

/** A decimal's unscaled value into its column: an int64, or its big-endian two's complement bytes. */
export function putDecimal(b: ColumnBuffer, element: SchemaElement, n: bigint): void {
  if (b.physical === 'INT64') {
    if (BigInt.asIntN(64, n) !== n)
      throw new ServiceError(`decimal ${n} does not fit DECIMAL(${element.precision})`);
    b.int64(n);
    return;
  }
  const bytes = twosComplement(n);
  b.bytes(bytes, 0, bytes.length);
}

/** The fewest big-endian bytes holding `n` in two's complement (none for 0, as Parquet's decimals allow). */
function twosComplement(n: bigint): Uint8Array {
  const bytes: number[] = [];
  for (let v = n; v !== 0n && v !== -1n; v >>= 8n) bytes.push(Number(v & 0xffn));
  // One more byte when the top bit would read as the wrong sign.
  const top = bytes.at(-1);
  if (n < 0n && (top === undefined || top < 0x80)) bytes.push(0xff);
  if (n > 0n && top! >= 0x80) bytes.push(0);
  return Uint8Array.from(bytes.reverse());
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
