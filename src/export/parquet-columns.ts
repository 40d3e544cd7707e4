// One Parquet column chunk being filled (docs/architecture.md "Parquet"): its values PLAIN-encoded into one
// growing buffer as they arrive, its definition levels (null or not) into a bitmap; each time the buffer holds a
// page's worth (`endPage`), a DATA_PAGE_V2 is compressed and appended to the leaf's pages (one buffer, kept from
// row group to row group: a page allocates nothing), so the work is spread over the batches rather
// than paid at the end of each row group (while the stream's reader waits); the chunk is written with its
// statistics at the end of the row group. Values come one at a time (a REST page's cells) or a whole Arrow
// column at once (a Flight batch: export/parquet-arrow.ts), copied from its buffers without a JS value per
// cell. hyparquet-writer writes the footer; the page header is written here (Snappy: parquet-snappy.ts).
//
// The layout is what every reader expects of a flat OPTIONAL column: definition levels with bit width 1 are the
// validity bitmap itself (one bit-packed run, LSB first, as Arrow's), values PLAIN (BOOLEAN bit-packed, INT32,
// INT64, FLOAT and DOUBLE little-endian, BYTE_ARRAY a 4-byte length and the bytes), Snappy on the values only.
// A text or binary column's values go through a dictionary while it pays (`index`): the pages hold bit-packed
// indexes, the chunk a dictionary page first. A leaf of a nested column (inside a LIST, STRUCT or MAP) keeps
// its repetition and definition levels as they come (`absent`, `nextRep`, or a batch's at once: `levelsOf`),
// written as RLE runs of the levels' bit width.
import type { ColumnChunk, SchemaElement } from 'hyparquet';
import type { ByteWriter } from 'hyparquet-writer';
import { ByteDictionary, indexWidth, packedBound, packIndexes } from './parquet-dictionary.js';
import { snappy, snappyBound } from './parquet-snappy.js';

type Physical = 'BOOLEAN' | 'INT32' | 'INT64' | 'FLOAT' | 'DOUBLE' | 'BYTE_ARRAY';

/** Bytes a cell of each fixed-width type takes. */
const WIDTH: Partial<Record<Physical, number>> = { INT32: 4, INT64: 8, FLOAT: 4, DOUBLE: 8 };

/** Bytes of a BYTE_ARRAY min or max kept (see `statistics`). */
const STAT_BYTES = 64;

/** A written column chunk, as hyparquet-writer's footer and --resume state keep it. */
interface WrittenChunk {
  chunk: ColumnChunk;
}

/** A chunk's pages by kind and encoding. */
type Encodings = NonNullable<NonNullable<ColumnChunk['meta_data']>['encoding_stats']>;

/** A chunk's statistics; `nan_count` is the format's newer field, which hyparquet-writer's footer writes. */
type Statistics = NonNullable<NonNullable<ColumnChunk['meta_data']>['statistics']> & { nan_count?: bigint };

/** Min and max of the values so far, in the column's physical order, and the NaNs left out of them. */
interface MinMax {
  min?: number | bigint | boolean | Uint8Array;
  max?: number | bigint | boolean | Uint8Array;
  nan: number;
}

/** PLAIN bytes after which a page is ended (at the end of the batch or page of rows that reached it). */
export const PAGE_BYTES = 128 * 1024;

/**
 * A chunk's dictionary is given up once it holds more bytes than this (pyarrow's default limit), or once more
 * than half the values it has seen were new after at least DICTIONARY_TRIAL of them (a column of ids or names).
 */
const DICTIONARY_BYTES = 1024 * 1024;
const DICTIONARY_TRIAL = 1000;

/** The page encodings, as parquet.thrift numbers them. */
const PLAIN = 0;
const RLE_DICTIONARY = 8;

export class ColumnBuffer {
  /** Rows appended since the last `write` (nulls included). */
  rows = 0;
  nulls = 0;
  /** A nested leaf: the repetition level of the next value's slot (set before each value). */
  nextRep = 0;
  /** Slots (values and absent values) of the chunk so far, and of the page. */
  private slots = 0;
  private pageSlots = 0;
  /** Values (present) of the page. */
  private pageValues = 0;
  /** A nested leaf's levels of the page's slots. */
  private defs = new Uint16Array(0);
  private reps = new Uint16Array(0);
  /** Bytes of PLAIN values of the page being filled (for BOOLEAN, of its bitmap so far). */
  size = 0;
  /** Rows of the page being filled, and its nulls. */
  private pageRows = 0;
  private pageNulls = 0;
  /**
   * The chunk's finished pages back to back, each its header, levels and compressed values, as they go into the
   * file: one buffer a leaf, kept from row group to row group (no page allocates), and the pages' PLAIN bytes
   * and uncompressed size.
   */
  private pages = new Uint8Array(1 << 16);
  private pagesSize = 0;
  private uncompressed = 0;
  private donePlain = 0;
  private minMaxSoFar: MinMax = { nan: 0 };
  /** Validity of the page's rows, one bit a row, LSB first (Parquet's definition levels of width 1). */
  private valid = new Uint8Array(1024);
  /** PLAIN values; its own ArrayBuffer from offset 0, so typed views of it are aligned. */
  private data = new Uint8Array(1 << 16);
  private view = Buffer.from(this.data.buffer);
  /** BOOLEAN: values written (bits of `data`). */
  private bits = 0;
  /**
   * A text or binary column's dictionary (parquet-dictionary.ts). While `indexing`, a batch's Arrow values are
   * looked up where they are, and values appended one at a time go to `data` as PLAIN bytes and are looked up
   * once their batch or page of rows is in (`index`, which empties `data`): the page keeps their indexes. Given
   * up for the rest of the chunk by `giveUpDictionary`.
   */
  private readonly dictionary?: ByteDictionary;
  private indexing = false;
  private indexes = new Int32Array(0);
  private indexCount = 0;
  /** The PLAIN bytes of the page's values looked up. */
  private indexedPlain = 0;
  /** Pages of the chunk written as indexes and as PLAIN values, and values looked up in the chunk. */
  private indexedPages = 0;
  private plainPages = 0;
  private indexedValues = 0;
  readonly physical: Physical;
  /** Bytes of a value of a fixed-width physical type (0 for BOOLEAN and BYTE_ARRAY). */
  readonly width: number;

  constructor(
    readonly element: SchemaElement,
    /** A DECIMAL stored as BYTE_ARRAY has no byte order a reader could use: no min/max for it. */
    private readonly minMax = true,
    /** The leaf's path from the root's child: its name, or the names of the groups it is in and its own. */
    readonly path: readonly string[] = [String(element.name)],
    /** Its highest definition and repetition levels: 1 and 0 for a flat OPTIONAL column. */
    readonly maxDef = 1,
    readonly maxRep = 0,
  ) {
    this.physical = element.type as Physical;
    this.width = WIDTH[this.physical] ?? 0;
    if (this.physical === 'BYTE_ARRAY' && element.converted_type !== 'DECIMAL') {
      this.dictionary = new ByteDictionary();
      this.indexing = true;
      this.indexes = new Int32Array(4096);
    }
    this.nested = maxDef !== 1 || maxRep !== 0;
    if (this.nested) {
      this.defs = new Uint16Array(1024);
      this.reps = new Uint16Array(1024);
    }
  }

  /** Levels kept as they come (a leaf of a nested column), rather than as the validity bitmap. */
  private readonly nested: boolean;

  /** A nested leaf: a slot without a value, defined up to `def`, repeated at `rep`. */
  absent(def: number, rep: number): void {
    this.level(def, rep);
    this.nulls++;
  }

  private level(def: number, rep: number): void {
    const n = this.pageSlots;
    if (n === this.defs.length) {
      const defs = new Uint16Array(n * 2);
      defs.set(this.defs);
      this.defs = defs;
      const reps = new Uint16Array(n * 2);
      reps.set(this.reps);
      this.reps = reps;
    }
    this.defs[n] = def;
    this.reps[n] = rep;
    this.pageSlots++;
    this.slots++;
    if (rep === 0) {
      this.rows++;
      this.pageRows++;
    }
  }

  /**
   * PLAIN bytes of the page being filled, its values looked up in the dictionary counted as their PLAIN bytes
   * too: pages and row groups end where they would without a dictionary.
   */
  get pageBytes(): number {
    return this.size + this.indexedPlain;
  }

  /** PLAIN bytes of the chunk so far (what a row group is cut by). */
  get plainBytes(): number {
    return this.donePlain + this.pageBytes;
  }

  // ── One cell ──────────────────────────────────────────────────────────────────────────────────────

  null(): void {
    if (this.nested) {
      this.absent(0, this.nextRep);
      return;
    }
    this.validity(1);
    this.rows++;
    this.slots++;
    this.nulls++;
    this.pageRows++;
    this.pageSlots++;
    this.pageNulls++;
  }

  int32(v: number): void {
    this.present();
    this.reserve(4);
    this.view.writeInt32LE(v | 0, this.size);
    this.size += 4;
  }

  int64(v: bigint): void {
    this.present();
    this.reserve(8);
    this.view.writeBigInt64LE(v, this.size);
    this.size += 8;
  }

  float(v: number): void {
    this.present();
    this.reserve(4);
    this.view.writeFloatLE(v, this.size);
    this.size += 4;
  }

  double(v: number): void {
    this.present();
    this.reserve(8);
    this.view.writeDoubleLE(v, this.size);
    this.size += 8;
  }

  boolean(v: boolean): void {
    this.present();
    this.bit(v);
  }

  text(s: string): void {
    this.present();
    this.reserve(4 + s.length * 3);
    const n = this.view.write(s, this.size + 4, 'utf8');
    this.view.writeUInt32LE(n, this.size);
    this.size += 4 + n;
  }

  bytes(src: Uint8Array, from: number, to: number): void {
    this.present();
    this.byteArray(src, from, to);
  }

  /** A fixed-width cell whose PLAIN bytes are `src[from, from + width)` (a value of an Arrow column's buffer). */
  plain(src: Uint8Array, from: number): void {
    this.present();
    const width = this.width;
    this.reserve(width);
    const out = this.data;
    let w = this.size;
    for (let k = from, end = from + width; k < end; k++) out[w++] = src[k]!;
    this.size = w;
  }

  // ── A whole Arrow column ──────────────────────────────────────────────────────────────────────────

  // A flat column's only (parquet-arrow.ts): its validity bits are set and its cells counted for the whole
  // batch, not a call per cell. As apache-arrow slices a column: its values and offsets start at its first
  // row, while its validity bitmap and a Bool column's value bits are shared with the whole and start
  // `bitOffset` bits in.

  /**
   * `rows` cells of a fixed-width Arrow column (its values, of this column's width), nulls where `bitmap` (Arrow's
   * validity, undefined when none is null) says.
   */
  fixed(values: ArrayBufferView, rows: number, bitmap: Uint8Array | undefined, bitOffset: number): void {
    const width = WIDTH[this.physical]!;
    const src = new Uint8Array(values.buffer, values.byteOffset, rows * width);
    this.reserve(src.length);
    const present = this.validFrom(bitmap, bitOffset, rows);
    if (!bitmap) {
      this.data.set(src, this.size);
      this.size += src.length;
    } else if (this.aligned(values)) {
      // A word (4 bytes) at a time: the values' buffer and ours are aligned to 4.
      const from = words(values);
      const out = words(this.data);
      let w = this.size >> 2;
      const wide = width === 8;
      for (let r = 0; r < rows; r++) {
        const j = r + bitOffset;
        if ((bitmap[j >> 3]! & (1 << (j & 7))) === 0) continue;
        if (wide) {
          out[w++] = from[r * 2]!;
          out[w++] = from[r * 2 + 1]!;
        } else out[w++] = from[r]!;
      }
      this.size = w << 2;
    } else {
      const out = this.data;
      let w = this.size;
      for (let r = 0; r < rows; r++) {
        const j = r + bitOffset;
        if ((bitmap[j >> 3]! & (1 << (j & 7))) === 0) continue;
        for (let k = r * width, end = k + width; k < end; k++) out[w++] = src[k]!;
      }
      this.size = w;
    }
    this.counted(rows, present);
  }

  /** `rows` cells of an Arrow Bool column (its value bits). */
  booleans(bits: Uint8Array, rows: number, bitmap: Uint8Array | undefined, bitOffset: number): void {
    const present = this.validFrom(bitmap, bitOffset, rows);
    for (let r = 0; r < rows; r++) {
      const j = r + bitOffset;
      if (bitmap && (bitmap[j >> 3]! & (1 << (j & 7))) === 0) continue;
      this.bit((bits[j >> 3]! & (1 << (j & 7))) !== 0);
    }
    this.counted(rows, present);
  }

  /** `rows` cells of an Arrow Utf8 or Binary column (its offsets and bytes). */
  byteArrays(
    offsets: Int32Array,
    bytes: Uint8Array,
    rows: number,
    bitmap: Uint8Array | undefined,
    bitOffset: number,
  ): void {
    // Values appended one at a time are looked up first (which may end the page: before these rows' bits).
    if (this.size > 0) this.index();
    const present = this.validFrom(bitmap, bitOffset, rows);
    if (this.indexing) {
      // Looked up where they are (see `index`), without a copy.
      const dict = this.dictionary!;
      const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const indexes = this.roomForIndexes(present);
      let count = this.indexCount;
      let plain = 0;
      for (let r = 0; r < rows; r++) {
        const j = r + bitOffset;
        if (bitmap && (bitmap[j >> 3]! & (1 << (j & 7))) === 0) continue;
        const from = offsets[r]!;
        const n = offsets[r + 1]! - from;
        indexes[count++] = dict.add(bytes, dv, from, n);
        plain += 4 + n;
      }
      this.indexedPlain += plain;
      // Counted first: giving the dictionary up may end the page.
      this.counted(rows, present);
      this.indexed(count);
      return;
    }
    this.reserve(offsets[rows]! - offsets[0]! + 4 * rows);
    const out = this.data;
    let w = this.size;
    for (let r = 0; r < rows; r++) {
      const j = r + bitOffset;
      if (bitmap && (bitmap[j >> 3]! & (1 << (j & 7))) === 0) continue;
      const from = offsets[r]!;
      const n = offsets[r + 1]! - from;
      out[w] = n & 0xff;
      out[w + 1] = (n >>> 8) & 0xff;
      out[w + 2] = (n >>> 16) & 0xff;
      out[w + 3] = n >>> 24;
      w += 4;
      if (n > 32) out.set(bytes.subarray(from, from + n), w);
      else for (let k = 0; k < n; k++) out[w + k] = bytes[from + k]!;
      w += n;
    }
    this.size = w;
    this.counted(rows, present);
  }

  /**
   * Marks the page's next `rows` rows valid where Arrow's validity `bitmap` says (every one when it is
   * undefined), before their values are appended; returns how many are.
   */
  private validFrom(bitmap: Uint8Array | undefined, bitOffset: number, rows: number): number {
    const start = this.pageRows;
    this.validity(rows, !bitmap);
    if (!bitmap) return rows;
    const valid = this.valid;
    let present = 0;
    for (let r = 0; r < rows; r++) {
      const j = r + bitOffset;
      if ((bitmap[j >> 3]! & (1 << (j & 7))) === 0) continue;
      const i = start + r;
      valid[i >> 3]! |= 1 << (i & 7);
      present++;
    }
    return present;
  }

  /**
   * Counts `rows` cells of a flat column appended at once (their validity bits already set), `present` of them
   * values and the others nulls.
   */
  private counted(rows: number, present: number): void {
    const nulls = rows - present;
    this.rows += rows;
    this.slots += rows;
    this.pageRows += rows;
    this.pageSlots += rows;
    this.pageValues += present;
    this.nulls += nulls;
    this.pageNulls += nulls;
  }

  // ── A nested leaf's slots of a whole batch (parquet-shred.ts) ───────────────────────────────────────────
  // Slot i is present where idx[i] >= 0 (its value at idx[i] of the leaf's Arrow data, defined to maxDef),
  // else absent, defined up to def[i]; rep[i] is its repetition level. `levelsOf` first, then the values.

  levelsOf(n: number, idx: Int32Array, def: Uint16Array, rep: Uint16Array): void {
    const at = this.pageSlots;
    if (at + n > this.defs.length) {
      const length = Math.max(this.defs.length * 2, at + n);
      const defs = new Uint16Array(length);
      defs.set(this.defs.subarray(0, at));
      this.defs = defs;
      const reps = new Uint16Array(length);
      reps.set(this.reps.subarray(0, at));
      this.reps = reps;
    }
    const defs = this.defs;
    const maxDef = this.maxDef;
    let present = 0;
    let rows = 0;
    for (let i = 0; i < n; i++) {
      if (idx[i]! >= 0) {
        defs[at + i] = maxDef;
        present++;
      } else defs[at + i] = def[i]!;
      if (rep[i] === 0) rows++;
    }
    this.reps.set(rep.subarray(0, n), at);
    this.pageSlots += n;
    this.slots += n;
    this.rows += rows;
    this.pageRows += rows;
    this.pageValues += present;
    this.nulls += n - present;
  }

  /** The present slots' values of a fixed-width leaf whose Arrow values are its PLAIN ones. */
  fixedAt(values: ArrayBufferView, idx: Int32Array, n: number): void {
    const width = this.width;
    this.reserve(n * width);
    if (this.aligned(values)) {
      // A word (4 bytes) at a time: the values' buffer and ours are aligned to 4.
      const from = words(values);
      const out = words(this.data);
      let w = this.size >> 2;
      if (width === 8)
        for (let i = 0; i < n; i++) {
          const k = idx[i]!;
          if (k < 0) continue;
          out[w++] = from[k * 2]!;
          out[w++] = from[k * 2 + 1]!;
        }
      else
        for (let i = 0; i < n; i++) {
          const k = idx[i]!;
          if (k >= 0) out[w++] = from[k]!;
        }
      this.size = w << 2;
      return;
    }
    const src = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    const out = this.data;
    let w = this.size;
    for (let i = 0; i < n; i++) {
      const k = idx[i]!;
      if (k < 0) continue;
      for (let b = k * width, end = b + width; b < end; b++) out[w++] = src[b]!;
    }
    this.size = w;
  }

  /** The present slots' values of a Utf8 or Binary leaf (its Arrow offsets and bytes). */
  byteArraysAt(offsets: Int32Array, bytes: Uint8Array, idx: Int32Array, n: number): void {
    if (this.indexing && this.size === 0) {
      // Looked up where they are (see `index`), without a copy.
      const dict = this.dictionary!;
      const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const indexes = this.roomForIndexes(n);
      let count = this.indexCount;
      let plain = 0;
      for (let i = 0; i < n; i++) {
        const k = idx[i]!;
        if (k < 0) continue;
        const from = offsets[k]!;
        const len = offsets[k + 1]! - from;
        indexes[count++] = dict.add(bytes, dv, from, len);
        plain += 4 + len;
      }
      this.indexedPlain += plain;
      this.indexed(count);
      return;
    }
    for (let i = 0; i < n; i++) {
      const k = idx[i]!;
      if (k >= 0) this.byteArray(bytes, offsets[k]!, offsets[k + 1]!);
    }
  }

  /** The present slots' values of a Bool leaf (its value bits, `bitOffset` bits in). */
  booleansAt(bits: Uint8Array, bitOffset: number, idx: Int32Array, n: number): void {
    for (let i = 0; i < n; i++) {
      const k = idx[i]!;
      if (k < 0) continue;
      const j = k + bitOffset;
      this.bit((bits[j >> 3]! & (1 << (j & 7))) !== 0);
    }
  }

  // ── The chunk ─────────────────────────────────────────────────────────────────────────────────────

  /**
   * While the chunk has a dictionary: the values appended since the last call looked up in it, their indexes
   * kept for the page and `data` emptied. The dictionary is given up (`giveUpDictionary`) when it grows past
   * DICTIONARY_BYTES, or when more than half the values were new (few repeat: indexes would only add).
   */
  index(): void {
    if (!this.indexing || this.size === 0) return;
    const dict = this.dictionary!;
    const d = this.data;
    const dv = new DataView(d.buffer, 0, this.size);
    const end = this.size;
    // Each value takes at least its 4-byte length.
    const indexes = this.roomForIndexes(end >> 2);
    let count = this.indexCount;
    for (let at = 0; at < end; ) {
      const n = lengthAt(d, at);
      indexes[count++] = dict.add(d, dv, at + 4, n);
      at += 4 + n;
    }
    this.indexedPlain += end;
    this.size = 0;
    this.indexed(count);
  }

  /** `indexes`, with room for `n` more. */
  private roomForIndexes(n: number): Int32Array {
    const count = this.indexCount;
    if (count + n > this.indexes.length) {
      const grown = new Int32Array(Math.max(this.indexes.length * 2, count + n));
      grown.set(this.indexes.subarray(0, count));
      this.indexes = grown;
    }
    return this.indexes;
  }

  /** After values were looked up: the page holds `count` indexes; whether the dictionary is still worth it. */
  private indexed(count: number): void {
    const dict = this.dictionary!;
    this.indexedValues += count - this.indexCount;
    this.indexCount = count;
    const fewRepeat = this.indexedValues >= DICTIONARY_TRIAL && dict.count * 2 > this.indexedValues;
    if (fewRepeat || dict.size > DICTIONARY_BYTES) this.giveUpDictionary();
  }

  /**
   * The rest of the chunk in PLAIN. Pages already written as indexes stay so (the chunk keeps its dictionary
   * page: the page being filled ends as indexes too, readers take a chunk of both); if none was, the page's
   * values go back to PLAIN bytes and the dictionary is dropped.
   */
  private giveUpDictionary(): void {
    this.indexing = false;
    const dict = this.dictionary!;
    if (this.indexedPages > 0) {
      this.endPage();
      return;
    }
    // Every value of the page was looked up (`data` is empty): written back as they came.
    const indexes = this.indexes;
    this.reserve(this.indexedPlain);
    let w = 0;
    for (let i = 0; i < this.indexCount; i++) w = dict.copyOut(indexes[i]!, this.data, w);
    this.size = w;
    this.indexCount = 0;
    this.indexedPlain = 0;
    dict.clear();
  }

  /** Ends the page being filled (none if it has no rows): compressed and kept until the chunk is written. */
  endPage(): void {
    this.index();
    if (this.pageSlots === 0) return;
    // A dictionary's indexes, or the PLAIN values (every value of the page is one or the other).
    const indexed = this.indexCount > 0;
    let values: Uint8Array;
    if (indexed) {
      const width = indexWidth(this.dictionary!.count);
      const packed = scratch(PACKED, packedBound(this.indexCount, width)).bytes;
      values = packed.subarray(0, packIndexes(this.indexes, this.indexCount, width, packed));
      this.indexedPages++;
    } else {
      values = this.data.subarray(0, this.size);
      this.plainPages++;
    }
    // The levels, then the header, then the values compressed, each into scratch space reused by every page.
    const levels = scratch(LEVELS, this.nested ? this.pageSlots * 2 * (5 + 2) : 16 + (this.pageRows >> 3));
    const repLength = this.nested ? rle(this.reps, this.pageSlots, this.maxRep, levels.bytes, 0) : 0;
    const defLength = this.nested
      ? rle(this.defs, this.pageSlots, this.maxDef, levels.bytes, repLength) - repLength
      : this.levels(levels.bytes);
    const levelBytes = repLength + defLength;
    const compressed = snappy(values, scratch(COMPRESSED, snappyBound(values.length)).bytes);
    const header = pageHeader(
      this.pageSlots,
      this.pageSlots - this.pageValues,
      this.pageRows,
      repLength,
      defLength,
      values.length,
      compressed.length,
      indexed ? RLE_DICTIONARY : PLAIN,
    );
    const end = this.pagesSize + header.length + levelBytes + compressed.length;
    if (end > this.pages.length) {
      const grown = new Uint8Array(Math.max(this.pages.length * 2, end));
      grown.set(this.pages.subarray(0, this.pagesSize));
      this.pages = grown;
    }
    let at = this.pagesSize;
    this.pages.set(header, at);
    at += header.length;
    this.pages.set(levels.bytes.subarray(0, levelBytes), at);
    at += levelBytes;
    this.pages.set(compressed, at);
    this.pagesSize = end;
    this.uncompressed += header.length + levelBytes + values.length;
    this.donePlain += indexed ? this.indexedPlain : values.length;
    // A dictionary's min and max are its values' (`write`).
    if (!indexed) this.merge(this.pageMinMax());
    this.indexCount = 0;
    this.indexedPlain = 0;
    this.valid.fill(0, 0, (this.pageRows + 7) >> 3);
    this.size = 0;
    this.bits = 0;
    this.pageRows = 0;
    this.pageNulls = 0;
    this.pageSlots = 0;
    this.pageValues = 0;
  }

  /** Writes the rows appended since the last call as one column chunk, and empties the buffer. */
  write(writer: ByteWriter): WrittenChunk {
    this.endPage();
    const start = writer.offset;
    const dict = this.dictionary;
    const indexed = this.indexedPages > 0;
    if (indexed) {
      // The dictionary page first: its values PLAIN, compressed as a data page's are.
      const values = dict!.bytes.subarray(0, dict!.size);
      const compressed = snappy(values, scratch(COMPRESSED, snappyBound(values.length)).bytes);
      const header = dictionaryPageHeader(dict!.count, values.length, compressed.length);
      writer.appendBytes(header);
      writer.appendBytes(compressed);
      this.uncompressed += header.length + values.length;
      if (this.minMax) this.merge(byteArrayMinMax(values));
    }
    const dataStart = writer.offset;
    writer.appendBytes(this.pages.subarray(0, this.pagesSize));
    const chunk: ColumnChunk = {
      file_offset: BigInt(start),
      meta_data: {
        type: this.physical,
        encodings: indexed ? ['PLAIN', 'RLE', 'RLE_DICTIONARY'] : ['PLAIN', 'RLE'],
        path_in_schema: [...this.path],
        codec: 'SNAPPY',
        num_values: BigInt(this.slots),
        total_uncompressed_size: BigInt(this.uncompressed),
        total_compressed_size: BigInt(writer.offset - start),
        data_page_offset: BigInt(dataStart),
        ...(indexed ? { dictionary_page_offset: BigInt(start) } : {}),
        statistics: this.statistics(),
        // How many pages of each kind: a reader learns from them whether every page is a dictionary's.
        encoding_stats: [
          ...(indexed
            ? [
                { page_type: 'DICTIONARY_PAGE', encoding: 'PLAIN', count: 1 },
                { page_type: 'DATA_PAGE_V2', encoding: 'RLE_DICTIONARY', count: this.indexedPages },
              ]
            : []),
          ...(this.plainPages > 0
            ? [{ page_type: 'DATA_PAGE_V2', encoding: 'PLAIN', count: this.plainPages }]
            : []),
        ] as Encodings,
      },
    };
    this.plainPages = 0;
    if (dict) {
      dict.clear();
      this.indexing = true;
      this.indexedPages = 0;
      this.indexedValues = 0;
    }
    this.rows = 0;
    this.nulls = 0;
    this.slots = 0;
    this.pagesSize = 0;
    this.uncompressed = 0;
    this.donePlain = 0;
    this.minMaxSoFar = { nan: 0 };
    return { chunk };
  }

  /**
   * Definition levels into `out`: one RLE run when none is null, else the validity bitmap as one bit-packed
   * run. Returns their length.
   */
  private levels(out: Uint8Array): number {
    if (this.pageNulls === 0) {
      const w = varintInto(out, 0, this.pageRows * 2);
      out[w] = 1;
      return w + 1;
    }
    const groups = (this.pageRows + 7) >> 3;
    const w = varintInto(out, 0, groups * 2 + 1);
    out.set(this.valid.subarray(0, groups), w);
    return w + groups;
  }

  /** The chunk's statistics: null count, min/max (what readers skip row groups by), NaNs of a float column. */
  private statistics(): Statistics {
    const null_count = BigInt(this.nulls);
    if (!this.minMax) return { null_count };
    const { min, max, nan } = this.minMaxSoFar;
    const float = this.physical === 'FLOAT' || this.physical === 'DOUBLE';
    const stats: Statistics = float ? { null_count, nan_count: BigInt(nan) } : { null_count };
    if (min === undefined) return stats;
    // The format's rule for signed zeros: a zero min is written -0, a zero max +0.
    stats.min_value = min === 0 ? -0 : (min as Statistics['min_value']);
    stats.max_value = max === 0 ? 0 : (max as Statistics['max_value']);
    return stats;
  }

  private merge(page: MinMax): void {
    const so = this.minMaxSoFar;
    so.nan += page.nan;
    if (page.min === undefined) return;
    if (so.min === undefined || less(page.min, so.min)) so.min = page.min;
    if (so.max === undefined || less(so.max!, page.max!)) so.max = page.max;
  }

  /** Min and max of the page's values, in the column's physical order. */
  private pageMinMax(): MinMax {
    const count = this.pageValues;
    if (count === 0 || !this.minMax) return { nan: 0 };
    const buf = this.data.buffer;
    switch (this.physical) {
      case 'INT32': {
        const v = new Int32Array(buf, 0, count);
        let min = v[0]!;
        let max = min;
        for (let i = 1; i < count; i++) {
          const x = v[i]!;
          if (x < min) min = x;
          else if (x > max) max = x;
        }
        return { min, max, nan: 0 };
      }
      case 'INT64': {
        // Compared as (signed high word, unsigned low word) pairs: no BigInt per value.
        const w = new Int32Array(buf, 0, count * 2);
        let min = 0;
        let max = 0;
        let minHi = w[1]!;
        let minLo = w[0]! >>> 0;
        let maxHi = minHi;
        let maxLo = minLo;
        for (let i = 1; i < count; i++) {
          const hi = w[i * 2 + 1]!;
          const lo = w[i * 2]! >>> 0;
          if (hi < minHi || (hi === minHi && lo < minLo)) {
            min = i;
            minHi = hi;
            minLo = lo;
          } else if (hi > maxHi || (hi === maxHi && lo > maxLo)) {
            max = i;
            maxHi = hi;
            maxLo = lo;
          }
        }
        const all = new BigInt64Array(buf, 0, count);
        return { min: all[min]!, max: all[max]!, nan: 0 };
      }
      case 'FLOAT':
      case 'DOUBLE': {
        const v =
          this.physical === 'FLOAT' ? new Float32Array(buf, 0, count) : new Float64Array(buf, 0, count);
        let min = Number.POSITIVE_INFINITY;
        let max = Number.NEGATIVE_INFINITY;
        let nan = 0;
        for (let i = 0; i < count; i++) {
          const x = v[i]!;
          if (Number.isNaN(x)) nan++;
          else {
            if (x < min) min = x;
            if (x > max) max = x;
          }
        }
        return nan === count ? { nan } : { min, max, nan };
      }
      case 'BOOLEAN': {
        let any = false;
        let all = true;
        for (let i = 0; i < count; i++) {
          const b = (this.data[i >> 3]! & (1 << (i & 7))) !== 0;
          any ||= b;
          all &&= b;
        }
        return { min: all, max: any, nan: 0 };
      }
      case 'BYTE_ARRAY':
        return byteArrayMinMax(this.data.subarray(0, this.size));
    }
  }

  private present(): void {
    this.pageValues++;
    if (this.nested) {
      this.level(this.maxDef, this.nextRep);
      return;
    }
    this.validity(1, true);
    this.rows++;
    this.slots++;
    this.pageRows++;
    this.pageSlots++;
  }

  /** Marks the page's next `n` rows valid or null (the bitmap is all zeros past `pageRows`). */
  private validity(n: number, valid = false): void {
    const end = this.pageRows + n;
    if ((end + 7) >> 3 > this.valid.length) {
      const grown = new Uint8Array(Math.max(this.valid.length * 2, (end + 7) >> 3));
      grown.set(this.valid);
      this.valid = grown;
    }
    if (!valid) return;
    const v = this.valid;
    for (let i = this.pageRows; i < end; i++) v[i >> 3]! |= 1 << (i & 7);
  }

  private bit(b: boolean): void {
    const i = this.bits++;
    if ((i & 7) === 0) {
      this.reserve(1);
      this.data[this.size++] = 0;
    }
    if (b) this.data[i >> 3]! |= 1 << (i & 7);
  }

  private byteArray(src: Uint8Array, from: number, to: number): void {
    const n = to - from;
    this.reserve(4 + n);
    const out = this.data;
    let w = this.size;
    out[w] = n & 0xff;
    out[w + 1] = (n >>> 8) & 0xff;
    out[w + 2] = (n >>> 16) & 0xff;
    out[w + 3] = n >>> 24;
    w += 4;
    if (n > 32) out.set(src.subarray(from, to), w);
    else for (let k = from; k < to; k++) out[w + k - from] = src[k]!;
    this.size = w + n;
  }

  /** Whether fixed-width values can be copied into `data` a 4-byte word at a time. */
  private aligned(values: ArrayBufferView): boolean {
    return (values.byteOffset & 3) === 0 && (this.size & 3) === 0;
  }

  private reserve(n: number): void {
    if (this.size + n <= this.data.length) return;
    const grown = new Uint8Array(Math.max(this.data.length * 2, this.size + n));
    grown.set(this.data.subarray(0, this.size));
    this.data = grown;
    this.view = Buffer.from(grown.buffer);
  }
}

/** Min and max of PLAIN byte arrays (a 4-byte length and the bytes each, back to back), unsigned byte order. */
function byteArrayMinMax(d: Uint8Array): MinMax {
  if (d.length === 0) return { nan: 0 };
  // Min and max are kept as their places in `d`, and their first 4 bytes as a number (`keyAt`), which decide
  // most comparisons without a call.
  const dv = new DataView(d.buffer, d.byteOffset, d.byteLength);
  let min = 0;
  let max = 0;
  let minKey = keyAt(d, dv, 0);
  let maxKey = minKey;
  for (let at = lengthAt(d, 0) + 4, end = d.length; at < end; ) {
    const n = lengthAt(d, at);
    const key = keyAt(d, dv, at);
    if (key < minKey || (key === minKey && compareAt(d, dv, at, min) < 0)) {
      min = at;
      minKey = key;
    } else if (key > maxKey || (key === maxKey && compareAt(d, dv, at, max) > 0)) {
      max = at;
      maxKey = key;
    }
    at += n + 4;
  }
  // The footer keeps 16 bytes of each (hyparquet-writer truncates, rounding a max up, and says whether it
  // did); 64 bytes give it the same result and keep a --resume sidecar small whatever the cells' size.
  const value = (at: number) => d.slice(at + 4, at + 4 + Math.min(STAT_BYTES, lengthAt(d, at)));
  return { min: value(min), max: value(max), nan: 0 };
}

/** `v`'s bytes as 32-bit words (its byte offset a multiple of 4), the last partial word left out. */
const words = (v: ArrayBufferView): Int32Array => new Int32Array(v.buffer, v.byteOffset, v.byteLength >> 2);

/** a < b: numbers, bigints and booleans (false < true) as JS orders them, byte arrays unsigned byte by byte. */
function less(a: NonNullable<MinMax['min']>, b: NonNullable<MinMax['min']>): boolean {
  if (a instanceof Uint8Array) return Buffer.compare(a, b as Uint8Array) < 0;
  return a < (b as typeof a);
}

/** The length of the byte array at `at` of `d` (its 4-byte little-endian prefix). */
const lengthAt = (d: Uint8Array, at: number): number =>
  d[at]! | (d[at + 1]! << 8) | (d[at + 2]! << 16) | (d[at + 3]! << 24);

/**
 * The first 4 bytes of the byte array at `at` of `d` as a big-endian unsigned number (zeros after a shorter
 * one's bytes; -1 for an empty one): a smaller key is a smaller value, an equal key says nothing.
 */
function keyAt(d: Uint8Array, dv: DataView, at: number): number {
  const n = lengthAt(d, at);
  if (n >= 4) return dv.getUint32(at + 4);
  if (n === 0) return -1;
  let key = 0;
  for (let k = 0; k < 4; k++) key = key * 256 + (k < n ? d[at + 4 + k]! : 0);
  return key;
}

/** Unsigned byte order of the byte arrays (length-prefixed) at `a` and `b` of `d` (`dv` its view). */
function compareAt(d: Uint8Array, dv: DataView, a: number, b: number): number {
  const la = lengthAt(d, a);
  const lb = lengthAt(d, b);
  const n = Math.min(la, lb);
  let k = 0;
  // Four bytes at a time, as big-endian numbers: the first that differ order the two as their bytes do.
  for (; k + 4 <= n; k += 4) {
    const x = dv.getUint32(a + 4 + k);
    const y = dv.getUint32(b + 4 + k);
    if (x !== y) return x < y ? -1 : 1;
  }
  for (; k < n; k++) {
    const x = d[a + 4 + k]!;
    const y = d[b + 4 + k]!;
    if (x !== y) return x - y;
  }
  return la - lb;
}

/**
 * A DATA_PAGE_V2 page's header, in Thrift's compact protocol (parquet.thrift's PageHeader and
 * DataPageHeaderV2): each field a byte of (id delta << 4 | type), i32 values zigzag varints, structs ending in 0.
 */
function pageHeader(
  slots: number,
  nulls: number,
  rows: number,
  repLevels: number,
  defLevels: number,
  values: number,
  compressed: number,
  encoding: number,
): Uint8Array {
  const levels = repLevels + defLevels;
  const out: number[] = [];
  i32(out, 3); // type: DATA_PAGE_V2
  i32(out, levels + values); // uncompressed_page_size
  i32(out, levels + compressed); // compressed_page_size
  out.push((5 << 4) | STRUCT); // field 8: data_page_header_v2
  i32(out, slots); // num_values
  i32(out, nulls); // num_nulls
  i32(out, rows); // num_rows
  i32(out, encoding); // encoding: PLAIN or RLE_DICTIONARY
  i32(out, defLevels); // definition_levels_byte_length
  i32(out, repLevels); // repetition_levels_byte_length (is_compressed left out: true by default)
  out.push(0, 0);
  return Uint8Array.from(out);
}

/** A DICTIONARY_PAGE's header (PageHeader and DictionaryPageHeader), its `count` values PLAIN. */
function dictionaryPageHeader(count: number, values: number, compressed: number): Uint8Array {
  const out: number[] = [];
  i32(out, 2); // type: DICTIONARY_PAGE
  i32(out, values); // uncompressed_page_size
  i32(out, compressed); // compressed_page_size
  out.push((4 << 4) | STRUCT); // field 7: dictionary_page_header
  i32(out, count); // num_values
  i32(out, PLAIN); // encoding
  out.push(0, 0);
  return Uint8Array.from(out);
}

/** Thrift compact types of a field's header byte. */
const I32 = 5;
const STRUCT = 12;

/** The next field (id one more than the last) of type i32, `v` as a zigzag varint, onto `out`. */
function i32(out: number[], v: number): void {
  out.push((1 << 4) | I32, ...varint(v * 2));
}

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

/**
 * Levels `values[0, n)` of at most `max`, in Parquet's RLE/bit-packed hybrid (runs of equal levels, RLE only),
 * into `out` from `at` (room for one run a level: a 5-byte header and 2 bytes). Returns where they end.
 */
function rle(values: Uint16Array, n: number, max: number, out: Uint8Array, at: number): number {
  if (max === 0) return at;
  const wide = max >= 256;
  let w = at;
  for (let i = 0; i < n; ) {
    const v = values[i]!;
    let j = i + 1;
    while (j < n && values[j] === v) j++;
    w = varintInto(out, w, (j - i) * 2);
    out[w++] = v & 0xff;
    if (wide) out[w++] = v >> 8;
    i = j;
  }
  return w;
}

/** `n` as a ULEB128 varint into `out` at `at`; returns where it ends. */
function varintInto(out: Uint8Array, at: number, n: number): number {
  let w = at;
  while (n > 0x7f) {
    out[w++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  out[w++] = n;
  return w;
}

/** Scratch space every column's pages are made in, one after the other (never two pages at once). */
interface Scratch {
  bytes: Uint8Array;
}
const LEVELS: Scratch = { bytes: new Uint8Array(1 << 16) };
const COMPRESSED: Scratch = { bytes: new Uint8Array(1 << 16) };
const PACKED: Scratch = { bytes: new Uint8Array(1 << 16) };

/** `s`, grown to at least `n` bytes. */
function scratch(s: Scratch, n: number): Scratch {
  if (s.bytes.length < n) s.bytes = new Uint8Array(Math.max(n, s.bytes.length * 2));
  return s;
}
