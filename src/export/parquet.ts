// Parquet export (docs: README "Export at scale"): typed columns from the job's schema, written a row group at
// a time as pages arrive, so memory holds one row group whatever the row count. hyparquet-writer encodes; this
// module maps the service's types and values onto Parquet's and hands out each row group's bytes.
//   VARCHAR → string · BIGINT → int64 · INTEGER/SMALLINT/TINYINT → int32 · DOUBLE → double · FLOAT → float
//   BOOLEAN → boolean · DATE → date · TIMESTAMP → timestamp (ms, UTC) · DECIMAL(p,s) → decimal(p,s)
//   anything else (LIST, STRUCT, TIME, INTERVAL, …) → its JSON text as a string.
// Every column is OPTIONAL: null stays null, and the empty string stays an empty string.
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { JsonNumber, stringifyExact } from '../api/exact-json.js';
import type { ResultField, ResultRow } from '../api/jobs.js';
import { ServiceError } from '../errors.js';

type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]['schema'][number];

/** Cells buffered before a row group is written: about 20 MB of JS values at the most. */
const CELLS_PER_GROUP = 500_000;
const DAY_MS = 86_400_000;

interface Column {
  name: string;
  element: SchemaElement;
  /** One cell as the encoder wants it (null for SQL NULL). */
  convert: (v: unknown) => unknown;
  values: unknown[];
}

export class ParquetFormatter {
  readonly head: Uint8Array;
  private readonly columns: Column[];
  private readonly out = new ByteWriter();
  private readonly writer: ParquetWriter;
  private readonly groupRows: number;
  private buffered = 0;

  /** `groupRows`: rows per row group (default: CELLS_PER_GROUP cells). */
  constructor(schema: readonly ResultField[], groupRows?: number) {
    this.columns = schema.map((f) => column(f));
    this.writer = new ParquetWriter({
      writer: this.out,
      schema: [{ name: 'root', num_children: this.columns.length }, ...this.columns.map((c) => c.element)],
      createdBy: 'dlake',
    });
    this.head = this.take();
    this.groupRows =
      groupRows ?? Math.max(500, Math.floor(CELLS_PER_GROUP / Math.max(1, this.columns.length)));
  }

  /** Rows of one page: buffered, and a row group's bytes once enough are (else an empty string). */
  page(rows: readonly ResultRow[]): Uint8Array | string {
    for (const c of this.columns) {
      const { name, convert, values } = c;
      for (let r = 0; r < rows.length; r++) {
        const v = rows[r]![name];
        values.push(v === null || v === undefined ? null : convert(v));
      }
    }
    this.buffered += rows.length;
    return this.buffered >= this.groupRows ? this.flush() : '';
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
    return this.take();
  }

  /** The bytes encoded since the last take; the buffer is then reused. */
  private take(): Uint8Array {
    const bytes = Buffer.from(this.out.getBytes());
    this.out.index = 0;
    return bytes;
  }
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
