// A nested column of an Arrow record batch shredded into its Parquet leaves a whole batch at a time
// (docs/architecture.md "Parquet"): each level of the column's tree turns the slots of the level above (a place
// in its Arrow data, or none when a level above is null or an empty list; and the repetition level) into its own
// with typed-array loops, a list's into one slot an element, and each leaf takes its slots' levels and copies the
// values of the present ones from its Arrow buffers. The same levels as parquet-schema.ts's `put` and `from`, a
// row and a level at a time, give (the Dremel encoding), which remain for what this does not take: a dictionary-
// encoded or large-offset Arrow column, or a leaf whose Arrow bytes are not its Parquet values.
import { type Data, Type } from 'apache-arrow';
import { ServiceError } from '../errors.js';
import type { ColumnType } from './column-types.js';
import type { ColumnBuffer } from './parquet-columns.js';
import type { ParquetColumn } from './parquet-schema.js';

/** A level's slots: where each is in its node's Arrow data (-1: absent), the definition level of an absent one, the repetition level. */
class Slots {
  n = 0;
  idx = new Int32Array(0);
  def = new Uint16Array(0);
  rep = new Uint16Array(0);

  /** Room for `n` slots (their contents lost when grown). */
  size(n: number): void {
    this.n = n;
    if (this.idx.length >= n) return;
    const length = Math.max(n, this.idx.length * 2, 1024);
    this.idx = new Int32Array(length);
    this.def = new Uint16Array(length);
    this.rep = new Uint16Array(length);
  }

  copy(from: Slots): void {
    this.size(from.n);
    this.idx.set(from.idx.subarray(0, from.n));
    this.def.set(from.def.subarray(0, from.n));
    this.rep.set(from.rep.subarray(0, from.n));
  }
}

/** How a leaf's present values are copied from its Arrow data (see `leafCopy`). */
type Copy = 'fixed' | 'bytes' | 'boolean';

interface Leaf {
  kind: 'leaf';
  type: ColumnType;
  optional: boolean;
  def: number;
  buffer: ColumnBuffer;
}
interface Group {
  kind: 'struct' | 'list' | 'map';
  type: ColumnType;
  optional: boolean;
  def: number;
  rep: number;
  children: Node[];
  /** Each child's slots (a struct's fields' copies of its own, a list's or map's expanded ones). */
  slots: Slots[];
  /** A map: the path's first name, for the refusal of a null key. */
  column: string;
}
type Node = Leaf | Group;

/** A column's tree, as parquet-schema.ts builds its leaves (depth first), with their levels. */
export class Shredder {
  private readonly root: Node;
  private readonly top = new Slots();

  constructor(col: ParquetColumn) {
    const leaves = [...col.leaves];
    const build = (t: ColumnType, optional: boolean, def: number, rep: number): Node => {
      switch (t.kind) {
        case 'struct': {
          const children = t.fields.map((f) => build(f.type, true, def + 1, rep));
          return group('struct', t, optional, def, rep, children, col.name);
        }
        case 'list':
          return group('list', t, optional, def, rep, [build(t.element, true, def + 2, rep + 1)], col.name);
        case 'map':
          return group(
            'map',
            t,
            optional,
            def,
            rep,
            [build(t.key, false, def + 1, rep + 1), build(t.value, true, def + 2, rep + 1)],
            col.name,
          );
        default: {
          const buffer = leaves.shift()!;
          if (buffer.maxDef !== def || buffer.maxRep !== rep)
            throw new Error(`leaf ${buffer.path} out of step`);
          return { kind: 'leaf', type: t, optional, def, buffer };
        }
      }
    };
    this.root = build(col.type, true, 1, 0);
  }

  /** Whether `data` (the column of a batch) can be shredded here: every node's Arrow layout is one this takes. */
  takes(data: Data): boolean {
    return takes(this.root, data);
  }

  /** Appends `rows` rows of `data` to the leaves. */
  shred(data: Data, rows: number): void {
    const s = this.top;
    s.size(rows);
    for (let i = 0; i < rows; i++) s.idx[i] = i;
    s.rep.fill(0, 0, rows);
    shred(this.root, data, s);
  }
}

function group(
  kind: Group['kind'],
  type: ColumnType,
  optional: boolean,
  def: number,
  rep: number,
  children: Node[],
  column: string,
): Group {
  return { kind, type, optional, def, rep, children, slots: children.map(() => new Slots()), column };
}

function takes(n: Node, data: Data): boolean {
  if (data.typeId === Type.Dictionary) return false;
  if (n.kind === 'leaf') return leafCopy(n, data) !== undefined;
  if (n.kind === 'struct')
    return data.typeId === Type.Struct && n.children.every((c, i) => takes(c, data.children[i]!));
  if (!(data.valueOffsets instanceof Int32Array)) return false;
  if (n.kind === 'list') return data.typeId === Type.List && takes(n.children[0]!, data.children[0]!);
  const entries = data.children[0];
  return (
    data.typeId === Type.Map &&
    entries !== undefined &&
    !entries.nullCount &&
    takes(n.children[0]!, entries.children[0]!) &&
    takes(n.children[1]!, entries.children[1]!)
  );
}

/** How a leaf's values are copied: its Arrow values are its Parquet PLAIN values, UTF-8 or binary bytes, or bits. */
function leafCopy(n: Leaf, data: Data): Copy | undefined {
  const t = n.type;
  const v = data.values as unknown;
  switch (t.kind) {
    case 'float':
      return (t.bits === 64 && v instanceof Float64Array) || (t.bits === 32 && v instanceof Float32Array)
        ? 'fixed'
        : undefined;
    case 'integer':
      return !t.unsigned &&
        ((t.bits === 64 && v instanceof BigInt64Array) || (t.bits === 32 && v instanceof Int32Array))
        ? 'fixed'
        : undefined;
    case 'varchar':
    case 'varbinary':
      return (data.typeId === Type.Utf8 || data.typeId === Type.Binary) &&
        data.valueOffsets instanceof Int32Array
        ? 'bytes'
        : undefined;
    case 'boolean':
      return data.typeId === Type.Bool ? 'boolean' : undefined;
    default:
      return undefined;
  }
}

function shred(n: Node, data: Data, s: Slots): void {
  // A null at this level: the slot is absent, defined up to the level above.
  if (data.nullCount > 0 && data.nullBitmap && data.nullBitmap.length > 0) {
    if (!n.optional)
      throw new ServiceError(`column ${JSON.stringify((n as Group).column)}: a MAP entry without a key`);
    const bitmap = data.nullBitmap;
    const off = data.offset;
    const { idx, def } = s;
    const missing = n.def - 1;
    for (let i = 0; i < s.n; i++) {
      const k = idx[i]!;
      if (k < 0) continue;
      const j = k + off;
      if ((bitmap[j >> 3]! & (1 << (j & 7))) === 0) {
        idx[i] = -1;
        def[i] = missing;
      }
    }
  }
  if (n.kind === 'leaf') {
    leaf(n, data, s);
    return;
  }
  if (n.kind === 'struct') {
    n.children.forEach((c, i) => {
      const own = n.slots[i]!;
      own.copy(s);
      shred(c, data.children[i]!, own);
    });
    return;
  }
  // A list or map: a slot an element (repeated at this level after the first), an empty one absent at its own.
  const offsets = data.valueOffsets as Int32Array;
  const inner = n.rep + 1;
  let m = 0;
  for (let i = 0; i < s.n; i++) {
    const k = s.idx[i]!;
    m += k < 0 ? 1 : Math.max(1, offsets[k + 1]! - offsets[k]!);
  }
  const out = n.slots[0]!;
  out.size(m);
  const { idx, def, rep } = out;
  let w = 0;
  for (let i = 0; i < s.n; i++) {
    const k = s.idx[i]!;
    const r = s.rep[i]!;
    if (k < 0) {
      idx[w] = -1;
      def[w] = s.def[i]!;
      rep[w++] = r;
      continue;
    }
    const start = offsets[k]!;
    const end = offsets[k + 1]!;
    if (start === end) {
      idx[w] = -1;
      def[w] = n.def;
      rep[w++] = r;
      continue;
    }
    idx[w] = start;
    rep[w++] = r;
    for (let j = start + 1; j < end; j++) {
      idx[w] = j;
      rep[w++] = inner;
    }
  }
  if (n.kind === 'list') {
    shred(n.children[0]!, data.children[0]!, out);
    return;
  }
  const entries = data.children[0]!;
  const values = n.slots[1]!;
  values.copy(out);
  shred(n.children[0]!, entries.children[0]!, out);
  shred(n.children[1]!, entries.children[1]!, values);
}

function leaf(n: Leaf, data: Data, s: Slots): void {
  const b = n.buffer;
  b.levelsOf(s.n, s.idx, s.def, s.rep);
  switch (leafCopy(n, data)) {
    case 'fixed': {
      b.fixedAt(data.values as unknown as ArrayBufferView, s.idx, s.n);
      return;
    }
    case 'bytes':
      b.byteArraysAt(data.valueOffsets as Int32Array, data.values as Uint8Array, s.idx, s.n);
      return;
    case 'boolean':
      b.booleansAt(data.values as Uint8Array, data.offset, s.idx, s.n);
      return;
  }
}
