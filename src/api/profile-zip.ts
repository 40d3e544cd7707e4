// The profile download's zip (PKWARE APPNOTE: the end record, the central directory, each entry's local header;
// stored or deflated entries), its JSON read as a stream: inflated a slice at a time as the reader asks for
// more, never whole, and refused past MAX_PROFILE_BYTES of what it inflates to, whatever sizes the zip states
// (docs/cli-contract.md "Operations insight"). A zip of half a megabyte can inflate to gigabytes.
import { Inflate } from 'fflate';
import { ServiceError } from '../errors.js';

/** The largest profile JSON read: beyond it, saving the zip (`--out`) is the way. */
const MAX_PROFILE_BYTES = 512 * 1024 * 1024;

/** Deflate makes at most about 1,032 bytes of one: a slice this long inflates to at most ~17 MiB at once. */
const INPUT_SLICE = 16 * 1024;

/** Bytes handed out a piece at a time, synchronously; undefined at the end. */
export interface ByteSource {
  next(): Buffer | undefined;
}

/** A buffer as a source of one piece. */
export function bufferSource(b: Buffer): ByteSource {
  let done = false;
  return {
    next: () => {
      if (done) return undefined;
      done = true;
      return b;
    },
  };
}

const bad = (why: string) => new ServiceError(`the profile download is not a readable zip: ${why}`);

const tooLarge = () =>
  new ServiceError(
    `the profile is larger than ${MAX_PROFILE_BYTES / 1024 / 1024} MiB: too large to summarise`,
    {
      hint: 'save it as it is with --out FILE',
    },
  );

/** The profile JSON of the last attempt in a downloaded zip (`profile_attempt_N.json`), inflated as it is read. */
export function profileJson(zip: Buffer): ByteSource {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0 || eocd + 22 > zip.length) throw bad('no end of central directory');
  const entries = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  let best:
    | { attempt: number; offset: number; method: number; size: number; length: number; name: string }
    | undefined;
  for (let n = 0; n < entries; n++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== 0x02014b50) throw bad('a broken central directory');
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const length = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    const offset = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    const m = /(?:^|\/)profile_attempt_(\d+)\.json$/.exec(name);
    const attempt = m ? Number(m[1]) : /\.json$/.test(name) && !/header\.json$/.test(name) ? -1 : undefined;
    if (attempt !== undefined && (!best || attempt > best.attempt))
      best = { attempt, offset, method, size, length, name };
    at += 46 + nameLength + extra + comment;
  }
  if (!best) throw bad('it holds no profile_attempt_N.json');
  const local = best.offset;
  if (local + 30 > zip.length || zip.readUInt32LE(local) !== 0x04034b50)
    throw bad(`no local header for ${best.name}`);
  const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
  const data = zip.subarray(start, start + best.size);
  // The stated size, where the zip states one (0xFFFFFFFF: a ZIP64 entry, whose size is elsewhere).
  const stated = best.length === 0xffffffff ? Number.POSITIVE_INFINITY : best.length;
  const known = best.method === 0 ? data.length : stated;
  if (Number.isFinite(known) && known > MAX_PROFILE_BYTES) throw tooLarge();
  if (best.method === 0) return bufferSource(data);
  if (best.method !== 8) throw bad(`${best.name} is compressed with method ${best.method}`);
  return inflating(data, best.name, stated);
}

/** `data` (raw deflate) inflated a slice at a time, as `next()` asks for more: at most MAX_PROFILE_BYTES. */
function inflating(data: Buffer, name: string, stated: number): ByteSource {
  const out: Buffer[] = [];
  let total = 0;
  let taken = 0;
  let ended = false;
  const z = new Inflate((chunk, final) => {
    total += chunk.length;
    if (total > stated) throw bad(`${name} inflates to more than its stated size`);
    if (total > MAX_PROFILE_BYTES) throw tooLarge();
    out.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    if (final) ended = true;
  });
  return {
    next() {
      while (out.length === 0) {
        if (ended) return undefined;
        if (taken >= data.length) throw bad(`${name} ends before its deflated data does`);
        const slice = data.subarray(taken, taken + INPUT_SLICE);
        taken += slice.length;
        try {
          z.push(slice, taken >= data.length);
        } catch (e) {
          if (e instanceof ServiceError) throw e;
          throw bad(`${name} does not inflate (${(e as Error)?.message ?? e})`);
        }
      }
      return out.shift();
    },
  };
}

/**
 * Whether a download streamed past it is shaped as a zip: it begins with a local header (or, empty, the end
 * record) and its last bytes hold the end of central directory record. Checked before the file is kept.
 */
export class ZipShape {
  bytes = 0;
  private head = Buffer.alloc(0);
  private tail = Buffer.alloc(0);

  add(piece: Buffer): void {
    this.bytes += piece.length;
    if (this.head.length < 4) this.head = Buffer.concat([this.head, piece.subarray(0, 4 - this.head.length)]);
    // The end record is 22 bytes and a comment of at most 65,535.
    this.tail = Buffer.concat([this.tail, piece]);
    if (this.tail.length > 65_557) this.tail = this.tail.subarray(this.tail.length - 65_557);
  }

  check(): void {
    const starts = this.head.length < 4 ? 0 : this.head.readUInt32LE(0);
    if (starts !== 0x04034b50 && starts !== 0x06054b50) throw bad('it does not begin as a zip does');
    if (this.tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06])) < 0)
      throw bad('it has no end of central directory: cut short');
  }
}
