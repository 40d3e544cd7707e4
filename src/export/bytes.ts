// A growing byte buffer that the text formats write into (Arrow batches, and REST pages' nested cells).
import type { ByteOut } from '../util/csv-field.js';

const QUOTE = 34;
const BACKSLASH = 92;

/**
 * What `take` hands out is the sink's from then on (docs/architecture.md "Delivery"): the next piece is written
 * into a new buffer, never over bytes a sink may still be writing.
 */
export class Bytes implements ByteOut {
  buf: Buffer;
  w = 0;

  constructor(size = 1 << 16) {
    this.buf = Buffer.allocUnsafe(size);
  }

  reserve(n: number): void {
    if (this.w + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.w + n));
    this.buf.copy(grown, 0, 0, this.w);
    this.buf = grown;
  }

  byte(b: number): void {
    this.reserve(1);
    this.buf[this.w++] = b;
  }

  /** A short ASCII text (a number's): copied code unit by code unit, cheaper than Buffer.write's set-up. */
  ascii(s: string): void {
    const n = s.length;
    this.reserve(n);
    const out = this.buf;
    let w = this.w;
    for (let k = 0; k < n; k++) out[w++] = s.charCodeAt(k);
    this.w = w;
  }

  text(s: string): void {
    this.reserve(s.length * 3);
    this.w += this.buf.write(s, this.w, 'utf8');
  }

  raw(src: Uint8Array, from: number, to: number): void {
    const n = to - from;
    this.reserve(n);
    const out = this.buf;
    if (n > 32) {
      out.set(src.subarray(from, to), this.w);
      this.w += n;
      return;
    }
    let w = this.w;
    for (let i = from; i < to; i++) out[w++] = src[i]!;
    this.w = w;
  }

  /**
   * UTF-8 bytes `src[from, to)` as a JSON string, as JSON.stringify writes the text they hold: copied between
   * quotes when nothing needs escaping, else decoded and written by JSON.stringify.
   */
  jsonString(src: Uint8Array, from: number, to: number): void {
    for (let k = from; k < to; k++) {
      const c = src[k]!;
      if (c < 32 || c === QUOTE || c === BACKSLASH) {
        this.text(JSON.stringify(Buffer.from(src.buffer, src.byteOffset + from, to - from).toString('utf8')));
        return;
      }
    }
    this.byte(QUOTE);
    this.raw(src, from, to);
    this.byte(QUOTE);
  }

  /** The bytes written since the last take, handed over: writing goes on in a new buffer of the same size. */
  take(): Uint8Array {
    const out = this.buf.subarray(0, this.w);
    this.buf = Buffer.allocUnsafe(this.buf.length);
    this.w = 0;
    return out;
  }

  /** The bytes written, for a caller that copies them at once; writing then starts again in the same buffer. */
  reset(): void {
    this.w = 0;
  }
}
