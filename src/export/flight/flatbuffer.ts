// A bounds check of an Arrow IPC message's metadata (its flatbuffer) before anything decodes it, as
// flatbuffers' own Verifier does in Arrow C++: apache-arrow's JavaScript decoder reads a flatbuffer without
// checks, so bytes that are not one (or whose offsets point anywhere) decode as garbage, not as an error.
// Each table of Message.fbs and Schema.fbs is described by its fields in declaration order; a field dlake's
// description does not know (a newer Arrow's) is skipped, as flatbuffers' forward compatibility asks.

/** A field of a table, by its index in the table's declaration. */
type FieldSpec =
  | { kind: 'scalar'; size: number }
  | { kind: 'string' }
  | { kind: 'table'; of: () => TableSpec }
  | { kind: 'tables'; of: () => TableSpec }
  | { kind: 'structs'; size: number }
  /** A union's value: the table it holds is chosen by the union's type field (the field before it). */
  | { kind: 'union'; members: Record<number, () => TableSpec> };

type TableSpec = readonly (FieldSpec | undefined)[];

const s = (size: number): FieldSpec => ({ kind: 'scalar', size });
const str: FieldSpec = { kind: 'string' };
const table = (of: () => TableSpec): FieldSpec => ({ kind: 'table', of });
const tables = (of: () => TableSpec): FieldSpec => ({ kind: 'tables', of });
const structs = (size: number): FieldSpec => ({ kind: 'structs', size });

// Schema.fbs
const EMPTY: TableSpec = [];
const KEY_VALUE: TableSpec = [str, str];
const INT: TableSpec = [s(4), s(1)];
const DICTIONARY_ENCODING: TableSpec = [s(8), table(() => INT), s(1), s(2)];
/** The Type union's members, by their number in Schema.fbs. */
const TYPES: Record<number, () => TableSpec> = {
  1: () => EMPTY, // Null
  2: () => INT,
  3: () => [s(2)], // FloatingPoint
  4: () => EMPTY, // Binary
  5: () => EMPTY, // Utf8
  6: () => EMPTY, // Bool
  7: () => [s(4), s(4), s(4)], // Decimal
  8: () => [s(2)], // Date
  9: () => [s(2), s(4)], // Time
  10: () => [s(2), str], // Timestamp
  11: () => [s(2)], // Interval
  12: () => EMPTY, // List
  13: () => EMPTY, // Struct_
  14: () => [s(2), structs(4)], // Union: mode, typeIds ([int] is a vector of 4-byte scalars)
  15: () => [s(4)], // FixedSizeBinary
  16: () => [s(4)], // FixedSizeList
  17: () => [s(1)], // Map
  18: () => [s(2)], // Duration
  19: () => EMPTY, // LargeBinary
  20: () => EMPTY, // LargeUtf8
  21: () => EMPTY, // LargeList
  22: () => EMPTY, // RunEndEncoded
  23: () => EMPTY, // BinaryView
  24: () => EMPTY, // Utf8View
  25: () => EMPTY, // ListView
  26: () => EMPTY, // LargeListView
};
const FIELD: TableSpec = [
  str, // name
  s(1), // nullable
  s(1), // type_type
  { kind: 'union', members: TYPES },
  table(() => DICTIONARY_ENCODING),
  tables(() => FIELD), // children
  tables(() => KEY_VALUE),
];
const SCHEMA: TableSpec = [s(2), tables(() => FIELD), tables(() => KEY_VALUE), structs(8)];

// Message.fbs
const BODY_COMPRESSION: TableSpec = [s(1), s(1)];
const RECORD_BATCH: TableSpec = [
  s(8), // length
  structs(16), // nodes: FieldNode { length: long, null_count: long }
  structs(16), // buffers: Buffer { offset: long, length: long }
  table(() => BODY_COMPRESSION),
  structs(8), // variadicBufferCounts
];
const DICTIONARY_BATCH: TableSpec = [s(8), table(() => RECORD_BATCH), s(1)];
/** The MessageHeader union's members dlake reads (Tensor and SparseTensor are never a Flight result). */
const HEADERS: Record<number, () => TableSpec> = {
  1: () => SCHEMA,
  2: () => DICTIONARY_BATCH,
  3: () => RECORD_BATCH,
};
const MESSAGE: TableSpec = [
  s(2), // version
  s(1), // header_type
  { kind: 'union', members: HEADERS },
  s(8), // bodyLength
  tables(() => KEY_VALUE),
];

/** As Arrow C++'s verifier options: no deeper nesting, no more tables than this in one message. */
const MAX_DEPTH = 64;
const MAX_TABLES = 1_000_000;

/** Why `bytes` is not a well-formed IPC Message flatbuffer, or undefined when it is. */
export function messageFlatbufferFault(bytes: Uint8Array): string | undefined {
  try {
    new Verifier(bytes).root(MESSAGE);
    return undefined;
  } catch (e) {
    if (e instanceof Malformed) return e.message;
    throw e;
  }
}

class Malformed extends Error {}

class Verifier {
  private readonly view: DataView;
  private tablesSeen = 0;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  root(spec: TableSpec): void {
    this.need(0, 4, 'the root offset');
    this.table(this.view.getUint32(0, true), spec, 1);
  }

  private need(at: number, n: number, what: string): void {
    if (!(at >= 0 && n >= 0 && at + n <= this.bytes.byteLength)) {
      throw new Malformed(`${what} lies outside the ${this.bytes.byteLength}-byte message header`);
    }
  }

  /** The position an offset field at `at` points to. */
  private target(at: number, what: string): number {
    this.need(at, 4, what);
    return at + this.view.getUint32(at, true);
  }

  private table(t: number, spec: TableSpec, depth: number): void {
    if (depth > MAX_DEPTH) throw new Malformed('the message header nests too deeply');
    if (++this.tablesSeen > MAX_TABLES) throw new Malformed('the message header has too many tables');
    this.need(t, 4, 'a table');
    const vt = t - this.view.getInt32(t, true);
    this.need(vt, 4, 'a vtable');
    const vtSize = this.view.getUint16(vt, true);
    const objSize = this.view.getUint16(vt + 2, true);
    if (vtSize < 4 || vtSize % 2 !== 0) throw new Malformed(`a vtable of ${vtSize} bytes`);
    this.need(vt, vtSize, 'a vtable');
    if (objSize < 4) throw new Malformed(`a table of ${objSize} bytes`);
    this.need(t, objSize, 'a table');
    const slot = (i: number): number => (4 + 2 * i < vtSize ? this.view.getUint16(vt + 4 + 2 * i, true) : 0);
    spec.forEach((f, i) => {
      const off = slot(i);
      if (!f || off === 0) return;
      const size = f.kind === 'scalar' ? f.size : 4;
      if (off + size > objSize) throw new Malformed(`field ${i} of a table lies outside it`);
      if (f.kind === 'scalar') return;
      const at = this.target(t + off, `field ${i} of a table`);
      switch (f.kind) {
        case 'string': {
          this.need(at, 4, 'a string');
          const n = this.view.getUint32(at, true);
          this.need(at + 4, n + 1, 'a string');
          if (this.bytes[at + 4 + n] !== 0) throw new Malformed('a string without its terminating zero');
          return;
        }
        case 'table':
          this.table(at, f.of(), depth + 1);
          return;
        case 'structs': {
          this.need(at, 4, 'a vector');
          this.need(at + 4, this.view.getUint32(at, true) * f.size, 'a vector');
          return;
        }
        case 'tables': {
          this.need(at, 4, 'a vector');
          const n = this.view.getUint32(at, true);
          this.need(at + 4, n * 4, 'a vector');
          for (let k = 0; k < n; k++) {
            const el = at + 4 + 4 * k;
            this.table(el + this.view.getUint32(el, true), f.of(), depth + 1);
          }
          return;
        }
        case 'union': {
          // The union's type is the field declared just before it (a ubyte).
          const typeOff = slot(i - 1);
          const type = typeOff === 0 ? 0 : this.bytes[t + typeOff]!;
          const member = f.members[type];
          if (!member) throw new Malformed(`a union of unknown type ${type}`);
          this.table(at, member(), depth + 1);
          return;
        }
      }
    });
  }
}
