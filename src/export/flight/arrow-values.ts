// The value of an Arrow cell as the Parquet writer takes it (../rest-cells.ts `Value`, but a VARCHAR as its UTF-8
// bytes): a decimal its unscaled bigint, a date its day count, a list an array, a struct its fields' values in
// order, a map its [key, value] pairs; for the Parquet columns that are not copied from the Arrow buffers as they are (../parquet-arrow.ts): nested
// columns, dictionary-encoded ones and the rarer encodings. Conventions of apache-arrow's slices: ./arrow-cells.ts.
import { type Data, type DataType, Type, type Vector } from 'apache-arrow';
import type { ColumnType } from '../column-types.js';
import type { Cursor } from '../parquet-schema.js';
import { byteCells, halfToNumber, intervalOf, listStart, nullTest } from './arrow-cells.js';

type Typed = DataType & { unit?: number; bitWidth?: number };

/** The value of cell i of `data` (null for a null cell). */
export function arrowValues(data: Data, type: ColumnType): (i: number) => unknown {
  const isNull = nullTest(data);
  const value = present(data, type);
  return (i) => (isNull(i) ? null : value(i));
}

function present(data: Data, type: ColumnType): (i: number) => unknown {
  if (data.typeId === Type.Dictionary) {
    const indices = data.values as unknown as ArrayLike<number | bigint>;
    const dictionary = (data as unknown as { dictionary: Vector }).dictionary;
    const chunks = dictionary.data.map((d) => arrowValues(d, type));
    const starts = dictionary.data.map((_, c) =>
      dictionary.data.slice(0, c).reduce((n, d) => n + d.length, 0),
    );
    return (i) => {
      const k = Number(indices[i]!);
      let c = starts.length - 1;
      while (starts[c]! > k) c--;
      return chunks[c]!(k - starts[c]!);
    };
  }
  const t = data.type as Typed;
  const values = data.values as unknown as ArrayLike<number | bigint>;
  switch (type.kind) {
    // A VARCHAR as its UTF-8 bytes, which the Parquet column takes as they are (no string made and encoded again).
    case 'varchar':
    case 'varbinary': {
      const at = byteCells(data);
      return (i) => {
        const c = at(i);
        return c.bytes.subarray(c.from, c.to);
      };
    }
    case 'boolean': {
      const bits = data.values as Uint8Array;
      const off = data.offset;
      return (i) => (bits[(i + off) >> 3]! & (1 << ((i + off) & 7))) !== 0;
    }
    case 'integer':
    case 'time':
      return (i) => values[i]!;
    case 'float':
      return type.bits === 16 ? (i) => halfToNumber(values[i] as number) : (i) => values[i]!;
    case 'decimal': {
      const bits = t.bitWidth ?? 128;
      if (bits <= 64) return (i) => BigInt(values[i]!);
      const words = bits / 32;
      const v = data.values as unknown as Uint32Array;
      return (i) => {
        let n = 0n;
        for (let w = words - 1; w >= 0; w--) n = (n << 32n) | BigInt(v[i * words + w]!);
        return BigInt.asIntN(bits, n);
      };
    }
    case 'date': {
      const perDay = t.unit === 0 ? 1 : 86_400_000;
      return (i) => Math.floor(Number(values[i]!) / perDay);
    }
    case 'timestamp':
      return (i) => values[i]!;
    case 'interval':
      // The same ISO 8601 text as the text formats write.
      return intervalOf(data);
    case 'list': {
      const child = data.children[0]!;
      const element = arrowValues(child, type.element);
      const startOf = listStart(data);
      return (i) => {
        const start = startOf(i);
        const end = startOf(i + 1);
        const out = new Array(end - start);
        for (let k = start; k < end; k++) out[k - start] = element(k);
        return out;
      };
    }
    case 'map': {
      const entries = data.children[0]!;
      const key = arrowValues(entries.children[0]!, type.key);
      const value = arrowValues(entries.children[1]!, type.value);
      const startOf = listStart(data);
      return (i) => {
        const start = startOf(i);
        const end = startOf(i + 1);
        const out = new Array(end - start);
        for (let k = start; k < end; k++) out[k - start] = [key(k), value(k)];
        return out;
      };
    }
    case 'struct': {
      const fields = type.fields.map((f, c) => arrowValues(data.children[c]!, f.type));
      return (i) => fields.map((f) => f(i));
    }
    default:
      return () => null;
  }
}

/** A cursor over an Arrow column (../parquet-schema.ts): a nested column read without a JS value per cell. */
export function arrowCursor(data: Data, type: ColumnType): Cursor {
  const dictionary = (data as unknown as { dictionary?: Vector }).dictionary;
  if (data.typeId === Type.Dictionary && dictionary?.data.length === 1) {
    // Each row read at its index in the dictionary.
    const indices = data.values as unknown as ArrayLike<number | bigint>;
    const inner = arrowCursor(dictionary.data[0]!, type);
    const isNull = nullTest(data);
    const at = (i: number) => Number(indices[i]!);
    return {
      isNull: (i) => isNull(i) || inner.isNull(at(i)),
      start: (i) => inner.start(at(i)),
      end: (i) => inner.end(at(i)),
      child: (c) => inner.child(c),
      value: (i) => inner.value(at(i)),
    };
  }
  const nested = type.kind === 'list' || type.kind === 'map' || type.kind === 'struct';
  const startOf = nested && type.kind !== 'struct' ? listStart(data) : undefined;
  const children: Cursor[] = [];
  if (type.kind === 'list') children.push(arrowCursor(data.children[0]!, type.element));
  if (type.kind === 'map') {
    const entries = data.children[0]!;
    children.push(arrowCursor(entries.children[0]!, type.key), arrowCursor(entries.children[1]!, type.value));
  }
  if (type.kind === 'struct')
    type.fields.forEach((f, c) => {
      children.push(arrowCursor(data.children[c]!, f.type));
    });
  // A leaf (or a dictionary of several batches' deltas): its values as arrowValues reads them.
  const value = nested
    ? () => null
    : data.typeId === Type.Dictionary
      ? arrowValues(data, type)
      : present(data, type);
  const bytes =
    (type.kind === 'varchar' || type.kind === 'varbinary') && data.typeId !== Type.Dictionary
      ? byteCells(data)
      : undefined;
  return {
    isNull: nullTest(data),
    start: (i) => startOf!(i),
    end: (i) => startOf!(i + 1),
    child: (c) => children[c]!,
    value,
    bytes,
    fixed: nested || data.typeId === Type.Dictionary ? undefined : plainValues(data, type),
  };
}

/**
 * The values of a leaf whose Arrow buffer holds its Parquet column's PLAIN bytes: a signed 32- or 64-bit
 * integer (INT32, INT64) or a 32- or 64-bit float (FLOAT, DOUBLE); undefined for every other leaf.
 */
function plainValues(data: Data, type: ColumnType): Cursor['fixed'] {
  const v = data.values as unknown;
  if (type.kind === 'float')
    return (type.bits === 64 && v instanceof Float64Array) || (type.bits === 32 && v instanceof Float32Array)
      ? v
      : undefined;
  if (type.kind === 'integer' && !type.unsigned)
    return (type.bits === 64 && v instanceof BigInt64Array) || (type.bits === 32 && v instanceof Int32Array)
      ? v
      : undefined;
  return undefined;
}
