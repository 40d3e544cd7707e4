// Every Flight message is checked before apache-arrow reads a cell of it (docs/cli-contract.md "Export over Arrow
// Flight"), as Arrow C++'s ValidateFull checks IPC it does not trust: apache-arrow's JavaScript reader believes
// whatever offsets and lengths a message states, so a message that lies would have it read past the body (other
// memory of the process) or format rows that were never sent. The service is trusted; the network and the
// proxies between are not, and a file that looks complete must be complete.
//
// One validator per DoGet stream: the first message is the schema, every later one a record batch of it.
// Checked: the message's size (MAX_FLIGHT_MESSAGE_BYTES), its metadata a well-formed flatbuffer
// (./flatbuffer.ts), the body at least as long as the metadata says, every buffer inside the body, each column's
// node and buffers as its type lays them out, offsets from 0 up, never decreasing and inside their data, and the
// row count no larger than the buffers can hold, the views of Utf8View/BinaryView inside their data buffers,
// and every dictionary index inside the dictionary its batches have sent so far (dictionary batches are checked
// as batches of one column of the dictionary's value type). Types whose layout is not checked here are refused
// by name (./arrow-types.ts).
import { Message, MessageHeader, type Schema, Type } from 'apache-arrow';
import { ServiceError } from '../../errors.js';
import { columnTypeOfField } from './arrow-types.js';
import { messageFlatbufferFault } from './flatbuffer.js';

/**
 * The largest Flight message (metadata and body) dlake takes: as large as a REST results page may be
 * (src/api/http.ts), and far above a service batch (4,095 rows: a few MiB even of wide rows).
 */
export const MAX_FLIGHT_MESSAGE_BYTES = 256 * 1024 * 1024;

/** A column without data buffers (Null type, or no columns) cannot bound its rows: this does instead. */
const MAX_ROWS_WITHOUT_DATA = 65_536;

/** A Flight stream that is not what the protocol allows: exit 7, nothing written. */
export class InvalidFlightStreamError extends ServiceError {}

/** A message once checked: its decoded metadata and its body cut to the length the metadata states. */
interface CheckedMessage {
  message: Message;
  header: Uint8Array;
  body: Uint8Array;
  /** The rows of a record batch (0 for any other message). */
  rows: number;
}

type ArrowType = Schema['fields'][number]['type'];
type DictionaryType = ArrowType & {
  id: number;
  dictionary: ArrowType;
  indices: ArrowType & { bitWidth: number; isSigned: boolean };
};
interface Region {
  offset: number;
  length: number;
}

/** The schema of a stream as one line: `a: Int64, b: Utf8` (for an error naming two of them). */
export function describeSchema(schema: Schema): string {
  return (
    schema.fields.map((f) => `${f.name}: ${f.type}${f.nullable ? '' : ' not null'}`).join(', ') || '(none)'
  );
}

/** Two schemas are the same result's when their columns are the same names, types and nullability. */
export function sameSchema(a: Schema, b: Schema): boolean {
  return describeSchema(a) === describeSchema(b);
}

export class StreamValidator {
  private schema?: Schema;
  private messages = 0;
  /** The value type of each dictionary the schema names, by id, and the values its batches have sent. */
  private readonly dictionaries = new Map<number, { type: ArrowType; length: number }>();

  /** `where` names the stream in errors: `the Flight stream` or `endpoint 2 of 3`. */
  constructor(private readonly where: string) {}

  /** The stream's schema, once its first message was read. */
  get streamSchema(): Schema | undefined {
    return this.schema;
  }

  private fail(what: string): never {
    throw new InvalidFlightStreamError(`${this.where} sent an invalid message (#${this.messages}): ${what}`);
  }

  /** Checks one FlightData's header and body; throws InvalidFlightStreamError when they are not valid. */
  check(header: Uint8Array, body: Uint8Array): CheckedMessage {
    this.messages++;
    const size = header.byteLength + body.byteLength;
    if (size > MAX_FLIGHT_MESSAGE_BYTES) {
      this.fail(`${size} bytes, more than the ${MAX_FLIGHT_MESSAGE_BYTES / 1024 / 1024} MiB dlake takes`);
    }
    const fault = messageFlatbufferFault(header);
    if (fault) this.fail(`its metadata is not an Arrow IPC message (${fault})`);
    let message: Message;
    try {
      message = Message.decode(header);
    } catch (e) {
      return this.fail(`its metadata cannot be read (${(e as Error)?.message ?? e})`);
    }
    const bodyLength = Number(message.bodyLength);
    if (!Number.isSafeInteger(bodyLength) || bodyLength < 0) this.fail(`a body length of ${bodyLength}`);
    if (body.byteLength < bodyLength) {
      this.fail(`its body is ${body.byteLength} bytes, its metadata says ${bodyLength}`);
    }
    const checked = { message, header, body: body.subarray(0, bodyLength), rows: 0 };
    if (message.headerType === MessageHeader.Schema) {
      if (this.schema) this.fail('a second schema in the middle of the stream');
      const schema = message.header() as Schema;
      for (const f of schema.fields) {
        // A type no writer takes is refused by its name, before anything is read of it.
        columnTypeOfField(f);
        this.checkType(f.name, f.type);
      }
      this.schema = schema;
      return checked;
    }
    if (!this.schema) this.fail('the stream does not begin with its schema');
    if (message.headerType === MessageHeader.DictionaryBatch) {
      const batch = message.header() as unknown as { id: number; isDelta: boolean; data: BatchMeta };
      const dictionary = this.dictionaries.get(Number(batch.id));
      if (!dictionary) this.fail(`a dictionary batch for dictionary ${batch.id}, which no column uses`);
      const length = this.checkBatch(batch.data, checked.body, [
        { name: `dictionary ${batch.id}`, type: dictionary.type },
      ]);
      dictionary.length = batch.isDelta ? dictionary.length + length : length;
      return checked;
    }
    if (message.headerType !== MessageHeader.RecordBatch)
      this.fail(`a message of type ${message.headerType}`);
    checked.rows = this.checkBatch(
      message.header() as unknown as BatchMeta,
      checked.body,
      this.schema.fields,
    );
    return checked;
  }

  /** Refuses, by name, a column whose layout is not checked below. */
  private checkType(name: string, type: ArrowType): void {
    switch (type.typeId) {
      case Type.Dictionary: {
        const d = type as DictionaryType;
        const known = this.dictionaries.get(Number(d.id));
        if (known && String(known.type) !== String(d.dictionary))
          this.fail(`dictionary ${d.id} is used with two value types`);
        this.dictionaries.set(Number(d.id), { type: d.dictionary, length: 0 });
        this.checkType(name, d.dictionary);
        return;
      }
      case Type.Struct:
      case Type.List:
      case Type.LargeList:
      case Type.FixedSizeList:
      case Type.Map:
        for (const c of type.children ?? []) this.checkType(`${name}.${c.name}`, c.type);
        return;
      default:
        if (fixedWidth(type) === undefined && !LAYOUT_KNOWN.has(type.typeId)) {
          this.fail(`column "${name}" is of type ${type}, which dlake does not read`);
        }
    }
  }

  /** Checks a record batch (or a dictionary batch's data) of `fields`: its row count. */
  private checkBatch(
    meta: BatchMeta,
    body: Uint8Array,
    fields: readonly { name: string; type: ArrowType }[],
  ): number {
    if (meta.compression) this.fail('a compressed body, which dlake does not read');
    const length = Number(meta.length);
    if (!Number.isSafeInteger(length) || length < 0) this.fail(`a row count of ${meta.length}`);
    const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
    let node = 0;
    let buffer = 0;
    let dataBytes = 0;
    let variadic = 0;
    const takeNode = (name: string) => {
      const n = meta.nodes[node++];
      if (!n) return this.fail(`no field node for column "${name}"`);
      const len = Number(n.length);
      const nulls = Number(n.nullCount);
      if (!Number.isSafeInteger(len) || len < 0) this.fail(`column "${name}" has ${n.length} rows`);
      if (!Number.isSafeInteger(nulls) || nulls < 0 || nulls > len) {
        this.fail(`column "${name}" has ${n.nullCount} nulls in ${len} rows`);
      }
      return { len, nulls };
    };
    const takeBuffer = (name: string, what: string, atLeast: number): Region => {
      const b = meta.buffers[buffer++];
      if (!b) return this.fail(`no ${what} buffer for column "${name}"`);
      const offset = Number(b.offset);
      const len = Number(b.length);
      if (!(offset >= 0 && len >= 0 && offset + len <= body.byteLength)) {
        this.fail(`the ${what} buffer of column "${name}" (${len} bytes at ${offset}) is outside the body`);
      }
      if (len < atLeast) {
        this.fail(`the ${what} buffer of column "${name}" is ${len} bytes, ${atLeast} needed`);
      }
      dataBytes += len;
      return { offset, length: len };
    };
    /** Offsets from 0 up, never decreasing, the last inside the data; the child length they address. */
    const offsets = (name: string, len: number, width: 4 | 8): number => {
      const o = takeBuffer(name, 'offsets', len === 0 ? 0 : (len + 1) * width);
      if (len === 0) return 0;
      const start = body.byteOffset + o.offset;
      // An aligned buffer is read as an Int32Array (the common case, and much faster than a DataView).
      const i32 = width === 4 && start % 4 === 0 ? new Int32Array(body.buffer, start, len + 1) : undefined;
      const at = (i: number): number =>
        i32
          ? i32[i]!
          : width === 4
            ? view.getInt32(o.offset + 4 * i, true)
            : Number(view.getBigInt64(o.offset + 8 * i, true));
      let prev = at(0);
      if (prev < 0) this.fail(`column "${name}" has a negative offset`);
      if (i32) {
        for (let i = 1; i <= len; i++) {
          const next = i32[i]!;
          if (next < prev) this.fail(`the offsets of column "${name}" decrease at row ${i - 1}`);
          prev = next;
        }
        return prev;
      }
      for (let i = 1; i <= len; i++) {
        const next = at(i);
        if (next < prev) this.fail(`the offsets of column "${name}" decrease at row ${i - 1}`);
        prev = next;
      }
      return prev;
    };
    const column = (name: string, type: ArrowType, expected: number): void => {
      const { len, nulls } = takeNode(name);
      if (len !== expected) this.fail(`column "${name}" has ${len} rows, the batch ${expected}`);
      if (type.typeId === Type.Null) return;
      const validity = takeBuffer(name, 'validity', nulls > 0 ? Math.ceil(len / 8) : 0);
      if (type.typeId === Type.Dictionary) {
        const d = type as DictionaryType;
        const width = d.indices.bitWidth / 8;
        const data = takeBuffer(name, 'indices', width * len);
        const size = this.dictionaries.get(Number(d.id))?.length ?? 0;
        const valid = nulls > 0 && validity.length > 0 ? body.subarray(validity.offset) : undefined;
        for (let i = 0; i < len; i++) {
          if (valid && (valid[i >> 3]! & (1 << (i & 7))) === 0) continue;
          const at = data.offset + i * width;
          const k =
            width === 1
              ? d.indices.isSigned
                ? view.getInt8(at)
                : view.getUint8(at)
              : width === 2
                ? d.indices.isSigned
                  ? view.getInt16(at, true)
                  : view.getUint16(at, true)
                : width === 4
                  ? d.indices.isSigned
                    ? view.getInt32(at, true)
                    : view.getUint32(at, true)
                  : Number(view.getBigInt64(at, true));
          if (!(k >= 0 && k < size))
            this.fail(
              `column "${name}" has the dictionary index ${k} at row ${i}; dictionary ${d.id} holds ${size} values`,
            );
        }
        return;
      }
      const width = fixedWidth(type);
      if (width !== undefined) {
        takeBuffer(name, 'data', width === 0 ? Math.ceil(len / 8) : width * len);
        return;
      }
      switch (type.typeId) {
        case Type.Utf8:
        case Type.Binary:
        case Type.LargeUtf8:
        case Type.LargeBinary: {
          const wide = type.typeId === Type.LargeUtf8 || type.typeId === Type.LargeBinary;
          const end = offsets(name, len, wide ? 8 : 4);
          takeBuffer(name, 'data', end);
          return;
        }
        case Type.Utf8View:
        case Type.BinaryView: {
          const views = takeBuffer(name, 'views', 16 * len);
          const count = Number(meta.variadicBufferCounts?.[variadic++] ?? -1);
          if (!(count >= 0)) this.fail(`no count of the data buffers of column "${name}"`);
          const data: Region[] = [];
          for (let k = 0; k < count; k++) data.push(takeBuffer(name, 'data', 0));
          for (let i = 0; i < len; i++) {
            const at = views.offset + 16 * i;
            const n = view.getInt32(at, true);
            if (n < 0) this.fail(`column "${name}" has a view of ${n} bytes at row ${i}`);
            if (n <= 12) continue;
            const b = view.getInt32(at + 8, true);
            const from = view.getInt32(at + 12, true);
            const into = data[b];
            if (!into || from < 0 || from + n > into.length)
              this.fail(`column "${name}" has a view at row ${i} outside its data buffers`);
          }
          return;
        }
        case Type.List:
        case Type.LargeList:
        case Type.Map: {
          const end = offsets(name, len, type.typeId === Type.LargeList ? 8 : 4);
          const child = type.children[0]!;
          childColumn(`${name}.${child.name}`, child.type, end);
          return;
        }
        case Type.FixedSizeList: {
          const child = type.children[0]!;
          childColumn(`${name}.${child.name}`, child.type, len * (type as { listSize: number }).listSize);
          return;
        }
        case Type.Struct:
          for (const c of type.children) column(`${name}.${c.name}`, c.type, len);
          return;
        default:
          this.fail(`column "${name}" is of type ${type}, which dlake does not read`);
      }
    };
    /** A list's values: at least as many as its offsets address. */
    const childColumn = (name: string, type: ArrowType, atLeast: number): void => {
      const n = meta.nodes[node];
      const len = n ? Number(n.length) : 0;
      if (len < atLeast) this.fail(`column "${name}" has ${len} values, its offsets address ${atLeast}`);
      column(name, type, len);
    };
    for (const f of fields) column(f.name, f.type, length);
    if (node !== meta.nodes.length) this.fail(`${meta.nodes.length} field nodes for ${node} columns`);
    if (buffer !== meta.buffers.length)
      this.fail(`${meta.buffers.length} buffers, the columns use ${buffer}`);
    if (dataBytes === 0 && length > MAX_ROWS_WITHOUT_DATA) {
      this.fail(`${length} rows in a batch that holds no data`);
    }
    return length;
  }
}

/** A record batch's metadata (of a record batch message, or of a dictionary batch's values). */
interface BatchMeta {
  length: number;
  nodes: { length: number; nullCount: number }[];
  buffers: Region[];
  compression: unknown;
  variadicBufferCounts?: ArrayLike<number | bigint>;
}

/** Types laid out as offsets and data, or with children: checked in `column` above. */
const LAYOUT_KNOWN = new Set<number>([
  Type.Null,
  Type.Dictionary,
  Type.Utf8View,
  Type.BinaryView,
  Type.Utf8,
  Type.Binary,
  Type.LargeUtf8,
  Type.LargeBinary,
  Type.List,
  Type.LargeList,
  Type.Map,
  Type.FixedSizeList,
  Type.Struct,
]);

/** Bytes a value of a fixed-width type takes (0 for Bool: one bit), else undefined. */
function fixedWidth(type: ArrowType): number | undefined {
  const t = type as unknown as { bitWidth?: number; precision?: number; unit?: number; byteWidth?: number };
  switch (type.typeId) {
    case Type.Bool:
      return 0;
    case Type.Int:
    case Type.Time:
    case Type.Decimal:
      return t.bitWidth! / 8;
    case Type.Float:
      return [2, 4, 8][t.precision!];
    case Type.Date:
      return t.unit === 0 ? 4 : 8;
    case Type.Timestamp:
    case Type.Duration:
      return 8;
    case Type.Interval:
      return [4, 8, 16][t.unit!];
    case Type.FixedSizeBinary:
      return t.byteWidth;
    default:
      return undefined;
  }
}
