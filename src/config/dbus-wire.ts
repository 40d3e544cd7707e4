// The D-Bus wire format (docs/api-facts.md §17): type signatures, and values marshalled into and read out of
// a message, in either byte order on reading, little-endian on writing. Only what the credential store's client
// (src/config/secret-service.ts) needs to say, but every type on reading, since a message from the bus is
// skipped or refused only once it has been read: the bus is a peer, and nothing it sends is trusted. A message
// that breaks a rule of the specification (a length past the end, a string without its NUL, a boolean of 2, a
// signature nested too deep, padding that is not zero) is a WireError, never a value.
import { isUtf8 } from 'node:buffer';

/** A message of more than this is refused (the specification's bound is 128 MiB; dlake's answers are small). */
export const MAX_MESSAGE = 4 * 1024 * 1024;
/** The specification's bound on an array's bytes. */
const MAX_ARRAY = 64 * 1024 * 1024;
/** The specification's bounds on nesting: arrays and structs 32 each in a signature, 64 in all with variants. */
const MAX_NESTING = 32;
const MAX_DEPTH = 64;

export class WireError extends Error {}

/** One complete type of a signature. */
type DBusType =
  | { code: 'y' | 'b' | 'n' | 'q' | 'i' | 'u' | 'x' | 't' | 'd' | 'h' | 's' | 'o' | 'g' | 'v' }
  | { code: 'a'; element: DBusType }
  | { code: '('; fields: DBusType[] }
  | { code: '{'; key: DBusType; value: DBusType };

/** A variant as read: its signature and its value. */
export interface Variant {
  signature: string;
  value: DBusValue;
}

/**
 * A value: numbers for y n q i u h d, booleans for b, bigint for x t, strings for s o g, a Buffer for `ay`, an
 * array for other arrays and for structs, a Map for a dictionary, a Variant for v.
 */
export type DBusValue =
  | number
  | bigint
  | boolean
  | string
  | Buffer
  | Variant
  | DBusValue[]
  | Map<DBusValue, DBusValue>;

const BASIC = 'ybnqiuxtdhsog';
const ALIGN: Record<string, number> = {
  y: 1,
  b: 4,
  n: 2,
  q: 2,
  i: 4,
  u: 4,
  x: 8,
  t: 8,
  d: 8,
  h: 4,
  s: 4,
  o: 4,
  g: 1,
  v: 1,
  a: 4,
  '(': 8,
  '{': 8,
};

/**
 * Signatures already parsed: the few a command meets (the header's, the Secret Service's) are parsed once. Only
 * valid ones are kept, and no more than MAX_PARSED, whatever the bus sends.
 */
const parsed = new Map<string, DBusType[]>();
const MAX_PARSED = 64;

/** The complete types of a signature, checked against the specification's rules. */
export function parseSignature(signature: string): DBusType[] {
  let types = parsed.get(signature);
  if (!types) {
    types = parseNew(signature);
    if (parsed.size < MAX_PARSED) parsed.set(signature, types);
  }
  return types;
}

function parseNew(signature: string): DBusType[] {
  if (signature.length > 255) throw new WireError('a signature longer than 255');
  let at = 0;
  const one = (arrays: number, structs: number): DBusType => {
    const c = signature[at++];
    if (c === undefined) throw new WireError(`signature "${signature}" ends inside a type`);
    if (c === 'v' || BASIC.includes(c)) return { code: c as 'y' };
    if (c === 'a') {
      if (arrays + 1 > MAX_NESTING) throw new WireError('arrays nested more than 32 deep');
      if (signature[at] === '{') {
        at++;
        if (structs + 1 > MAX_NESTING) throw new WireError('structs nested more than 32 deep');
        const key = one(arrays + 1, structs + 1);
        if (!BASIC.includes(key.code)) throw new WireError('a dictionary key that is not a basic type');
        const value = one(arrays + 1, structs + 1);
        if (signature[at++] !== '}')
          throw new WireError(`signature "${signature}": a dict entry of more than two types`);
        return { code: 'a', element: { code: '{', key, value } };
      }
      return { code: 'a', element: one(arrays + 1, structs) };
    }
    if (c === '(') {
      if (structs + 1 > MAX_NESTING) throw new WireError('structs nested more than 32 deep');
      const fields: DBusType[] = [];
      while (signature[at] !== ')') {
        if (at >= signature.length) throw new WireError(`signature "${signature}": a struct not closed`);
        fields.push(one(arrays, structs + 1));
      }
      at++;
      if (fields.length === 0) throw new WireError('an empty struct');
      return { code: '(', fields };
    }
    throw new WireError(`signature "${signature}": "${c}" is not a type here`);
  };
  const types: DBusType[] = [];
  while (at < signature.length) types.push(one(0, 0));
  return types;
}

/** The signature of a type, as written. */
function signatureOf(t: DBusType): string {
  if (t.code === 'a') return `a${signatureOf(t.element)}`;
  if (t.code === '(') return `(${t.fields.map(signatureOf).join('')})`;
  if (t.code === '{') return `{${signatureOf(t.key)}${signatureOf(t.value)}}`;
  return t.code;
}

const OBJECT_PATH = /^\/$|^(\/[A-Za-z0-9_]+)+$/;

/** Reads values out of one message's bytes, every length and offset checked against its end. */
export class WireReader {
  constructor(
    private readonly buf: Buffer,
    private readonly little: boolean,
    public at = 0,
    private readonly end = buf.length,
  ) {}

  /** The values of `signature`, which must use up the bytes to the end. */
  readAll(signature: string): DBusValue[] {
    const values = parseSignature(signature).map((t) => this.read(t, 0));
    if (this.at !== this.end)
      throw new WireError(`${this.end - this.at} bytes after the values of "${signature}"`);
    return values;
  }

  align(n: number): void {
    const to = Math.ceil(this.at / n) * n;
    if (to > this.end) throw new WireError('padding past the end');
    for (; this.at < to; this.at++)
      if (this.buf[this.at] !== 0) throw new WireError('padding that is not zero');
  }

  private take(n: number): number {
    const from = this.at;
    if (n < 0 || from + n > this.end) throw new WireError('a value past the end of the message');
    this.at += n;
    return from;
  }

  u32(): number {
    this.align(4);
    const p = this.take(4);
    return this.little ? this.buf.readUInt32LE(p) : this.buf.readUInt32BE(p);
  }

  read(t: DBusType, depth: number): DBusValue {
    if (depth > MAX_DEPTH) throw new WireError('values nested more than 64 deep');
    const b = this.buf;
    const le = this.little;
    switch (t.code) {
      case 'y':
        return b[this.take(1)]!;
      case 'b': {
        const v = this.u32();
        if (v > 1) throw new WireError(`a boolean of ${v}`);
        return v === 1;
      }
      case 'n':
      case 'q': {
        this.align(2);
        const p = this.take(2);
        if (t.code === 'n') return le ? b.readInt16LE(p) : b.readInt16BE(p);
        return le ? b.readUInt16LE(p) : b.readUInt16BE(p);
      }
      case 'i': {
        this.align(4);
        const p = this.take(4);
        return le ? b.readInt32LE(p) : b.readInt32BE(p);
      }
      case 'u':
      case 'h':
        return this.u32();
      case 'x':
      case 't':
      case 'd': {
        this.align(8);
        const p = this.take(8);
        if (t.code === 'd') return le ? b.readDoubleLE(p) : b.readDoubleBE(p);
        if (t.code === 'x') return le ? b.readBigInt64LE(p) : b.readBigInt64BE(p);
        return le ? b.readBigUInt64LE(p) : b.readBigUInt64BE(p);
      }
      case 's':
      case 'o':
        return this.text(this.u32(), t.code);
      case 'g':
        return this.signatureText(b[this.take(1)]!);
      case 'v': {
        const signature = this.signatureText(b[this.take(1)]!);
        const types = parseSignature(signature);
        if (types.length !== 1) throw new WireError(`a variant of signature "${signature}", not one type`);
        return { signature, value: this.read(types[0]!, depth + 1) };
      }
      case '(': {
        this.align(8);
        return t.fields.map((f) => this.read(f, depth + 1));
      }
      case '{':
        throw new WireError('a dict entry outside an array');
      case 'a': {
        const length = this.u32();
        if (length > MAX_ARRAY) throw new WireError(`an array of ${length} bytes`);
        const element = t.element;
        this.align(ALIGN[element.code]!);
        const start = this.take(length);
        const stop = start + length;
        this.at = start;
        if (element.code === 'y') {
          this.at = stop;
          return Buffer.from(b.subarray(start, stop));
        }
        const inner = new WireReader(b, le, start, stop);
        if (element.code === '{') {
          const map = new Map<DBusValue, DBusValue>();
          while (inner.at < stop) {
            inner.align(8);
            const key = inner.read(element.key, depth + 2);
            map.set(key, inner.read(element.value, depth + 2));
          }
          this.at = stop;
          return map;
        }
        const items: DBusValue[] = [];
        while (inner.at < stop) {
          inner.align(ALIGN[element.code]!);
          items.push(inner.read(element, depth + 1));
        }
        this.at = stop;
        return items;
      }
    }
  }

  private text(length: number, code: 's' | 'o'): string {
    const p = this.take(length + 1);
    if (this.buf[p + length] !== 0) throw new WireError('a string without its terminating NUL');
    const bytes = this.buf.subarray(p, p + length);
    if (bytes.includes(0)) throw new WireError('a string holding a NUL');
    // isUtf8 rather than a fatal TextDecoder: Node 20 builds ICU's converter for the latter on its first use.
    if (!isUtf8(bytes)) throw new WireError('a string that is not UTF-8');
    const s = bytes.toString('utf8');
    if (code === 'o' && !OBJECT_PATH.test(s)) throw new WireError('an object path that is not one');
    return s;
  }

  private signatureText(length: number): string {
    const p = this.take(length + 1);
    if (this.buf[p + length] !== 0) throw new WireError('a signature without its terminating NUL');
    const s = this.buf.toString('latin1', p, p + length);
    parseSignature(s);
    return s;
  }
}

/** Marshals values into a growing buffer, little-endian, aligned from the start of the message. */
export class WireWriter {
  // Not zero-filled: every byte up to `length` is written (padding included, as zeros) before it is handed out.
  private buf = Buffer.allocUnsafe(256);
  length = 0;

  bytes(): Buffer {
    return this.buf.subarray(0, this.length);
  }

  /**
   * Reserves `n` bytes and returns where they start. It may replace `this.buf`: take the offset before reading
   * `this.buf` (`this.buf.set(x, this.room(n))` would write into the buffer it replaced).
   */
  private room(n: number): number {
    if (this.length + n > this.buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + n));
      this.buf.copy(bigger, 0, 0, this.length);
      this.buf = bigger;
    }
    const at = this.length;
    this.length += n;
    return at;
  }

  align(n: number): void {
    const pad = (n - (this.length % n)) % n;
    const at = this.room(pad);
    this.buf.fill(0, at, this.length);
  }

  u8(v: number): void {
    const at = this.room(1);
    this.buf[at] = v;
  }

  u32(v: number): void {
    this.align(4);
    const at = this.room(4);
    this.buf.writeUInt32LE(v, at);
  }

  /** Writes `u32` at a position already written (a length known only afterwards). */
  patchU32(at: number, v: number): void {
    this.buf.writeUInt32LE(v, at);
  }

  writeAll(signature: string, values: unknown[]): void {
    const types = parseSignature(signature);
    if (types.length !== values.length)
      throw new WireError(
        `signature "${signature}" has ${types.length} types, given ${values.length} values`,
      );
    for (const [i, t] of types.entries()) this.write(t, values[i]);
  }

  write(t: DBusType, v: unknown): void {
    switch (t.code) {
      case 'y':
        this.u8(v as number);
        return;
      case 'b':
        this.u32(v ? 1 : 0);
        return;
      case 'u':
        this.u32(v as number);
        return;
      case 's':
      case 'o': {
        const bytes = Buffer.from(v as string, 'utf8');
        if (t.code === 'o' && !OBJECT_PATH.test(v as string)) throw new WireError(`not an object path: ${v}`);
        this.u32(bytes.length);
        const at = this.room(bytes.length + 1);
        bytes.copy(this.buf, at);
        this.buf[this.length - 1] = 0;
        return;
      }
      case 'g': {
        parseSignature(v as string);
        this.u8((v as string).length);
        const at = this.room((v as string).length + 1);
        this.buf.write(v as string, at, 'latin1');
        this.buf[this.length - 1] = 0;
        return;
      }
      case 'v': {
        const { signature, value } = v as Variant;
        const types = parseSignature(signature);
        if (types.length !== 1) throw new WireError(`a variant of "${signature}", not one type`);
        this.write({ code: 'g' }, signature);
        this.write(types[0]!, value);
        return;
      }
      case '(': {
        this.align(8);
        const fields = v as unknown[];
        for (const [i, f] of t.fields.entries()) this.write(f, fields[i]);
        return;
      }
      case 'a': {
        this.u32(0);
        const lengthAt = this.length - 4;
        const element = t.element;
        this.align(ALIGN[element.code]!);
        const start = this.length;
        if (element.code === 'y') {
          const bytes = v as Uint8Array;
          const at = this.room(bytes.length);
          this.buf.set(bytes, at);
        } else if (element.code === '{') {
          const entries = v instanceof Map ? [...v.entries()] : Object.entries(v as object);
          for (const [key, value] of entries) {
            this.align(8);
            this.write(element.key, key);
            this.write(element.value, value);
          }
        } else for (const item of v as unknown[]) this.write(element, item);
        this.patchU32(lengthAt, this.length - start);
        return;
      }
      default:
        throw new WireError(`dlake does not write "${signatureOf(t)}"`);
    }
  }
}
