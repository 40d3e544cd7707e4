// Snappy compression of a Parquet page (the codec every Parquet reader has), written for speed in V8: an output
// array sized for the worst case up front (the caller's, reused page after page), a reused hash table, no per-byte
// method calls. The format (Google's
// snappy format_description.txt): the uncompressed length as a varint, then literals (tag 0b00, the length
// less one in the tag or the 1-4 bytes after it) and copies of earlier bytes (tag 0b01: 4-11 bytes at an
// offset below 2048; tag 0b10: 1-64 bytes at an offset below 65536). Matches are found by hashing 4 bytes.

const HASH_BITS = 14;
const table = new Int32Array(1 << HASH_BITS);
const MAX_OFFSET = 65_535;
/** No match is looked for in the last bytes (a match needs 4 bytes and the loop reads ahead). */
const TAIL = 15;

const hash = (v: number): number => Math.imul(v, 0x1e35a7bd) >>> (32 - HASH_BITS);

/** The most bytes Snappy can make of `n` (the reference implementation's bound). */
export const snappyBound = (n: number): number => 32 + n + Math.ceil(n / 6);

/**
 * `input` compressed, into `out` (of at least `snappyBound(input.length)` bytes; by default a new array): the
 * part of `out` it fills.
 */
export function snappy(
  input: Uint8Array,
  out: Uint8Array = new Uint8Array(snappyBound(input.length)),
): Uint8Array {
  const n = input.length;
  // Four bytes read at once (V8 compiles a DataView's reads to one load; four byte reads were slower).
  const dv = new DataView(input.buffer, input.byteOffset, n);
  const load32 = (i: number): number => dv.getInt32(i, true);
  let op = 0;
  for (let v = n; ; v = Math.floor(v / 128)) {
    if (v < 128) {
      out[op++] = v;
      break;
    }
    out[op++] = (v & 0x7f) | 0x80;
  }
  let emitted = 0;
  if (n >= TAIL) {
    table.fill(-1);
    const limit = n - TAIL;
    let ip = 1;
    while (ip <= limit) {
      // Look for a match, skipping faster the longer none is found (incompressible data costs little).
      let candidate = -1;
      let skip = 32;
      let found = false;
      while (ip <= limit) {
        const v = load32(ip);
        const h = hash(v);
        candidate = table[h]!;
        table[h] = ip;
        if (candidate >= 0 && ip - candidate <= MAX_OFFSET && load32(candidate) === v) {
          found = true;
          break;
        }
        ip += skip++ >>> 5;
      }
      if (!found) break;
      op = literal(out, op, input, emitted, ip);
      // Copies, as long as the next bytes match too.
      let again = true;
      while (again) {
        // Byte by byte, and past 16 bytes four at a time (short matches are the most common).
        let len = 4;
        const most = n - ip;
        while (len < most && input[ip + len] === input[candidate + len])
          if (++len === 16) {
            while (len + 4 <= most && load32(ip + len) === load32(candidate + len)) len += 4;
            while (len < most && input[ip + len] === input[candidate + len]) len++;
            break;
          }
        op = copy(out, op, ip - candidate, len);
        ip += len;
        emitted = ip;
        if (ip > limit) break;
        table[hash(load32(ip - 1))] = ip - 1;
        const v = load32(ip);
        const h = hash(v);
        candidate = table[h]!;
        table[h] = ip;
        again = candidate >= 0 && ip - candidate <= MAX_OFFSET && load32(candidate) === v;
        if (!again) ip++;
      }
    }
  }
  if (emitted < n) op = literal(out, op, input, emitted, n);
  return out.subarray(0, op);
}

function literal(out: Uint8Array, op: number, input: Uint8Array, from: number, to: number): number {
  const len = to - from;
  if (len === 0) return op;
  const v = len - 1;
  if (v < 60) out[op++] = v << 2;
  else {
    const bytes = v < 0x100 ? 1 : v < 0x10000 ? 2 : v < 0x1000000 ? 3 : 4;
    out[op++] = (59 + bytes) << 2;
    for (let i = 0; i < bytes; i++) out[op++] = (v >>> (i * 8)) & 0xff;
  }
  if (len > 16) out.set(input.subarray(from, to), op);
  else for (let i = 0; i < len; i++) out[op + i] = input[from + i]!;
  return op + len;
}

function copy(out: Uint8Array, op: number, offset: number, len: number): number {
  while (len >= 68) {
    op = copy64(out, op, offset, 64);
    len -= 64;
  }
  if (len > 64) {
    op = copy64(out, op, offset, 60);
    len -= 60;
  }
  return copy64(out, op, offset, len);
}

/** One copy of 4..64 bytes. */
function copy64(out: Uint8Array, op: number, offset: number, len: number): number {
  if (len < 12 && offset < 2048) {
    out[op++] = 1 | ((len - 4) << 2) | ((offset >>> 8) << 5);
    out[op++] = offset & 0xff;
  } else {
    out[op++] = 2 | ((len - 1) << 2);
    out[op++] = offset & 0xff;
    out[op++] = offset >>> 8;
  }
  return op;
}
