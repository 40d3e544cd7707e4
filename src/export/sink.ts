// What the delivery pipeline (deliver.ts) writes into: a sink, and what a file sink keeps for --resume. Each sink
// has a module of its own: file-sink.ts (a file through FILE.partial, or a device, pipe or socket written into as
// it is: special-files.ts), stdout-sink.ts and memory.ts (a capped buffer); target.ts opens the one `--out` names.

/**
 * Where the delivery pipeline (deliver.ts) puts bytes: a file, standard output, a capped buffer in memory.
 *
 * Ownership: a chunk handed to a sink belongs to the sink from then on. No producer reuses, overwrites or
 * returns to a pool a buffer it has handed over; a producer that fills buffers takes a new one for the next
 * piece. (A sink may keep a chunk and write it later: a file writer that held a large chunk by reference
 * while its producer refilled the buffer wrote a wrong file of the right size.) The one exception is a sink
 * that says it `copies`: it has copied a chunk by the time `write` resolves, and the chunk is then its
 * producer's again (deliver.ts hands it back to the formatter, which fills the same buffer next).
 */
export interface Sink {
  /** How messages name it: the file, or "standard output". */
  readonly name: string;
  readonly isFile: boolean;
  /** Where a kept FILE.partial is (undefined for standard output, a device, a pipe or a socket). */
  readonly partial?: string;
  /** It continues an earlier export's FILE.partial, which a failure must never remove. */
  readonly resumed: boolean;
  /** `write` copies each chunk before it resolves and keeps no reference to it (see Ownership above). */
  readonly copies?: boolean;
  /** Resolves once the sink can take more; `chunk` is the sink's from the call on (see above). */
  write(chunk: string | Uint8Array, signal?: AbortSignal): Promise<void>;
  /**
   * Everything written so far holds `rows` complete rows: a point a resumed export may restart from, with
   * what the formatter needs besides the bytes (`state`, Parquet's row groups). A gzipped file closes its
   * gzip member here (every MEMBER_ROWS rows) so the bytes before it stand alone.
   */
  checkpoint(rows: number, state?: unknown): Promise<void>;
  /**
   * Everything handed over so far holds `rows` rows (after each piece): a sink that writes into what it cannot
   * take back (a device, standard output) counts from these the rows its destination has taken.
   */
  mark?(rows: number): void;
  /**
   * The rows whose bytes the destination has taken, where the sink writes into it as it goes (a device, a
   * pipe, standard output): `exact` when no write is under way, else at least these (a pipe whose reader
   * stopped reading took part of a write). Undefined where it cannot tell: a file is not written until whole.
   */
  rowsTaken?(): { rows: number; exact: boolean } | undefined;
  /** Everything written: flush, close and (for a file) rename into place. */
  commit(): Promise<void>;
  /**
   * Give up: nothing is left behind (the partial file is removed), except by a resumed export, which keeps
   * FILE.partial and its sidecar as they were. Never throws.
   */
  discard(): Promise<void>;
  /**
   * Stop, but keep FILE.partial up to the last checkpoint with its sidecar for `--resume`. Returns the rows
   * kept; with none to keep (or on standard output) it discards instead and returns 0. Never throws.
   */
  suspend(): Promise<number>;
}

/** What FILE.partial.json says about FILE.partial: enough to continue it, and to refuse another export's. */
export interface ResumeRecord {
  jobId: string;
  format: string;
  gzip: boolean;
  /** Complete rows in the first `bytes` bytes of FILE.partial. */
  rows: number;
  bytes: number;
  /**
   * CRC-32 of the last CHECKED_TAIL of those bytes (all of them when fewer): --resume checks FILE.partial
   * against it, and counts the rows in all of them, before it trusts the record.
   */
  crc32: number;
  /** Parquet: the metadata of the row groups in those bytes, which the footer will list. */
  writer?: unknown;
}

/**
 * What a stream (standard output, a gzip member) may keep until it has used it: bytes copied, since the
 * caller may reuse its buffer once `write` resolves (strings cannot change).
 */
export const ownCopy = (chunk: string | Uint8Array): string | Uint8Array =>
  typeof chunk === 'string' ? chunk : Buffer.from(chunk);

/**
 * The rows a destination has taken: marks of (rows, the position their bytes end at) as they are handed over,
 * dropped once the destination has taken the bytes up to the next one.
 */
export class TakenRows {
  private marks: { rows: number; end: number }[] = [];
  private taken = 0;

  /** `rows` rows end at position `end` of what was handed over. */
  mark(rows: number, end: number): void {
    this.marks.push({ rows, end });
  }

  /** The destination has taken everything up to position `end`. */
  took(end: number): void {
    this.taken = end;
    while (this.marks.length > 1 && this.marks[1]!.end <= end) this.marks.shift();
  }

  /** Whether everything up to position `end` is taken. */
  all(end: number): boolean {
    return this.taken >= end;
  }

  /** Rows whose bytes were all taken. */
  get rows(): number {
    let rows = 0;
    for (const m of this.marks) {
      if (m.end > this.taken) break;
      rows = m.rows;
    }
    return rows;
  }
}

/** Raised when standard output is closed by its reader (`| head`): the export stops without an error. */
export class OutputClosedError extends Error {}
