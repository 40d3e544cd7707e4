// The one map of column types of the delivery pipeline (docs/architecture.md "Delivery"): each Arrow type a
// Flight stream may carry, as the service's own type name (what a REST results schema says, and so what
// picks the Parquet type in parquet.ts) and as the kind of cell the text writers write, so that a file is
// the same bytes whichever transport brought its rows. A type not in this map is refused by its name before
// anything is written, never printed as its raw bits. Loaded only on a Flight path (it needs apache-arrow).
//   Utf8, LargeUtf8 → VARCHAR · Binary, LargeBinary → VARBINARY (base64, as the REST answer holds bytes)
//   Int8/16/32/64, UInt8/16/32 → TINYINT/SMALLINT/INTEGER/BIGINT · Float16, Float32 → FLOAT (a number)
//   Float64 → DOUBLE · Bool → BOOLEAN · Date → DATE · Timestamp → TIMESTAMP · Time → TIME
//   Decimal128(p,s) → DECIMAL(p,s) · Null → NULL (every cell null)
import type { DataType, Field, Schema } from 'apache-arrow';
import { Type } from 'apache-arrow';
import type { ResultField } from '../api/jobs.js';
import { ServiceError } from '../errors.js';

/** How a cell is written. */
export type ColumnKind =
  | 'text'
  | 'binary'
  | 'number'
  | 'half'
  | 'bool'
  | 'null'
  | 'date'
  | 'timestamp'
  | 'time'
  | 'decimal';

interface ColumnType {
  kind: ColumnKind;
  service: ResultField['type'];
}

type Typed = DataType & { bitWidth?: number; isSigned?: boolean; precision?: number; scale?: number };

/** The column's type in the map, or undefined for a type the writers do not know. */
function lookup(type: Typed): ColumnType | undefined {
  switch (type.typeId) {
    case Type.Utf8:
    case Type.LargeUtf8:
      return { kind: 'text', service: { name: 'VARCHAR' } };
    case Type.Binary:
    case Type.LargeBinary:
      return { kind: 'binary', service: { name: 'VARBINARY' } };
    case Type.Int: {
      // An unsigned integer takes the next signed width; UInt64 has none that holds every value.
      const bits = (type.bitWidth ?? 0) * (type.isSigned === false ? 2 : 1);
      const name = { 8: 'TINYINT', 16: 'SMALLINT', 32: 'INTEGER', 64: 'BIGINT' }[bits];
      return name ? { kind: 'number', service: { name } } : undefined;
    }
    case Type.Float:
      // Arrow's float precision: 0 half, 1 single, 2 double. A half float's cells are its 16 bits, decoded.
      if (type.precision === 0) return { kind: 'half', service: { name: 'FLOAT' } };
      return { kind: 'number', service: { name: type.precision === 2 ? 'DOUBLE' : 'FLOAT' } };
    case Type.Bool:
      return { kind: 'bool', service: { name: 'BOOLEAN' } };
    case Type.Null:
      return { kind: 'null', service: { name: 'NULL' } };
    case Type.Date:
      return { kind: 'date', service: { name: 'DATE' } };
    case Type.Timestamp:
      return { kind: 'timestamp', service: { name: 'TIMESTAMP' } };
    case Type.Time:
      return { kind: 'time', service: { name: 'TIME' } };
    case Type.Decimal:
      if ((type.bitWidth ?? 128) !== 128) return undefined;
      return {
        kind: 'decimal',
        service: { name: 'DECIMAL', precision: type.precision, scale: type.scale },
      };
    default:
      return undefined;
  }
}

/** The type of `field`, or the refusal naming it (exit 7: the stream holds what dlake cannot write). */
function columnType(field: Field): ColumnType {
  const t = lookup(field.type as Typed);
  if (t) return t;
  throw new ServiceError(
    `cannot write column ${JSON.stringify(field.name)}: the Flight stream gives it the type ${String(field.type)}, which the export does not write`,
    { hint: 'export it over REST (--transport rest), which writes every type the service answers with' },
  );
}

/** The kind of each column of `schema` (throws for a type the writers do not know). */
export const columnKinds = (schema: Schema): ColumnKind[] => schema.fields.map((f) => columnType(f).kind);

/** The columns of `schema` as a REST results schema names them (throws for a type the writers do not know). */
export const serviceFields = (schema: Schema): ResultField[] =>
  schema.fields.map((f) => ({ name: f.name, type: columnType(f).service }));

/** An IEEE 754 half float's value from its 16 bits. */
export function halfToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) return frac ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}
