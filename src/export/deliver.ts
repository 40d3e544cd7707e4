// The delivery pipeline (docs/architecture.md "Delivery"): every row dlake writes out goes through
// `deliver(source, sink)`. A source hands out pieces in order (a REST results page, a Flight record batch,
// rows already held); a sink takes bytes (a file through FILE.partial and rename, standard output, a capped
// buffer in memory). Between them this module owns what must be the same on every path: the formatter made
// from the first piece's columns, head, rows and tail, the row count, the checkpoints a REST export resumes
// from, progress, Ctrl-C and the other stop signals, retries before the first row, V8's memory policy while it
// runs, and what a failure becomes: one error whose exit code says whose fault it was (6 the query, 7 the
// service or the stream, 9 the local disk, 130/143/129 a signal) and whose message ends with the rows received
// and what was (or was not) written. A source describes its own failures (`explain`); the rest is done here, once.
import {
  DlakeError,
  InterruptedError,
  JobFailedError,
  LocalIOError,
  rephrased,
  ServiceError,
} from '../errors.js';
import { fileWriteError } from '../util/files.js';
import { countRows } from '../util/units.js';
import type { ExportFormat } from './formats.js';
import type { Formatter } from './formatter.js';
import { OutputClosedError, type Sink } from './sink.js';

/** A piece of the rows, in order. */
interface Piece<C, D> {
  /** The columns of its rows: the first piece's make the formatter, and every later piece must agree. */
  columns: C;
  /** Rows in it. */
  rows: number;
  /** What the formatter formats. */
  data: D;
  /** The rows already in the format (a REST page read straight to CSV): written as they are. */
  formatted?: Uint8Array;
}

/** Where rows come from. */
export interface Source<C, D> {
  /** The pieces in order, from the first. Called again to retry (`retry`), before any row was delivered. */
  pieces(signal: AbortSignal): AsyncIterable<Piece<C, D>>;
  /** The formatter for `columns` (the first piece's) in `format`. */
  formatter(columns: C, format: ExportFormat): Promise<Formatter<D>>;
  /** Whether `later` (a piece's columns) are `first`'s: throws the error that says how they differ. */
  sameColumns?(first: C, later: C): void;
  /** Rows the source is expected to deliver in all, once a piece has told (progress, and the check at the end). */
  expected?(): number | undefined;
  /**
   * Rows the source has received so far, when it can have more in hand than it handed out (a Flight reader
   * holding a batch it has read while it reads on): a failure names these, and the rows written beside them.
   */
  received?(): number;
  /** Throws when `rows` is not the whole result (REST: the job's rowCount). */
  complete?(rows: number): void;
  /**
   * The source's own failure as dlake's error (a gRPC status, a refused page). Must not throw; undefined or
   * the error itself leaves it as it is.
   */
  explain?(err: unknown, rows: number): unknown;
  /** Before a row is delivered: whether (after a pause it waits out itself) to open the pieces again. */
  retry?(err: unknown, attempt: number, signal: AbortSignal): Promise<boolean>;
  /**
   * The rows already in the sink before the first piece (a resumed export continues FILE.partial): counted
   * in messages and checkpoints, and no head is written.
   */
  readonly offset?: number;
  /** What was written can be continued from its last checkpoint: the sink keeps it on a failure. */
  readonly resumable?: boolean;
}

interface DeliverOptions {
  format: ExportFormat;
  signal: AbortSignal;
  /** After every piece: rows delivered (counting a source's `offset`) and the rows expected, if known. */
  onProgress?: (rows: number, total: number | undefined) => void;
  /** The hint of an error after which the sink kept FILE.partial: the `--resume` command line. */
  resumeHint?: string;
}

interface Delivered {
  /** Rows delivered by this run (not counting the source's `offset`). */
  rows: number;
  /** The reader went away before the end (`| head`), or the sink's cap was reached: not an error. */
  truncated: boolean;
}

/** Streams every piece of `source` into `sink` in `format`; see the module's comment for what it owns. */
export async function deliver<C, D>(
  source: Source<C, D>,
  sink: Sink,
  opts: DeliverOptions,
): Promise<Delivered> {
  const offset = source.offset ?? 0;
  const state = { rows: 0, started: false };
  // V8's memory policy for a long export (below), put back when it ends (the SQL shell goes on).
  const restore = holdHeapGrowth();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        return await run(source, sink, opts, state);
      } catch (err) {
        if (state.started || state.rows > 0 || err instanceof OutputClosedError || opts.signal.aborted)
          throw err;
        if (!(await safely(() => source.retry?.(err, attempt, opts.signal), false))) throw err;
      }
    }
  } catch (err) {
    if (err instanceof OutputClosedError) {
      await sink.discard();
      return { rows: state.rows, truncated: true };
    }
    const e = asDlakeError(err, source, state.rows, opts.signal, sink);
    const kept = source.resumable && keepable(e) ? await sink.suspend() : await sink.discard().then(() => 0);
    const received = Math.max(state.rows, await safely(() => source.received?.() ?? 0, 0));
    // What a device or standard output took, where it can tell: rows handed to it may still have been in a
    // buffer when it failed (a full device takes no byte of them).
    const taken = await safely(() => sink.rowsTaken?.(), undefined);
    const written = taken ?? (sink.isFile ? undefined : { rows: state.rows, exact: true });
    throw stoppedAfter(
      e,
      {
        received: offset + received,
        written: written && { rows: offset + written.rows, exact: written.exact },
      },
      sink,
      kept,
      opts.resumeHint,
    );
  } finally {
    v8Flags(restore);
  }
}

// A bound on V8's own memory policy for a long export (docs/benchmarks.md). It forces no collection; the
// export's own buffers are bounded by the pieces held, whatever the row count.
const v8Flags = (flags: string): void => process.getBuiltinModule('node:v8').setFlagsFromString(flags);

/**
 * Every piece lives through a few of V8's young-generation collections (it waits in the window of pages), and
 * V8 doubles the young generation, up to 16 MiB a semi-space, each time that much has survived them, and
 * does not shrink it while allocation goes on: the peak RSS of a long export grew by ~30 MiB that way. Held
 * at the size it has when the export starts, collections are more frequent and each as cheap. Parquet too:
 * its row group is held in column buffers, not JS values, and a young generation left to grow also made V8
 * mark the whole heap every few batches (a small old generation beside a large new one). On Node 24 a CSV
 * export of 400k rows peaks at 105 MiB with it, 120 MiB without; nested Parquet of 10M rows on Node 20 at
 * 138 MiB, 167 MiB without (docs/benchmarks.md). The old generation's limit is held at three times what a
 * full collection leaves (`--heap-growing-percent`): V8 sizes it by how fast the program allocates, and an
 * export that makes little garbage got a limit so close to its ~12 MiB of live objects that V8 began marking
 * the whole heap again as soon as it had finished, 100–150 times in 10M rows, a third more CPU. Returns the
 * flags that put V8's defaults back.
 */
function holdHeapGrowth(): string {
  v8Flags('--semi-space-growth-factor=1 --heap-growing-percent=200');
  return '--semi-space-growth-factor=2 --heap-growing-percent=0'; // V8's defaults
}

async function run<C, D>(
  source: Source<C, D>,
  sink: Sink,
  opts: DeliverOptions,
  state: { rows: number; started: boolean },
): Promise<Delivered> {
  const { signal } = opts;
  const offset = source.offset ?? 0;
  let formatter: Formatter<D> | undefined;
  let first: C | undefined;
  for await (const piece of source.pieces(signal)) {
    if (!formatter) {
      first = piece.columns;
      formatter = await source.formatter(piece.columns, opts.format);
      state.started = true;
      await sink.write(formatter.head, signal);
    } else if (piece.columns !== first) source.sameColumns?.(first as C, piece.columns);
    // The bytes handed over are the sink's from now on (target.ts Sink). A piece of no rows (an empty
    // result's columns) has none.
    if (piece.formatted) await sink.write(piece.formatted, signal);
    else if (piece.rows > 0) {
      const chunk = formatter.format(piece.data);
      await sink.write(chunk, signal);
      if (sink.copies && typeof chunk !== 'string') formatter.recycle?.(chunk);
    }
    state.rows += piece.rows;
    if (!formatter.held) sink.mark?.(offset + state.rows);
    // A point to resume from only once every row so far is in the bytes (not in a row group being filled).
    if (source.resumable && !formatter.held) await sink.checkpoint(offset + state.rows, formatter.state?.());
    // Ctrl-C between pieces: stop here rather than after the requests in flight.
    if (signal.aborted) throw new InterruptedError('interrupted');
    opts.onProgress?.(offset + state.rows, source.expected?.());
  }
  if (signal.aborted) throw new InterruptedError('interrupted');
  if (formatter) source.complete?.(state.rows);
  if (formatter) await sink.write(formatter.tail(), signal);
  await sink.commit();
  return { rows: state.rows, truncated: false };
}

/** `fn()`, or `fallback` if it throws: what a failure's own handling calls must never throw over it. */
async function safely<T>(fn: () => T | Promise<T>, fallback: T): Promise<T> {
  try {
    return (await fn()) ?? fallback;
  } catch {
    return fallback;
  }
}

/** The errno codes of a local write that failed for a reason of the machine's, not dlake's (exit 9). */
const LOCAL_WRITE_CODES = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EROFS', 'EACCES', 'EPERM', 'EFBIG', 'ENXIO']);

/**
 * Any failure as one of dlake's errors, whatever its shape: the source's explanation first, then Ctrl-C, a
 * local write, and for anything else the error as it is (a bug stays a bug). Never throws.
 */
function asDlakeError(
  err: unknown,
  source: Source<unknown, unknown>,
  rows: number,
  signal: AbortSignal,
  sink: Sink,
): unknown {
  try {
    // Errors of the machine and of the user come first: a source names only its own.
    if (err instanceof DlakeError) return err;
    if ((err as Error)?.name === 'AbortError' && signal.aborted) return new InterruptedError('interrupted');
    const code = (err as NodeJS.ErrnoException)?.code;
    if (typeof code === 'string' && LOCAL_WRITE_CODES.has(code)) {
      const e = fileWriteError(sink.partial ?? sink.name, err);
      // Only an Error is kept as the cause (--debug prints its stack).
      return err instanceof Error ? e : new LocalIOError(e.message);
    }
    const explained = source.explain?.(err, rows);
    if (explained !== undefined) return explained;
  } catch {
    return new ServiceError(`the export failed: ${describe(err)}`, { cause: err });
  }
  return err;
}

/** What any thrown value says, in one line, whatever it is. */
export function describe(err: unknown): string {
  try {
    const m = (err as Error)?.message;
    if (typeof m === 'string' && m) return m;
    return typeof err === 'string' ? err : (JSON.stringify(err) ?? String(err));
  } catch {
    return 'an error that cannot be described';
  }
}

/**
 * Failures after which what was written is worth keeping for --resume: Ctrl-C and the other signals, the
 * network or the service, a full (or failing) disk. Not a query that failed, nor rows that do not add up.
 */
function keepable(err: unknown): boolean {
  if (err instanceof InterruptedError || err instanceof LocalIOError) return true;
  return (
    err instanceof ServiceError && !(err instanceof IncompleteResultError) && !(err instanceof JobFailedError)
  );
}

/** The source handed out fewer (or more) rows than the result holds: the result is not to be trusted. */
export class IncompleteResultError extends ServiceError {}

/**
 * The same error, its message completed with the rows received and what was (not) written: rows received
 * (counting a resumed export's) and, where the sink writes as it goes (standard output, a device), how many of
 * them were written.
 */
function stoppedAfter(
  err: unknown,
  { received, written }: { received: number; written: { rows: number; exact: boolean } | undefined },
  sink: Sink,
  kept: number,
  resumeHint: string | undefined,
): unknown {
  if (!(err instanceof DlakeError)) return err;
  // Nothing received for standard output needs no account of it.
  if (!sink.isFile && received === 0) return err;
  const rows = received;
  const into = (where: string) => {
    if (written?.exact && written.rows === received)
      return `export stopped after ${countRows(rows)} written ${where}`;
    const n = written?.rows.toLocaleString('en-US');
    const part = !written
      ? 'a part of them'
      : written.exact
        ? written.rows === 0
          ? 'none of them'
          : `${n} of them`
        : written.rows === 0
          ? 'not all of them'
          : `at least ${n} of them`;
    return `export stopped after ${countRows(rows)}, ${part} written ${where}`;
  };
  const what = !sink.isFile
    ? into(`to ${sink.name}`)
    : sink.partial === undefined
      ? into(`into ${sink.name}`)
      : kept > 0
        ? `export stopped after ${countRows(rows)}; ${sink.name} was not written, the first ${countRows(kept)} are kept in ${sink.partial}`
        : sink.resumed
          ? `export stopped after ${countRows(rows)}; ${sink.name} was not written, ${sink.partial} and its sidecar are kept`
          : `export stopped after ${countRows(rows)}; ${sink.name} was not written`;
  return rephrased(err, `${err.message}: ${what}`, kept > 0 && resumeHint ? { hint: resumeHint } : {});
}
