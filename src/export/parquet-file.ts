// A Parquet file being written (docs/architecture.md "Parquet"): typed columns from the result's column types
// (column-types.ts, the same for both transports), filled a row group at a time as pages (REST, parquet.ts) or
// record batches (Flight, parquet-arrow.ts) arrive, so memory holds one row group whatever the row count. Each
// leaf column's cells are PLAIN-encoded as they come into a ColumnBuffer (parquet-columns.ts), which compresses
// each page as it fills; hyparquet-writer writes the footer. A row group ends once its columns hold about
// GROUP_BYTES of encoded values, so a wide or text-heavy result does not hold more.
// For --resume, `state()` is the metadata of the row groups written so far (the footer lists them at the end);
// a file given it back continues after them, byte for byte as if it had never stopped.
//   VARCHAR → string · VARBINARY → binary (raw bytes) · BOOLEAN → boolean · TINYINT/SMALLINT/INTEGER → int32
//   BIGINT → int64 · FLOAT → float · DOUBLE → double (NaN kept) · DECIMAL(p,s) → decimal(p,s), p ≤ 38
//   DATE → date · TIME → time (ms, µs or ns) · TIMESTAMP → timestamp (its unit; adjusted to UTC when zoned)
//   INTERVAL → its ISO 8601 text · LIST → LIST · STRUCT → group · MAP → MAP, with their levels (parquet-schema.ts)
// Every column is OPTIONAL: null stays null, and the empty string stays an empty string.
//
// A subclass appends each piece's rows to `columns()` (the same number of rows to each, with values of each
// column's Parquet type), then returns `filled()`: the bytes to append next (possibly none). The bytes returned
// are the caller's to keep: nothing here writes into them again.
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { ResultField } from '../api/jobs.js';
import { type ColumnType, columnTypeOfResult } from './column-types.js';
import type { Formatter } from './formatter.js';
import { PAGE_BYTES } from './parquet-columns.js';
import { type ParquetColumn, parquetColumn } from './parquet-schema.js';
import { decodeState, encodeState } from './parquet-state.js';

/** Encoded values buffered before a row group is written. */
const GROUP_BYTES = 2 * 1024 * 1024;

/** Where a resumed export continues FILE.partial: after `bytes` bytes, the writer's row groups restored. */
interface ParquetResume {
  bytes: number;
  state: unknown;
}

export interface ParquetOptions {
  /** Encoded bytes per row group (default GROUP_BYTES). */
  groupBytes?: number;
  resume?: ParquetResume;
}

/** The writer's state that the footer is made of; everything else it holds is its options. */
interface WriterState {
  row_groups: ParquetWriter['row_groups'];
  num_rows: bigint;
  pendingIndexes: ParquetWriter['pendingIndexes'];
}

/** A column by its name and type: a REST results schema's field, or a column type of the one table. */
export type Column = ResultField | { name: string; type: ColumnType; typeName?: string };

const typeOf = (c: Column): ColumnType =>
  'kind' in c.type ? (c.type as ColumnType) : columnTypeOfResult(c.type as ResultField['type']);

export abstract class ParquetFile<D> implements Formatter<D> {
  readonly head: Uint8Array;
  protected readonly types: ColumnType[];
  private readonly cols: ParquetColumn[];
  private readonly out = new ByteWriter();
  /** The bytes `out` holds were handed out and not given back (`recycle`): not to be written into again. */
  private lent = false;
  private readonly writer: ParquetWriter;
  private readonly groupBytes: number;

  constructor(schema: readonly Column[], opts: ParquetOptions = {}) {
    const types = schema.map(typeOf);
    this.types = types;
    // Refused by name before a byte is written (parquet-schema.ts): what Parquet cannot hold without loss.
    this.cols = schema.map((f, c) =>
      parquetColumn(f.name, types[c]!, 'typeName' in f ? (f.typeName as string | undefined) : undefined),
    );
    this.writer = new ParquetWriter({
      writer: this.out,
      schema: [{ name: 'root', num_children: this.cols.length }, ...this.cols.flatMap((c) => c.elements)],
      createdBy: 'dlake',
    });
    this.head = this.out.getBytes().slice();
    this.out.index = 0;
    this.groupBytes = opts.groupBytes ?? GROUP_BYTES;
    if (opts.resume) {
      // The magic bytes are already in FILE.partial: go on after its last complete row group.
      this.head = new Uint8Array(0);
      this.out.offset = opts.resume.bytes;
      this.restore(opts.resume.state);
    }
  }

  /** Rows given that are not yet in the bytes handed out (the row group being filled). */
  get held(): number {
    return this.cols[0]?.leaves[0]?.rows ?? 0;
  }

  /** One piece's rows: appended to the columns, and a row group's bytes once enough are (else none). */
  abstract format(data: D): Uint8Array | string;

  /** The columns a piece's rows are appended to (the same number of rows to each), before `filled()`. */
  protected columns(): readonly ParquetColumn[] {
    return this.cols;
  }

  /** After rows were appended: a row group's bytes once enough are buffered (else an empty string). */
  protected filled(): Uint8Array | string {
    let bytes = 0;
    for (const c of this.cols)
      for (const leaf of c.leaves) {
        leaf.index();
        if (leaf.pageBytes >= PAGE_BYTES) leaf.endPage();
        bytes += leaf.plainBytes;
      }
    return bytes >= this.groupBytes ? this.flush() : '';
  }
  /**
   * The metadata of the row groups handed out so far, JSON-safe (for the sidecar). Taken between row groups
   * (`held` is 0), it is all a formatter needs to continue the file.
   */
  state(): unknown {
    const w = this.writer;
    return encodeState({
      row_groups: w.row_groups,
      num_rows: w.num_rows,
      // Each entry's `chunk` is the column chunk in row_groups (the page indexes fill in its offsets at the
      // end): kept once, and joined again on restore.
      pendingIndexes: w.pendingIndexes.map(({ chunk: _, ...rest }) => rest),
    });
  }

  private restore(encoded: unknown): void {
    const s = writerState(
      encoded,
      this.cols.reduce((n, c) => n + c.leaves.length, 0),
    );
    if (!s) throw new Error('not the state of a Parquet export');
    const chunks = s.row_groups.flatMap((g) => g.columns);
    this.writer.row_groups = s.row_groups;
    this.writer.num_rows = s.num_rows;
    this.writer.pendingIndexes = s.pendingIndexes.map((p, i) => ({ ...p, chunk: chunks[i]! }));
  }

  /** The last row group, the footer. */
  tail(): Uint8Array {
    const last = this.flush();
    this.own();
    this.writer.finish();
    return concat(last, this.take());
  }

  private flush(): Uint8Array {
    const rows = this.held;
    if (rows === 0) return new Uint8Array(0);
    this.own();
    const w = this.writer;
    const start = this.out.offset;
    const columns = this.cols.flatMap((c) =>
      c.leaves.map((leaf) => {
        if (leaf.rows !== rows) throw new Error(`column ${c.name} holds ${leaf.rows} rows, not ${rows}`);
        const written = leaf.write(this.out);
        w.pendingIndexes.push(written);
        return written.chunk;
      }),
    );
    let total_byte_size = 0n;
    for (const { meta_data } of columns) total_byte_size += meta_data?.total_uncompressed_size ?? 0n;
    w.num_rows += BigInt(rows);
    w.row_groups.push({
      columns,
      total_byte_size,
      num_rows: BigInt(rows),
      total_compressed_size: BigInt(this.out.offset - start),
    });
    return this.take();
  }

  /**
   * The bytes encoded since the last take, where they are (no copy): lent until `recycle` gives them back, and
   * the next row group is written into a new buffer if it does not.
   */
  private take(): Uint8Array {
    const bytes = this.out.getBytes();
    this.out.index = 0;
    this.lent = true;
    return bytes;
  }

  /** A row group's bytes, copied by the sink: its buffer is the next row group's. */
  recycle(chunk: Uint8Array): void {
    if (chunk.buffer === this.out.buffer) this.lent = false;
  }

  /** Before bytes are written to `out`: a buffer of its own if the last one is still lent. */
  private own(): void {
    if (!this.lent) return;
    this.out.buffer = new ArrayBuffer(this.out.buffer.byteLength);
    this.out.view = new DataView(this.out.buffer);
    this.lent = false;
  }
}

/**
 * The writer state in a sidecar, if it has the shape `state()` gives: row groups of `width` column chunks
 * each (any width when undefined), one page index entry a chunk, and the row count they add up to.
 */
export function writerState(encoded: unknown, width?: number): WriterState | undefined {
  let s: Partial<WriterState>;
  try {
    s = decodeState(encoded) as Partial<WriterState>;
  } catch {
    return undefined;
  }
  if (!s || !Array.isArray(s.row_groups) || !Array.isArray(s.pendingIndexes)) return undefined;
  if (typeof s.num_rows !== 'bigint') return undefined;
  let rows = 0n;
  let chunks = 0;
  for (const g of s.row_groups) {
    if (!g || !Array.isArray(g.columns) || typeof g.num_rows !== 'bigint') return undefined;
    if (width !== undefined && g.columns.length !== width) return undefined;
    rows += g.num_rows;
    chunks += g.columns.length;
  }
  if (rows !== s.num_rows || chunks !== s.pendingIndexes.length) return undefined;
  return s as WriterState;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  return a.length === 0 ? b : Buffer.concat([a, b]);
}
