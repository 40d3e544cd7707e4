// The one table of column types of the delivery pipeline (docs/architecture.md "Delivery"): every column an
// export writes has one of these types, whichever transport brought it — a REST results schema's type (with its
// `subSchema` for nested columns: `columnTypeOfResult` below) or an Arrow field, in any of its encodings
// (flight/arrow-types.ts). Every writer works from it: the text formats' canonical value texts (values.ts,
// rest-cells.ts, flight/arrow-cells.ts) and the Parquet types (parquet-schema.ts). It needs no Arrow library.
import type { ResultField } from '../api/jobs.js';

/** Nanoseconds per unit of a TIME or TIMESTAMP value (seconds, milliseconds, microseconds, nanoseconds). */
export type UnitNanos = 1_000_000_000 | 1_000_000 | 1000 | 1;

export type ColumnType =
  | { kind: 'varchar' }
  | { kind: 'varbinary' }
  | { kind: 'boolean' }
  | { kind: 'integer'; bits: 8 | 16 | 32 | 64; unsigned: boolean }
  /** FLOAT (32 bits, or an Arrow half float's 16) or DOUBLE (64). */
  | { kind: 'float'; bits: 16 | 32 | 64 }
  | { kind: 'decimal'; precision: number; scale: number }
  | { kind: 'date' }
  | { kind: 'time'; unit: UnitNanos }
  /** `zoned`: the source type has a time zone (its values are instants, shown in UTC). */
  | { kind: 'timestamp'; unit: UnitNanos; zoned: boolean }
  /** INTERVAL YEAR TO MONTH, DAY TO SECOND, or Arrow's month-day-nano and durations: an ISO 8601 duration. */
  | { kind: 'interval' }
  | { kind: 'list'; element: ColumnType }
  | { kind: 'struct'; fields: readonly { name: string; type: ColumnType }[] }
  | { kind: 'map'; key: ColumnType; value: ColumnType }
  /** A column of nulls only (the service's OTHER). */
  | { kind: 'null' }
  /** A type this table does not know (a REST type name of another service version): written as given. */
  | { kind: 'other'; name: string };

/** The type as the service names it (DECIMAL(38, 2), LIST<INTEGER>), for messages. */
export function serviceTypeName(t: ColumnType): string {
  switch (t.kind) {
    case 'integer':
      return { 8: 'TINYINT', 16: 'SMALLINT', 32: 'INTEGER', 64: 'BIGINT' }[t.bits];
    case 'float':
      return t.bits === 64 ? 'DOUBLE' : 'FLOAT';
    case 'decimal':
      return `DECIMAL(${t.precision}, ${t.scale})`;
    case 'list':
      return `LIST<${serviceTypeName(t.element)}>`;
    case 'struct':
      return `STRUCT<${t.fields.map((f) => `${f.name} ${serviceTypeName(f.type)}`).join(', ')}>`;
    case 'map':
      return `MAP<${serviceTypeName(t.key)}, ${serviceTypeName(t.value)}>`;
    case 'other':
      return t.name;
    default:
      return t.kind.toUpperCase();
  }
}

type ResultType = ResultField['type'];
interface SubField {
  name?: unknown;
  type?: ResultType;
}

/** The column type of a REST results schema's type (the service's type names, docs/api-facts.md §16; nested ones by their subSchema). */
export function columnTypeOfResult(type: ResultType | undefined): ColumnType {
  const name = String(type?.name ?? '').toUpperCase();
  const sub = Array.isArray(type?.subSchema) ? (type.subSchema as SubField[]) : [];
  const child = (f: SubField | undefined): ColumnType => columnTypeOfResult(f?.type);
  switch (name) {
    case 'VARCHAR':
    case 'CHAR':
      return { kind: 'varchar' };
    case 'VARBINARY':
    case 'BINARY':
      return { kind: 'varbinary' };
    case 'BOOLEAN':
      return { kind: 'boolean' };
    case 'TINYINT':
      return { kind: 'integer', bits: 8, unsigned: false };
    case 'SMALLINT':
      return { kind: 'integer', bits: 16, unsigned: false };
    case 'INTEGER':
    case 'INT':
      return { kind: 'integer', bits: 32, unsigned: false };
    case 'BIGINT':
      return { kind: 'integer', bits: 64, unsigned: false };
    case 'FLOAT':
      return { kind: 'float', bits: 32 };
    case 'DOUBLE':
      return { kind: 'float', bits: 64 };
    case 'DECIMAL': {
      const precision = Number(type?.precision ?? 38);
      const scale = Number(type?.scale ?? 0);
      return Number.isInteger(precision) && Number.isInteger(scale) && precision > 0 && scale >= 0
        ? { kind: 'decimal', precision, scale }
        : { kind: 'other', name };
    }
    case 'DATE':
      return { kind: 'date' };
    case 'TIME':
      return { kind: 'time', unit: 1_000_000 };
    case 'TIMESTAMP':
      return { kind: 'timestamp', unit: 1_000_000, zoned: false };
    case 'INTERVAL DAY TO SECOND':
    case 'INTERVAL YEAR TO MONTH':
    case 'INTERVAL':
      return { kind: 'interval' };
    case 'LIST':
      return sub.length >= 1 ? { kind: 'list', element: child(sub[0]) } : { kind: 'other', name };
    case 'STRUCT':
      return {
        kind: 'struct',
        fields: sub.map((f, i) => ({ name: typeof f?.name === 'string' ? f.name : `$${i}`, type: child(f) })),
      };
    case 'MAP': {
      // The service describes a MAP by its one `entries` STRUCT of `key` and `value` (docs/api-facts.md §16).
      const entries =
        sub.length === 1 && Array.isArray(sub[0]?.type?.subSchema)
          ? (sub[0]!.type!.subSchema as SubField[])
          : sub;
      const key = entries.find((f) => f?.name === 'key') ?? entries[0];
      const value = entries.find((f) => f?.name === 'value') ?? entries[1];
      return key && value ? { kind: 'map', key: child(key), value: child(value) } : { kind: 'other', name };
    }
    case 'OTHER':
    case 'NULL':
      return { kind: 'null' };
    default:
      return { kind: 'other', name };
  }
}
