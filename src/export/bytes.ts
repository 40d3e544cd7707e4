// A growing byte buffer that the text formats write into (Arrow batches, and REST pages' nested cells).
import type { ByteOut } from '../util/csv-field.js';
import { doubleText } from './values.js';

const QUOTE = 34;
const BACKSLASH = 92;
const MINUS = 45;
const ZERO = 48;
const POINT = 46;

/** 10^0 … 10^22, every one exact as a double. */
const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

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

/** A double's bits (`BITS[1]` the sign, exponent and high mantissa), and a power of two made from bits. */
const FLOAT = new Float64Array(2);
const BITS = new Uint32Array(FLOAT.buffer);
/** Veltkamp's constant, 2^27 + 1: splits a double into two halves of 26 bits whose products are exact. */
const SPLIT = 134217729;
const LOG10_2 = Math.log10(2);

/**
 * The shortest text that reads back as the double `a` (1e-6 ≤ a < 1e15, so in plain notation), and of those
 * the closest to `a`: what Number#toString writes (ECMAScript's Number::toString with its recommended
 * closest choice, which V8 implements exactly), written into `out` at `w`; the end of the text, or -1 where
 * this cannot be sure (a tie, a candidate on the edge of `a`'s rounding interval, a power of two): the
 * caller then asks Number#toString.
 *
 * `X = a·10^p` with 10^16 < X < 10^17 is computed exactly as the sum `hi + lo` of two doubles (Dekker's
 * product: 10^p ≤ 10^22 is exact), and `a`'s rounding interval scaled alike is `X ± D`, `D` half an ulp of `a`
 * times 10^p (exact: a power of two times 10^p; between 0.55 and 11.1). For 15, 16 then 17 significant digits,
 * the nearest multiple `K` of 100, 10 then 1 to X is a decimal of that many digits closest to `a`; it reads
 * back as `a` exactly when `|X − K| < D`, and when it does not, none of its length does (the interval is
 * symmetric but at powers of two, which are left to Number#toString). The first that does is the answer, its
 * trailing zeros dropped (at 15 digits or fewer decimals are more than an ulp apart: one such decimal at
 * most, so fewer digits need no test of their own); at 17 digits one always does (2D > 1). `X − K` is
 * `lo − c` for a small integer `c`, so every comparison is of numbers within a few units, exact to far
 * better than the margin of 1e-9 kept from every edge.
 */
function shortestDigits(a: number, out: Uint8Array, w: number): number {
  FLOAT[0] = a;
  const low = BITS[0]!;
  const high = BITS[1]!;
  if ((high & 0xfffff) === 0 && low === 0) return -1;
  const exponent = (high >>> 20) & 0x7ff;
  // log10(a) from its binary exponent, one below at most: corrected by the range of hi.
  let p = 16 - Math.floor((exponent - 1023) * LOG10_2);
  let scale = POW10[p]!;
  let hi = a * scale;
  if (hi < 1e16 || hi >= 1e17) {
    p += hi < 1e16 ? 1 : -1;
    scale = POW10[p]!;
    hi = a * scale;
  }
  if (!(hi > 1e16 && hi < 1e17) || p > 22) return -1;
  // lo = a·10^p − hi, exactly (Dekker's two-product).
  let t = SPLIT * a;
  const aHigh = t - (t - a);
  const aLow = a - aHigh;
  t = SPLIT * scale;
  const sHigh = t - (t - scale);
  const sLow = scale - sHigh;
  const lo = aHigh * sHigh - hi + aHigh * sLow + aLow * sHigh + aLow * sLow;
  // Half an ulp of a, 2^(exponent − 1076), from its bits; scaled.
  BITS[2] = 0;
  BITS[3] = (exponent - 53) << 20;
  const half = FLOAT[1]! * scale;
  // hi = top·10^8 + bottom, both integers (top·10^8 is exact: top < 2^30 and 10^8 = 2^8·5^8).
  let top = Math.floor(hi / 1e8);
  let bottom = hi - top * 1e8;
  if (bottom < 0) {
    top -= 1;
    bottom += 1e8;
  } else if (bottom >= 1e8) {
    top += 1;
    bottom -= 1e8;
  }
  const b = bottom | 0;
  for (let step = 100; step >= 1; step = (step / 10) | 0) {
    // K = hi − (b mod step) + step·j, the multiple of step nearest to X: X − K = lo − c.
    const r = b % step;
    const c = step * Math.round((r + lo) / step) - r;
    const d = lo - c;
    const away = d < 0 ? -d : d;
    if (away > (step / 2) * (1 - 1e-9) || Math.abs(away - half) <= half * 1e-9) return -1;
    if (away < half) return writeScaled(top | 0, b + c, p, out, w);
  }
  return -1;
}

/** The two digits of 0 … 99, by twice the number. */
const PAIRS = Buffer.from(
  Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0')).join(''),
  'latin1',
);

/** The 8 digits of `x` (0 ≤ x < 10^8, zeros first) at `out[at]`, two at a time. */
function eightDigits(x: number, out: Uint8Array, at: number): void {
  const high = (x / 10000) | 0;
  const low = x - high * 10000;
  let d = (high / 100) | 0;
  out[at] = PAIRS[2 * d]!;
  out[at + 1] = PAIRS[2 * d + 1]!;
  d = high - d * 100;
  out[at + 2] = PAIRS[2 * d]!;
  out[at + 3] = PAIRS[2 * d + 1]!;
  d = (low / 100) | 0;
  out[at + 4] = PAIRS[2 * d]!;
  out[at + 5] = PAIRS[2 * d + 1]!;
  d = low - d * 100;
  out[at + 6] = PAIRS[2 * d]!;
  out[at + 7] = PAIRS[2 * d + 1]!;
}

/**
 * `(top·10^8 + bottom) / 10^p` in plain notation without trailing zeros (`bottom` a little outside 0…10^8, the
 * sum of 17 or 18 digits): its digits written two at a time one byte on, then those before the point moved
 * back over that byte to make room for the point.
 */
function writeScaled(top: number, bottom: number, p: number, out: Uint8Array, w: number): number {
  if (bottom < 0) {
    top -= 1;
    bottom += 100000000;
  } else if (bottom >= 100000000) {
    top += 1;
    bottom -= 100000000;
  }
  // top is 10^8 … 10^9: its first one or two digits, then eight.
  const first = (top / 100000000) | 0;
  const rest = top - first * 100000000;
  const lead = first >= 10 ? 2 : 1;
  const digits = lead + 16;
  // Digits before the point (none, or zeros after it, when not positive).
  const whole = digits - p;
  const at = whole <= 0 ? w + 2 - whole : w + 1;
  if (lead === 2) {
    out[at] = ZERO + 1;
    out[at + 1] = ZERO;
  } else out[at] = ZERO + first;
  eightDigits(rest, out, at + lead);
  eightDigits(bottom, out, at + lead + 8);
  let last = at + digits;
  while (last > at + 1 && out[last - 1] === ZERO) last--;
  if (whole <= 0) {
    out[w] = ZERO;
    out[w + 1] = POINT;
    for (let z = w + 2; z < at; z++) out[z] = ZERO;
    return last;
  }
  // The digits before the point one byte back; the point after them, unless nothing follows it.
  for (let k = 0; k < whole; k++) out[w + k] = out[at + k]!;
  if (last > at + whole) {
    out[w + whole] = POINT;
    return last;
  }
  return w + whole;
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
   * A DOUBLE in its canonical text (values.ts `doubleText`: ECMAScript's shortest round-trip text, the one
   * Number#toString writes), straight into the buffer for a magnitude between 1e-6 and 1e15 (where that text is
   * in plain notation), else through `doubleText` (NaN, the infinities, 0, -0, exponents). A decimal of at most
   * 3 fraction digits below 2^31 / 1000 (`123.45`, `0.5`, `-42`: amounts, prices, measures) from
   * `k = round(|v|·1000)` when `k / 1000` is `|v|` again: `v` then reads back from `k / 1000`, and from `k`
   * without its trailing zeros over the power of ten left; no shorter text reads back as `v` (one of fewer
   * fraction digits, scaled to three, would be an integer within a double of `|v|·1000`, and such small
   * decimals are more than four doubles apart, so it would be `k`). Any other from its exact product with a
   * power of ten (`shortestDigits`). Both checked against `String(v)` by test/unit/flight-writers.test.ts.
   */
  double(v: number): void {
    const a = v < 0 ? -v : v;
    // NaN fails both comparisons; 0 (and -0) is below 1e-6.
    if (a >= 1e-6 && a < 1e15) {
      if (a < 2147483.647) {
        const k = Math.round(a * 1000);
        if (k / 1000 === a) {
          this.smallDecimal(v < 0, k | 0);
          return;
        }
      }
      // `-0.00000` and 17 digits at most.
      this.reserve(32);
      const w = this.w;
      if (v < 0) this.buf[w] = MINUS;
      const end = shortestDigits(a, this.buf, v < 0 ? w + 1 : w);
      if (end >= 0) {
        this.w = end;
        return;
      }
    }
    this.ascii(doubleText(v));
  }

  /**
   * `k / 1000` in plain notation for `k` below 2^31 (`-` first when `negative`), in 32-bit integer arithmetic
   * (a double's `%` and `Math.floor` are slower).
   */
  private smallDecimal(negative: boolean, k: number): void {
    let d = 3;
    while (d > 0 && k % 10 === 0) {
      k = (k / 10) | 0;
      d--;
    }
    let len = 1;
    while (len < 10 && k >= POW10[len]!) len++;
    // Sign, `0.` and the zeros before the digits of a value below 1, the digits: at most 16 bytes.
    this.reserve(16);
    const out = this.buf;
    let w = this.w;
    if (negative) out[w++] = MINUS;
    let end: number;
    if (len <= d) {
      out[w++] = ZERO;
      out[w++] = POINT;
      for (let z = len; z < d; z++) out[w++] = ZERO;
      end = w + len;
    } else end = w + len + (d > 0 ? 1 : 0);
    let p = end;
    // The fraction digits, the point (after `d` of them), then the rest.
    for (let j = 0; j < d && p > w; j++) {
      const q = (k / 10) | 0;
      out[--p] = ZERO + k - q * 10;
      k = q;
      if (j === d - 1 && len > d) out[--p] = POINT;
    }
    while (p > w) {
      const q = (k / 10) | 0;
      out[--p] = ZERO + k - q * 10;
      k = q;
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
   * quotes when nothing needs escaping (checked as they are copied, one pass); ASCII text with a quote, a
   * backslash or a control character written again from its start, escaped here as JSON.stringify escapes it
   * (`\"`, `\\`, `\n`, `\u001f`); other text decoded and written by JSON.stringify (so that bytes that are not
   * UTF-8 become what decoding makes of them, as before).
   */
  jsonString(src: Uint8Array, from: number, to: number): void {
    this.string(src, from, to, false);
  }

  /** `jsonString`'s text with every quote doubled: inside a quoted CSV field (a nested cell's JSON in CSV). */
  jsonStringInCsv(src: Uint8Array, from: number, to: number): void {
    this.string(src, from, to, true);
  }

  private string(src: Uint8Array, from: number, to: number, doubled: boolean): void {
    this.reserve(to - from + 4);
    const start = this.w;
    let out = this.buf;
    let w = start;
    out[w++] = QUOTE;
    if (doubled) out[w++] = QUOTE;
    let k = from;
    for (; k < to; k++) {
      const c = src[k]!;
      if (ESCAPE[c] !== 0) break;
      out[w++] = c;
    }
    if (k === to) {
      out[w++] = QUOTE;
      if (doubled) out[w++] = QUOTE;
      this.w = w;
      return;
    }
    let escapes = 0;
    let ascii = true;
    for (let j = from; j < to; j++) {
      const c = src[j]!;
      if (ESCAPE[c] !== 0) escapes++;
      else if (c >= 0x80) ascii = false;
    }
    if (!ascii) {
      const json = JSON.stringify(Buffer.from(src.buffer, src.byteOffset + from, to - from).toString('utf8'));
      this.text(doubled ? json.replaceAll('"', '""') : json);
      return;
    }
    // At most 7 bytes an escaped character (\u00XX, or \"" doubled); written again from the opening quote.
    this.reserve(to - from + escapes * 6 + 4);
    out = this.buf;
    w = start;
    out[w++] = QUOTE;
    if (doubled) out[w++] = QUOTE;
    for (k = from; k < to; k++) {
      const c = src[k]!;
      const e = ESCAPE[c]!;
      if (e === 0) out[w++] = c;
      else if (e !== 1) {
        out[w++] = BACKSLASH;
        out[w++] = e;
        if (doubled && e === QUOTE) out[w++] = QUOTE;
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
    if (doubled) out[w++] = QUOTE;
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
