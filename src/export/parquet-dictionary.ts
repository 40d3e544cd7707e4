// The dictionary of a BYTE_ARRAY column chunk (docs/architecture.md "Parquet"): its distinct values PLAIN-encoded
// back to back (a 4-byte length and the bytes each: the dictionary page's content as it is), found again by an
// open-addressing hash table of their indexes. What pyarrow and DuckDB write by default for text: a column of a
// few distinct values (a status, a country, a note) becomes a bit-packed index a value, far less for Snappy to
// compress and for a reader to read. ColumnBuffer (parquet-columns.ts) decides when a chunk gives it up.

/** The hash of `n` bytes of `d` from `at` (FNV-1a over 32-bit words, then the tail bytes). */
function hashOf(d: Uint8Array, dv: DataView, at: number, n: number): number {
  let h = 0x811c9dc5 ^ n;
  let k = at;
  for (const end = at + (n & ~3); k < end; k += 4) h = Math.imul(h ^ dv.getInt32(k, true), 0x01000193);
  for (const end = at + n; k < end; k++) h = Math.imul(h ^ d[k]!, 0x01000193);
  return (h ^ (h >>> 15)) | 0;
}

export class ByteDictionary {
  /** The values, PLAIN-encoded back to back. */
  bytes = new Uint8Array(1 << 14);
  /** Bytes of `bytes` used. */
  size = 0;
  /** Distinct values. */
  count = 0;
  /** Where each value's length prefix is in `bytes`, and its hash. */
  private starts = new Int32Array(256);
  private hashes = new Int32Array(256);
  /** Open addressing: each slot a value's index + 1, 0 when empty; its length a power of two, at most half full. */
  private slots = new Int32Array(1024);
  private view = new DataView(this.bytes.buffer);

  /** The index of the value `d[at, at + n)` (whose DataView is `dv`), added if it is new. */
  add(d: Uint8Array, dv: DataView, at: number, n: number): number {
    const h = hashOf(d, dv, at, n);
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const e = slots[s]!;
      if (e === 0) break;
      const i = e - 1;
      if (this.hashes[i] === h && this.equals(i, d, dv, at, n)) return i;
    }
    return this.insert(d, at, n, h);
  }

  private equals(i: number, d: Uint8Array, dv: DataView, at: number, n: number): boolean {
    const start = this.starts[i]!;
    const view = this.view;
    if (view.getInt32(start, true) !== n) return false;
    const from = start + 4;
    let k = 0;
    for (; k + 4 <= n; k += 4) if (view.getInt32(from + k, true) !== dv.getInt32(at + k, true)) return false;
    const b = this.bytes;
    for (; k < n; k++) if (b[from + k] !== d[at + k]) return false;
    return true;
  }

  private insert(d: Uint8Array, at: number, n: number, h: number): number {
    const i = this.count++;
    if (i === this.starts.length) {
      this.starts = grown(this.starts);
      this.hashes = grown(this.hashes);
    }
    if (this.size + 4 + n > this.bytes.length) {
      const bytes = new Uint8Array(Math.max(this.bytes.length * 2, this.size + 4 + n));
      bytes.set(this.bytes.subarray(0, this.size));
      this.bytes = bytes;
      this.view = new DataView(bytes.buffer);
    }
    const w = this.size;
    this.view.setUint32(w, n, true);
    this.bytes.set(d.subarray(at, at + n), w + 4);
    this.starts[i] = w;
    this.hashes[i] = h;
    this.size = w + 4 + n;
    if (this.count * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    else this.place(this.slots, i);
    return i;
  }

  private place(slots: Int32Array, i: number): void {
    const mask = slots.length - 1;
    let s = this.hashes[i]! & mask;
    while (slots[s] !== 0) s = (s + 1) & mask;
    slots[s] = i + 1;
  }

  private rehash(length: number): void {
    const slots = new Int32Array(length);
    for (let i = 0; i < this.count; i++) this.place(slots, i);
    this.slots = slots;
  }

  private length(i: number): number {
    const b = this.bytes;
    const start = this.starts[i]!;
    return b[start]! | (b[start + 1]! << 8) | (b[start + 2]! << 16) | (b[start + 3]! << 24);
  }

  /** The PLAIN bytes of value `i` (its length prefix and bytes) copied into `out` at `w`; returns where they end. */
  copyOut(i: number, out: Uint8Array, w: number): number {
    const start = this.starts[i]!;
    const end = start + 4 + this.length(i);
    out.set(this.bytes.subarray(start, end), w);
    return w + end - start;
  }

  /** Empty again (a new column chunk), its buffers kept. */
  clear(): void {
    if (this.count > 0) this.slots.fill(0);
    this.count = 0;
    this.size = 0;
  }
}

function grown(a: Int32Array): Int32Array<ArrayBuffer> {
  const out = new Int32Array(a.length * 2);
  out.set(a);
  return out;
}

/**
 * `count` dictionary indexes of `indexes` as a DATA page's values: the bit width (one byte), then one bit-packed
 * run of the RLE/bit-packed hybrid (its header, then the indexes `width` bits each, LSB first, in groups of 8,
 * the last group padded with zeros), into `out` from 0. Returns the length.
 */
export function packIndexes(indexes: Int32Array, count: number, width: number, out: Uint8Array): number {
  const groups = (count + 7) >> 3;
  out[0] = width;
  let w = 1;
  for (let v = (groups << 1) | 1; ; v = Math.floor(v / 128)) {
    if (v < 128) {
      out[w++] = v;
      break;
    }
    out[w++] = (v & 0x7f) | 0x80;
  }
  // Bits waiting to be written (fewer than 8 before each index is added; width <= 24, so they fit 32 bits).
  let acc = 0;
  let bits = 0;
  for (let i = 0, end = groups * 8; i < end; i++) {
    acc |= (i < count ? indexes[i]! : 0) << bits;
    bits += width;
    while (bits >= 8) {
      out[w++] = acc & 0xff;
      acc >>>= 8;
      bits -= 8;
    }
  }
  return w;
}

/** Bytes `packIndexes` may write for `count` indexes. */
export const packedBound = (count: number, width: number): number => 7 + ((count + 7) >> 3) * width;

/** The bit width of indexes below `count` (at least 1). */
export const indexWidth = (count: number): number => Math.max(1, 32 - Math.clz32(Math.max(0, count - 1)));
