// The one interface of an export format (docs/architecture.md "Delivery"): each format of the table in
// formats.ts is a module that makes a Formatter of REST rows (a results page, rows already held) and of Arrow
// record batches (a Flight stream), each writing the same bytes for the same values. The delivery pipeline
// (deliver.ts) drives a Formatter; the sources (export-source.ts for REST, flight/export.ts for Flight) choose
// which of the two it is. Types only: the formats, the sources and the pipeline all import it.
import type { RecordBatch, Schema } from 'apache-arrow';
import type { ResultField, ResultRow } from '../api/jobs.js';
import type { ResumeRecord } from './sink.js';

/** Turns a source's pieces into bytes in one format. */
export interface Formatter<D> {
  /** What comes before the first row: the CSV header, the opening bracket, Parquet's magic bytes. */
  readonly head: string | Uint8Array;
  /**
   * One piece's rows (possibly empty while a format buffers them: Parquet's row group). The bytes returned are
   * the caller's: the formatter never writes into them again.
   */
  format(data: D): string | Uint8Array;
  /** What comes after the last row. */
  tail(): string | Uint8Array;
  /** Rows given to `format` whose bytes are not handed out yet (Parquet's row group being filled); else 0. */
  readonly held?: number;
  /** What a resumed export needs besides the bytes to continue them (Parquet's row groups), JSON-safe. */
  state?(): unknown;
  /**
   * A chunk `format` returned is the formatter's again: the sink copied it (sink.ts `copies`), and its buffer
   * may be filled with the next piece rather than a new one allocated.
   */
  recycle?(chunk: Uint8Array): void;
}

/** What a REST formatter formats: a page of row objects. */
export interface PageRows {
  rows: readonly ResultRow[];
  /** The rows hold JsonNumbers (api/exact-json.ts). */
  exact: boolean;
}

/** How a REST formatter writes: after rows already written (a resumed export), indented for a reader. */
export interface FormatOptions {
  /** The rows follow rows already written (a resumed export): no head, and the first row is not the file's first. */
  continuing?: boolean;
  /** JSON indented for a reader, as every other command prints it (standard output, not files). */
  pretty?: boolean;
  /** The formatter's `state()` at the checkpoint a resumed export continues from (Parquet). */
  state?: unknown;
  /** The bytes of FILE.partial kept up to that checkpoint. */
  bytes?: number;
}

/** An export format's module, as the table of formats loads it. */
export interface ExportFormatModule {
  /** The formatter of REST rows with these columns. */
  rows(schema: readonly ResultField[], opts?: FormatOptions): Formatter<PageRows>;
  /**
   * The formatter of Arrow record batches of this schema (its Arrow code loaded only now). A column type no
   * writer takes is refused by name here, before a byte is written.
   */
  batches(schema: Schema): Promise<Formatter<RecordBatch>>;
  /**
   * The rows FILE.partial's kept bytes hold as this format wrote them, which `--resume` checks against the
   * sidecar's record before it trusts it (resume.ts); a text says why they are not this format's. The bytes'
   * CRC is checked before this is called.
   */
  keptRows(kept: KeptBytes): Promise<number | string>;
}

/** FILE.partial's bytes that its sidecar describes, for a resumed export's check. */
export interface KeptBytes {
  partial: string;
  /** The sidecar's name, for messages. */
  sidecar: string;
  record: ResumeRecord;
}
