// Each Arrow type a Flight stream may carry, in any encoding, as its column type in the one table
// (../column-types.ts): Utf8/LargeUtf8/Utf8View → VARCHAR; Binary/LargeBinary/BinaryView/FixedSizeBinary →
// VARBINARY; Int* → the integers; Float16/32 → FLOAT, Float64 → DOUBLE; Decimal32/64/128/256 → DECIMAL;
// Date32/64 → DATE; Time32/64 → TIME and Timestamp (any unit, any zone) → TIMESTAMP; Interval (every unit) and
// Duration → INTERVAL; List/LargeList/FixedSizeList → LIST; Struct → STRUCT; Map → MAP; a dictionary-encoded
// column → its values' type; Null → a column of nulls. Anything else (Union, RunEndEncoded, the list views) is
// refused by its name before a byte is written (exit 7).
import type { DataType, Field, Schema } from 'apache-arrow';
import { Type } from 'apache-arrow';
import { ServiceError } from '../../errors.js';
import type { ColumnType, UnitNanos } from '../column-types.js';

type Typed = DataType & {
  bitWidth?: number;
  isSigned?: boolean;
  precision?: number;
  scale?: number;
  unit?: number;
  timezone?: string | null;
  dictionary?: DataType;
  indices?: DataType;
};

/** Arrow's TimeUnit (0 s, 1 ms, 2 µs, 3 ns) as nanoseconds per unit. */
const UNIT_NANOS: readonly UnitNanos[] = [1_000_000_000, 1_000_000, 1000, 1];

/** A type as Arrow's specification names it, with its parameters (`Decimal256(60, 2)`, `Timestamp(ms, UTC)`). */
export function arrowTypeName(type: DataType): string {
  const t = type as Typed;
  switch (t.typeId) {
    case Type.Decimal:
      return `Decimal${t.bitWidth ?? 128}(${t.precision}, ${t.scale})`;
    case Type.Dictionary:
      return `Dictionary<${arrowTypeName(t.indices!)}, ${arrowTypeName(t.dictionary!)}>`;
    case Type.List:
    case Type.LargeList:
    case Type.FixedSizeList:
      return `${Type[t.typeId]}<${arrowTypeName(t.children[0]!.type)}>`;
    case Type.Struct:
      return `Struct<${t.children.map((c) => `${c.name}: ${arrowTypeName(c.type)}`).join(', ')}>`;
    default: {
      const text = String(type);
      // apache-arrow's own names of unions and run-end encodings are not Arrow's: name them by the type id.
      return /^[A-Za-z0-9]+(<.*>)?$/.test(text) ? text : (Type[t.typeId] ?? text);
    }
  }
}

/** The column type of an Arrow type, or undefined for a type no writer takes. */
function columnTypeOfArrow(type: DataType): ColumnType | undefined {
  const t = type as Typed;
  switch (t.typeId) {
    case Type.Utf8:
    case Type.LargeUtf8:
    case Type.Utf8View:
      return { kind: 'varchar' };
    case Type.Binary:
    case Type.LargeBinary:
    case Type.BinaryView:
    case Type.FixedSizeBinary:
      return { kind: 'varbinary' };
    case Type.Int: {
      const bits = t.bitWidth as 8 | 16 | 32 | 64;
      return { kind: 'integer', bits, unsigned: t.isSigned === false };
    }
    case Type.Float:
      return { kind: 'float', bits: ([16, 32, 64] as const)[t.precision ?? 2]! };
    case Type.Bool:
      return { kind: 'boolean' };
    case Type.Decimal:
      return { kind: 'decimal', precision: t.precision!, scale: t.scale! };
    case Type.Date:
      return { kind: 'date' };
    case Type.Time:
      return { kind: 'time', unit: UNIT_NANOS[t.unit ?? 1]! };
    case Type.Timestamp:
      return { kind: 'timestamp', unit: UNIT_NANOS[t.unit ?? 1]!, zoned: !!t.timezone };
    case Type.Interval:
    case Type.Duration:
      return { kind: 'interval' };
    case Type.List:
    case Type.LargeList:
    case Type.FixedSizeList: {
      const element = columnTypeOfArrow(t.children[0]!.type);
      return element && { kind: 'list', element };
    }
    case Type.Struct: {
      const fields = t.children.map((c) => ({ name: c.name, type: columnTypeOfArrow(c.type) }));
      if (fields.some((f) => !f.type)) return undefined;
      return { kind: 'struct', fields: fields as { name: string; type: ColumnType }[] };
    }
    case Type.Map: {
      // A map's one child is the struct of its entries: a key and a value.
      const [key, value] = t.children[0]!.type.children.map((c: Field) => columnTypeOfArrow(c.type));
      return key && value ? { kind: 'map', key, value } : undefined;
    }
    case Type.Dictionary:
      return columnTypeOfArrow(t.dictionary!);
    case Type.Null:
      return { kind: 'null' };
    default:
      return undefined;
  }
}

/** The type of `field`'s column, or the refusal naming the type (exit 7: the stream holds what dlake cannot write). */
export function columnTypeOfField(field: Field): ColumnType {
  const t = columnTypeOfArrow(field.type);
  if (t) return t;
  throw new ServiceError(
    `cannot write column ${JSON.stringify(field.name)}: the Flight stream gives it the type ${arrowTypeName(field.type)}, which has no equivalent among the service's types`,
  );
}

/** The column types of `schema` (throws, naming the column, for a type no writer takes). */
export const columnTypes = (schema: Schema): ColumnType[] => schema.fields.map(columnTypeOfField);
