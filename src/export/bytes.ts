// A growing byte buffer that the text formats write into (Arrow batches, and REST pages' nested cells).
import type { ByteOut } from '../util/csv-field.js';
import { doubleText } from './values.js';

const QUOTE = 34;
const BACKSLASH = 92;
const MINUS = 45;
const ZERO = 48;
const POINT = 46;

/** 10^0 … 10^15, every one exact as a double. */
const POW10 = Array.from({ length: 16 }, (_, k) => 10 ** k);

/**
 * How JSON.stringify escapes each byte of ASCII text: 0 not at all, 1 as `\u00XX`, else the character after a
 * backslash (`"`, `\`, and b, f, n, r, t for their control characters).
 */
const ESCAPE = new Uint8Array(256);
for (let c = 0; c < 32; c++) ESCAPE[c] = 1;
for (const [c, e] of [
  [8, 'b'],
  [9, 't'],
  [10, 'n'],
  [12, 'f'],
  [13, 'r'],
  [QUOTE, '"'],
  [BACKSLASH, '\\'],
] as const)
  ESCAPE[c] = e.charCodeAt(0);
const HEX = Buffer.from('0123456789abcdef');

/** The decimal digits of a non-negative integer below 2^53. */
function digitCount(n: number): number {
  let len = 1;
  while (len < 16 && n >= POW10[len]!) len++;
  return len;
}

/**
 * What `take` hands out is the sink's from then on (docs/architecture.md "Delivery"): the next piece is written
 * into a new buffer, never over bytes a sink may still be writing.
 */
export class Bytes implements ByteOut {
  buf: Buffer;
  w = 0;
  /** The buffer `take` handed out last, and that buffer once it is given back. */
  private lent?: Buffer;
  private spare?: Buffer;

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

  /**
   * An integer's decimal digits (a safe integer: |n| < 2^53), written straight into the buffer: what
   * `String(n)` writes, without the string.
   */
  int(n: number): void {
    this.reserve(17);
    const out = this.buf;
    if (n < 0) {
      out[this.w++] = MINUS;
      n = -n;
    }
    this.w += digitCount(n);
    this.digits(n, this.w);
  }

  /** The digits of the non-negative safe integer `n`, ending just before `end` (room reserved by the caller). */
  private digits(n: number, end: number): void {
    const out = this.buf;
    let p = end;
    while (n >= 2147483648) {
      const q = Math.floor(n / 10);
      out[--p] = ZERO + (n - q * 10);
      n = q;
    }
    let m = n | 0;
    do {
      const q = (m / 10) | 0;
      out[--p] = ZERO + (m - q * 10);
      m = q;
    } while (m > 0);
  }

  /**
   * A DOUBLE in its canonical text (values.ts `doubleText`: ECMAScript's shortest round-trip text), written
   * straight into the buffer when it is a decimal of at most 3 fraction digits and 15 significant ones between
   * 1e-6 and 1e15 (`123.45`, `0.5`, `-42`: amounts, prices, measures), else through `doubleText` (NaN, the
   * infinities, -0, more digits, exponents). When `k = round(|v|·1000)` divides back to `|v|` exactly, `v` reads
   * back from `k / 1000`, and from `k` without its trailing zeros over the power of ten left: no shorter text
   * reads back as `v` (one of fewer fraction digits, scaled to three, would be an integer within a double of
   * `|v|·1000`, and at 15 significant digits or fewer such decimals are more than four doubles apart, so it
   * would be `k`), and that is the one Number#toString writes, in this fixed notation. One multiplication and
   * one division decide; checked against `String(v)` by test/unit/flight-writers.test.ts.
   */
  double(v: number): void {
    const a = v < 0 ? -v : v;
    // NaN fails both comparisons; 0 (and -0) is below 1e-6.
    if (a >= 1e-6 && a < 1e12) {
      let k = Math.round(a * 1000);
      if (k / 1000 === a) {
        let d = 3;
        while (d > 0 && k % 10 === 0) {
          k /= 10;
          d--;
        }
        this.decimal(v < 0, k, d);
        return;
      }
    }
    this.ascii(doubleText(v));
  }

  /** `k / 10^d` in plain notation (`-` first when `negative`): `12.345`, `0.005`, `42`. */
  private decimal(negative: boolean, k: number, d: number): void {
    const len = digitCount(k);
    // Sign, `0.` and the zeros before the digits of a value below 1, the point: at most 24 bytes.
    this.reserve(len + d + 4);
    const out = this.buf;
    if (negative) out[this.w++] = MINUS;
    if (d === 0) {
      this.w += len;
      this.digits(k, this.w);
      return;
    }
    if (len <= d) {
      out[this.w++] = ZERO;
      out[this.w++] = POINT;
      for (let z = len; z < d; z++) out[this.w++] = ZERO;
      this.w += len;
      this.digits(k, this.w);
      return;
    }
    // The integer part, the point, then the d fraction digits (with their leading zeros).
    const scale = POW10[d]!;
    const whole = Math.floor(k / scale);
    let fraction = k - whole * scale;
    this.w += len - d;
    this.digits(whole, this.w);
    out[this.w++] = POINT;
    const end = this.w + d;
    for (let p = end - 1; p >= this.w; p--) {
      const q = Math.floor(fraction / 10);
      out[p] = ZERO + (fraction - q * 10);
      fraction = q;
    }
    this.w = end;
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
   * quotes when nothing needs escaping; ASCII text with a quote, a backslash or a control character escaped
   * here as JSON.stringify escapes it (`\"`, `\\`, `\n`, `\u001f`); other text decoded and written by
   * JSON.stringify (so that bytes that are not UTF-8 become what decoding makes of them, as before).
   */
  jsonString(src: Uint8Array, from: number, to: number): void {
    let escapes = 0;
    let ascii = true;
    for (let k = from; k < to; k++) {
      const c = src[k]!;
      if (ESCAPE[c] !== 0) escapes++;
      else if (c >= 0x80) ascii = false;
    }
    if (escapes === 0) {
      this.reserve(to - from + 2);
      this.buf[this.w++] = QUOTE;
      this.raw(src, from, to);
      this.buf[this.w++] = QUOTE;
      return;
    }
    if (!ascii) {
      this.text(JSON.stringify(Buffer.from(src.buffer, src.byteOffset + from, to - from).toString('utf8')));
      return;
    }
    // At most 6 bytes an escaped character (\u00XX).
    this.reserve(to - from + escapes * 5 + 2);
    const out = this.buf;
    let w = this.w;
    out[w++] = QUOTE;
    for (let k = from; k < to; k++) {
      const c = src[k]!;
      const e = ESCAPE[c]!;
      if (e === 0) out[w++] = c;
      else if (e !== 1) {
        out[w++] = BACKSLASH;
        out[w++] = e;
      } else {
        out[w++] = BACKSLASH;
        out[w++] = 117; // u
        out[w++] = ZERO;
        out[w++] = ZERO;
        out[w++] = HEX[c >> 4]!;
        out[w++] = HEX[c & 15]!;
      }
    }
    out[w++] = QUOTE;
    this.w = w;
  }

  /**
   * The bytes written since the last take, handed over: writing goes on in a new buffer of the same size, or
   * in the one last handed over once it is given back (`recycle`).
   */
  take(): Uint8Array {
    const out = this.buf.subarray(0, this.w);
    this.lent = this.buf;
    this.buf = this.spare ?? Buffer.allocUnsafe(this.buf.length);
    this.spare = undefined;
    this.w = 0;
    return out;
  }

  /** `chunk`, which `take` handed out last, is free again: its buffer is filled next (no new one allocated). */
  recycle(chunk: Uint8Array): void {
    if (this.lent && chunk.buffer === this.lent.buffer && this.lent.length >= this.buf.length)
      this.spare = this.lent;
    this.lent = undefined;
  }

  /** The bytes written, for a caller that copies them at once; writing then starts again in the same buffer. */
  reset(): void {
    this.w = 0;
  }
}
