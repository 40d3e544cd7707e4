// A results page's JSON bytes straight to CSV bytes, for a CSV export of a flat result: one scan of the body,
// fields copied out of it byte for byte, no strings and no row objects. Parsing 500 row objects a page that
// lived only to be turned into text again was a sixth of an export's CPU and half its garbage collection;
// decoding the body to a string, building CSV strings and encoding them again was most of the rest
// (docs/benchmarks.md).
// Numbers are copied as the service wrote them (what the exact-number path gave, without its gate), strings
// are decoded only when they hold a backslash. Anything off the common shape (a nested value, `rows` before
// `schema`, a key the schema does not name, more rows than asked for, bytes that are not JSON or not UTF-8) gives up: the caller then parses
// the page the ordinary way, which also reports what is wrong with it. The body is only read, never changed,
// so that fallback still has it.
import { isUtf8 } from 'node:buffer';
import type { ResultField } from '../api/jobs.js';
import { BufferPool } from '../util/buffer-pool.js';
import { type ByteOut, putCsvField } from '../util/csv-field.js';
import { columnTypeOfResult } from './column-types.js';
import { restCanon } from './rest-cells.js';

interface CsvPage {
  /** Every member of the body but `rows`, parsed. */
  envelope: Record<string, unknown>;
  /** The CSV lines of the rows, each ending in LF, in the order of `columns`. */
  csv: Uint8Array;
  rows: number;
}

class GiveUp extends Error {}
const giveUp = (): never => {
  throw new GiveUp();
};

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const LF = 10;

/**
 * The page as CSV, or undefined when the page is not of the shape this reads. `columns(schema)` gives the
 * column names from the page's `schema` member (or undefined to give up, e.g. for nested types).
 */
export function csvFromResultsPage(
  body: Uint8Array,
  limit: number,
  columns: (schema: unknown) => DirectColumns | undefined,
  /** Where the CSV is written: a buffer of this pool (the caller gives it back), else a new one. */
  buffers = new BufferPool(0),
): CsvPage | undefined {
  // Copying bytes must not carry bytes a decoder would have replaced: such a page takes the ordinary path.
  if (!isUtf8(body)) return undefined;
  const scanner = new Scanner(Buffer.from(body.buffer, body.byteOffset, body.byteLength), buffers);
  try {
    return scanner.page(limit, columns);
  } catch (e) {
    scanner.giveBack();
    // A member JSON.parse refuses is text that is not JSON: the ordinary path says so.
    if (e instanceof GiveUp || e instanceof SyntaxError) return undefined;
    throw e;
  }
}

// What a cell's value is, with its byte range in the body (kept per cell for a row read out of order):
/** Null: the empty field. */
const EMPTY = 0;
/**
 * Bytes written as they are: a number, true or false, a string's content without escapes and without a
 * comma (such content holds no quote, CR or LF either: the one CSV encoder would copy it as it is).
 */
const RAW = 1;
/** A string's content without escapes but with a comma: written by the one CSV encoder (csv-field.ts). */
const QUOTED = 2;
/** A string with escapes (from its opening quote to past its closing one): decoded as it is written. */
const ESCAPED = 3;

class Scanner implements ByteOut {
  private pos = 0;
  private out: Buffer;
  w = 0;
  /** Where an escaped string is decoded before it is encoded as CSV. */
  private scratch = Buffer.allocUnsafe(256);
  /** The kind and range of the last value read by `value()`. */
  private kind = EMPTY;
  private from = 0;
  private to = 0;
  /** Each column's cell text to its canonical text, where it is not copied as it came. */
  private canon: DirectColumns['canon'] = [];

  constructor(
    private readonly b: Buffer,
    private readonly buffers: BufferPool,
  ) {
    // CSV is never longer than the JSON it comes from (keys, braces and quotes go; escapes shrink), so this
    // rarely grows; `reserve` grows it where a page proves that wrong.
    this.out = buffers.take(b.length);
  }

  /** The output buffer, not to be used: back to the pool. */
  giveBack(): void {
    this.buffers.give(this.out);
  }

  page(limit: number, columns: (schema: unknown) => DirectColumns | undefined): CsvPage {
    const envelope: Record<string, unknown> = {};
    let rows: number | undefined;
    this.expect(123 /* { */);
    if (!this.eat(125 /* } */)) {
      do {
        const key = this.key();
        if (key === 'rows') {
          if (!('schema' in envelope) || rows !== undefined) giveUp();
          const cols = columns(envelope.schema) ?? giveUp();
          this.canon = cols.canon;
          rows = this.rows(cols.names, limit);
        } else {
          const start = this.skipWs();
          this.skipValue();
          Object.defineProperty(envelope, key, {
            value: JSON.parse(this.b.toString('utf8', start, this.pos)),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
      } while (this.eat(COMMA));
      this.expect(125 /* } */);
    }
    if (this.skipWs() !== this.b.length || rows === undefined) giveUp();
    return { envelope, csv: this.out.subarray(0, this.w), rows: rows! };
  }

  /** The rows array, written as CSV lines: their count. */
  private rows(names: readonly string[], limit: number): number {
    const width = names.length;
    const quoted = names.map((n) => Buffer.from(JSON.stringify(n)));
    const keyed = names.map((n) => Buffer.from(`${JSON.stringify(n)}:`));
    const index = new Map(names.map((n, i) => [n, i]));
    const cells = new Int32Array(width * 3);
    let count = 0;
    this.expect(91 /* [ */);
    if (this.eat(93 /* ] */)) return 0;
    do {
      if (++count > limit) giveUp();
      const start = this.pos;
      const line = this.w;
      // Most rows hold every column in the schema's order: written as they are read. Any other row is
      // read again from its start, into cells by name.
      if (!this.orderedRow(quoted, keyed)) {
        this.pos = start;
        this.w = line;
        this.anyRow(quoted, index, cells);
      }
      if (width === 0) this.w = line;
    } while (this.eat(COMMA));
    this.expect(93 /* ] */);
    return count;
  }

  /**
   * A row whose keys are exactly the columns, in order: written as its CSV line (else false). `keyed` are
   * the keys with their colon, as compact JSON writes them: read in one comparison, whitespace looked for
   * only where they are not found.
   */
  private orderedRow(quoted: readonly Buffer[], keyed: readonly Buffer[]): boolean {
    const b = this.b;
    // Such a row's CSV is never longer than its JSON: room for the rest of the body is room enough.
    this.reserve(b.length - this.pos);
    this.expect(123 /* { */);
    for (let c = 0; c < quoted.length; c++) {
      if (c > 0) {
        if (b[this.pos] === COMMA) this.pos++;
        else if (!this.eat(COMMA)) return false;
        this.out[this.w++] = COMMA;
      }
      const k = keyed[c]!;
      if (this.at(k)) this.pos += k.length;
      else {
        const q = quoted[c]!;
        this.skipWs();
        if (!this.at(q)) return false;
        this.pos += q.length;
        this.expect(COLON);
      }
      this.value();
      this.write(this.kind, this.from, this.to, c);
    }
    if (!this.eat(125 /* } */)) return false;
    this.out[this.w++] = LF;
    return true;
  }

  /** Any row: keys in any order, missing or repeated (the last wins); an unknown key gives up. */
  private anyRow(quoted: readonly Buffer[], index: Map<string, number>, cells: Int32Array): void {
    cells.fill(0);
    this.expect(123 /* { */);
    if (!this.eat(125 /* } */)) {
      let expected = 0;
      do {
        this.skipWs();
        // Try the next column's key before decoding the key.
        let c: number | undefined;
        const q = quoted[expected];
        if (q !== undefined && this.at(q)) {
          this.pos += q.length;
          c = expected;
        } else c = index.get(this.key(false));
        this.expect(COLON);
        // A key the schema does not name: the ordinary path refuses the page (api/jobs.ts), never drops it.
        if (c === undefined) giveUp();
        else {
          this.value();
          cells[c * 3] = this.kind;
          cells[c * 3 + 1] = this.from;
          cells[c * 3 + 2] = this.to;
          expected = c + 1;
        }
      } while (this.eat(COMMA));
      this.expect(125 /* } */);
    }
    for (let c = 0; c < quoted.length; c++) {
      if (c > 0) this.put(COMMA);
      this.emit(cells[c * 3]!, cells[c * 3 + 1]!, cells[c * 3 + 2]!, c);
    }
    this.put(LF);
  }

  /** Reads one value into `kind`, `from` and `to`; nested values give up. */
  private value(): void {
    const b = this.b;
    const start = this.skipWs();
    const c = b[start]!;
    this.from = start;
    if (c === QUOTE) {
      // Content without escapes is copied as it is; a comma (the one byte of it CSV must quote) is noted.
      let comma = false;
      const end = b.length;
      for (let i = start + 1; i < end; i++) {
        const d = b[i]!;
        if (STRING_BYTE[d] === 0) continue;
        if (d === QUOTE) {
          this.kind = comma ? QUOTED : RAW;
          this.from = start + 1;
          this.to = i;
          this.pos = i + 1;
          return;
        }
        if (d === BACKSLASH) {
          this.skipString(start);
          this.kind = ESCAPED;
          this.to = this.pos;
          return;
        }
        if (d < 32) giveUp();
        if (d === COMMA) comma = true;
      }
      giveUp();
    }
    if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      this.kind = RAW;
      this.pos = this.number(start);
    } else if (c === 116 && b[start + 1] === 114 && b[start + 2] === 117 && b[start + 3] === 101) {
      this.kind = RAW; // true
      this.pos = start + 4;
    } else if (
      c === 102 &&
      b[start + 1] === 97 &&
      b[start + 2] === 108 &&
      b[start + 3] === 115 &&
      b[start + 4] === 101
    ) {
      this.kind = RAW; // false
      this.pos = start + 5;
    } else if (c === 110 && b[start + 1] === 117 && b[start + 2] === 108 && b[start + 3] === 108) {
      this.kind = EMPTY; // null
      this.pos = start + 4;
    }
    // An object or array (a nested value): written as JSON text by the ordinary path.
    else giveUp();
    this.to = this.pos;
  }

  /** The end of a JSON number starting at `i` (its grammar checked: what is copied must be a number). */
  private number(i: number): number {
    const b = this.b;
    if (b[i] === 45) i++;
    if (b[i] === 48) i++;
    else i = this.digits(i);
    if (b[i] === 46 /* . */) i = this.digits(i + 1);
    if (b[i] === 101 || b[i] === 69 /* e E */) {
      i++;
      if (b[i] === 43 || b[i] === 45) i++;
      i = this.digits(i);
    }
    return i;
  }

  /** The end of one or more digits from `i`. */
  private digits(i: number): number {
    const b = this.b;
    const from = i;
    while (b[i]! >= 48 && b[i]! <= 57) i++;
    if (i === from) giveUp();
    return i;
  }

  /** Writes one cell, with room made for it (its JSON text, `from`..`to`, is at least as long as its CSV). */
  private emit(kind: number, from: number, to: number, column: number): void {
    this.reserve(to - from + 2);
    this.write(kind, from, to, column);
  }

  /** Writes one cell of `column` where there is room for it (a canonical text made longer makes its own). */
  private write(kind: number, from: number, to: number, column: number): void {
    const canon = this.canon[column];
    if (canon !== undefined && kind !== EMPTY) {
      // Only numbers and plain strings are read as such texts; anything else is the ordinary path's to refuse.
      if (kind !== RAW) giveUp();
      const text = canon(this.b.toString('latin1', from, to), this.b[from - 1] === QUOTE) ?? giveUp();
      this.reserve(text.length);
      for (let k = 0; k < text.length; k++) this.out[this.w++] = text.charCodeAt(k);
    } else if (kind === RAW) this.copy(from, to);
    else if (kind === QUOTED) putCsvField(this, this.b, from, to);
    else if (kind === ESCAPED) this.unescape(from + 1, to - 1);
  }

  private copy(from: number, to: number): void {
    const b = this.b;
    const out = this.out;
    let w = this.w;
    for (let i = from; i < to; i++) out[w++] = b[i]!;
    this.w = w;
  }

  /**
   * The content of a string with escapes, decoded as UTF-8, then written as a CSV field by the one encoder
   * (csv-field.ts). A lone surrogate becomes U+FFFD, as it does when a decoded string is written out as UTF-8.
   */
  private unescape(from: number, to: number): void {
    const b = this.b;
    // Decoded, a string is never longer than its escaped JSON text.
    if (this.scratch.length < to - from)
      this.scratch = Buffer.allocUnsafe(Math.max(to - from, 2 * this.scratch.length));
    const out = this.scratch;
    let n = 0;
    for (let i = from; i < to; ) {
      const c = b[i]!;
      if (c !== BACKSLASH) {
        out[n++] = c;
        i++;
        continue;
      }
      const e = b[i + 1]!;
      i += 2;
      if (e === 117 /* u */) {
        let u = this.hex4(i);
        i += 4;
        if (u >= 0xd800 && u <= 0xdbff && b[i] === BACKSLASH && b[i + 1] === 117) {
          const low = this.hex4(i + 2);
          if (low >= 0xdc00 && low <= 0xdfff) {
            u = 0x10000 + ((u - 0xd800) << 10) + (low - 0xdc00);
            i += 6;
          }
        }
        n = utf8(out, n, u >= 0xd800 && u <= 0xdfff ? 0xfffd : u);
      } else {
        const d = UNESCAPED[e]!;
        if (d === 0) giveUp();
        out[n++] = d;
      }
    }
    putCsvField(this, out, 0, n);
  }

  /** The code unit of the four hex digits at `i`. */
  private hex4(i: number): number {
    let u = 0;
    for (let k = i; k < i + 4; k++) {
      const h = HEX[this.b[k] ?? 0]!;
      if (h < 0) giveUp();
      u = (u << 4) | h;
    }
    return u;
  }

  private put(byte: number): void {
    this.reserve(1);
    this.out[this.w++] = byte;
  }

  /** The output buffer, as csv-field.ts writes into it. */
  get buf(): Uint8Array {
    return this.out;
  }

  reserve(n: number): void {
    if (this.w + n <= this.out.length) return;
    const grown = this.buffers.take(Math.max(this.out.length * 2, this.w + n));
    this.out.copy(grown, 0, 0, this.w);
    this.buffers.give(this.out);
    this.out = grown;
  }

  /** Whether the bytes at `pos` are `bytes`. */
  private at(bytes: Buffer): boolean {
    const b = this.b;
    const p = this.pos;
    if (p + bytes.length > b.length) return false;
    for (let i = 0; i < bytes.length; i++) if (b[p + i] !== bytes[i]) return false;
    return true;
  }

  /** A member's key, then (with `colon`) its colon. */
  private key(colon = true): string {
    const start = this.skipWs();
    if (this.b[start] !== QUOTE) giveUp();
    this.skipString(start);
    const k = JSON.parse(this.b.toString('utf8', start, this.pos)) as string;
    if (colon) this.expect(COLON);
    return k;
  }

  /** Moves past the string whose opening quote is at `start` (a quote not escaped ends it). */
  private skipString(start: number): void {
    const b = this.b;
    const end = b.length;
    let i = start + 1;
    while (i < end) {
      const c = b[i]!;
      if (c === QUOTE) {
        this.pos = i + 1;
        return;
      }
      if (c < 32) giveUp();
      i += c === BACKSLASH ? 2 : 1;
    }
    giveUp();
  }

  /** Moves past one value of any kind (checked by JSON.parse later where it is kept). */
  private skipValue(): void {
    const b = this.b;
    const c = b[this.pos];
    if (c === QUOTE) {
      this.skipString(this.pos);
      return;
    }
    if (c === 123 || c === 91) {
      let depth = 0;
      do {
        const d = b[this.pos];
        if (d === undefined) giveUp();
        if (d === QUOTE) {
          this.skipString(this.pos);
          continue;
        }
        if (d === 123 || d === 91) depth++;
        else if (d === 125 || d === 93) depth--;
        this.pos++;
      } while (depth > 0);
      return;
    }
    // A number or literal: up to the next delimiter.
    const start = this.pos;
    for (let d = b[this.pos]; d !== undefined && !DELIMITER.has(d); d = b[++this.pos]);
    if (this.pos === start) giveUp();
  }

  private skipWs(): number {
    const b = this.b;
    let c = b[this.pos];
    while (c === 32 || c === 10 || c === 13 || c === 9) c = b[++this.pos];
    return this.pos;
  }

  private eat(code: number): boolean {
    if (this.b[this.skipWs()] !== code) return false;
    this.pos++;
    return true;
  }

  private expect(code: number): void {
    if (!this.eat(code)) giveUp();
  }
}

/** 0 for a byte a string's content copies as it is; 1 for a quote, backslash, comma or control character. */
const STRING_BYTE = new Uint8Array(256);
STRING_BYTE.fill(1, 0, 32);
for (const byte of [QUOTE, BACKSLASH, COMMA]) STRING_BYTE[byte] = 1;
/** What a one-letter escape stands for, by the letter's byte (0: no such escape). */
const UNESCAPED = new Uint8Array(256);
for (const [letter, byte] of Object.entries({ '"': 34, '\\': 92, '/': 47, b: 8, f: 12, n: 10, r: 13, t: 9 }))
  UNESCAPED[letter.charCodeAt(0)] = byte;
/** The value of a hex digit, by its byte (-1: not a hex digit). */
const HEX = new Int8Array(256).fill(-1);
for (let v = 0; v < 16; v++) {
  HEX[v.toString(16).charCodeAt(0)] = v;
  HEX[v.toString(16).toUpperCase().charCodeAt(0)] = v;
}
/** Writes code point `cp` as UTF-8 into `out` at `w`: the position after it. */
function utf8(out: Uint8Array, w: number, cp: number): number {
  if (cp < 0x80) out[w++] = cp;
  else if (cp < 0x800) {
    out[w++] = 0xc0 | (cp >> 6);
    out[w++] = 0x80 | (cp & 63);
  } else if (cp < 0x10000) {
    out[w++] = 0xe0 | (cp >> 12);
    out[w++] = 0x80 | ((cp >> 6) & 63);
    out[w++] = 0x80 | (cp & 63);
  } else {
    out[w++] = 0xf0 | (cp >> 18);
    out[w++] = 0x80 | ((cp >> 12) & 63);
    out[w++] = 0x80 | ((cp >> 6) & 63);
    out[w++] = 0x80 | (cp & 63);
  }
  return w;
}

/** What ends a number or literal: whitespace, `,`, `}` and `]`. */
const DELIMITER = new Set([32, 10, 13, 9, 44, 125, 93]);

/** How a CSV page read straight from its bytes writes each column. */
interface DirectColumns {
  names: string[];
  /** A column's cell text to its canonical text, where it is not written as it came (rest-cells.ts restCanon). */
  canon: (((text: string, isString: boolean) => string | undefined) | undefined)[];
}

/** The columns of a results `schema` (as the service sent it) when all are flat, else undefined. */
export function flatColumns(schema: unknown): DirectColumns | undefined {
  // No schema, or an empty one: the ordinary path takes the rows' own keys (api/jobs.ts fieldsOfRows).
  if (!Array.isArray(schema) || schema.length === 0) return undefined;
  const names: string[] = [];
  const canon: DirectColumns['canon'] = [];
  for (const f of schema as Array<{ name?: unknown; type?: ResultField['type'] } | null>) {
    if (typeof f?.name !== 'string' || typeof f?.type?.name !== 'string') return undefined;
    const fix = restCanon(columnTypeOfResult(f.type), f.name);
    if (fix === null) return undefined;
    names.push(f.name);
    canon.push(fix);
  }
  return { names, canon };
}
