// A file as a sink (docs/cli-contract.md "Jobs, results and export"): written as `FILE.partial` and renamed on
// success, so that a FILE that exists is always complete; a device, pipe or socket (special-files.ts) written
// into as it is. Writes wait for the file to take them: that backpressure is what stops the page fetching from
// running ahead of the disk. An export that stops on a failure or Ctrl-C may keep FILE.partial with a sidecar
// FILE.partial.json (job, format, rows, bytes and their CRC-32) for --resume.
import { once } from 'node:events';
import { constants, renameSync, rmSync, writeFileSync } from 'node:fs';
import { type FileHandle, link, open, rename, rm } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { crc32, createGzip, type Gzip } from 'node:zlib';
import { DlakeError, InterruptedError, UsageError } from '../errors.js';
import { describeFsError, fileWriteError, readCheckedFile, USER_FILE_MAX_BYTES } from '../util/files.js';
import { FileWriter } from './file-writer.js';
import { ownCopy, type ResumeRecord, type Sink, TakenRows } from './sink.js';
import {
  cannotResumeInto,
  checkWritable,
  fileExists,
  openSpecial,
  resolveOut,
  type SpecialHandle,
} from './special-files.js';

type Checkpoint = Pick<ResumeRecord, 'rows' | 'bytes' | 'writer'>;

/**
 * The kept bytes' end that the sidecar's CRC-32 covers. The whole file would cost a pass over every byte
 * exported (~5% of a CSV export's CPU); the end is what another run's partial file, or a record of another
 * length, gets wrong, and the rows are counted in all of it anyway.
 */
const CHECKED_TAIL = 64 * 1024;

/** The CRC-32 of the CHECKED_TAIL bytes before `bytes` in the file (read back: they are in the page cache). */
export async function tailCrc(handle: Pick<FileHandle, 'read'>, bytes: number): Promise<number> {
  const n = Math.min(bytes, CHECKED_TAIL);
  const buf = Buffer.alloc(n);
  let got = 0;
  while (got < n) {
    const { bytesRead } = await handle.read(buf, got, n - got, bytes - n + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return crc32(buf.subarray(0, got));
}

/** Rows in one gzip member: the granularity at which a gzipped export can be resumed. */
const MEMBER_ROWS = 50_000;
/** The sidecar is rewritten at most this often while an export runs (for a process killed outright). */
const RECORD_EVERY_MS = 2000;

export const partialOf = (file: string): string => `${file}.partial`;
export const sidecarOf = (file: string): string => `${file}.partial.json`;

export interface FileTargetOptions {
  /** Gzip what is written, in members of MEMBER_ROWS rows. */
  gzip?: boolean;
  /** Identity written to the sidecar; without it nothing is kept for --resume. */
  record?: Pick<ResumeRecord, 'jobId' | 'format'>;
  /** Continue FILE.partial from this record (already checked against the job and format). */
  resume?: ResumeRecord;
  /** Never replace a FILE that exists (`--no-clobber`): the final rename becomes a link that fails if it does. */
  noClobber?: boolean;
  /** Ends a wait for a named pipe's reader (Ctrl-C, SIGTERM, SIGHUP). */
  signal?: AbortSignal;
  /** Called once when a named pipe has no reader yet and the open waits for one. */
  onWait?: () => void;
}

export async function openFileSink(file: string, opts: FileTargetOptions = {}): Promise<Sink> {
  await checkWritable(file, opts);
  const out = await resolveOut(file);
  if (out.kind === 'special') {
    if (opts.resume) throw cannotResumeInto(file, out.what);
    let handle: SpecialHandle;
    try {
      handle = await openSpecial(out, opts.signal, opts.onWait);
    } catch (e) {
      throw e instanceof DlakeError ? e : fileWriteError(file, e);
    }
    return new FileTarget(file, handle, { gzip: opts.gzip, signal: opts.signal }, undefined);
  }
  const partial = partialOf(out.path);
  let handle: FileHandle;
  try {
    // Read and write: the sidecar's CRC-32 is taken from what is read back. A new FILE.partial is created
    // exclusively, whatever was there before removed (a link planted there is not followed); a resumed one is
    // opened without following a link or blocking, and must be a regular file (checkResume said so).
    const { O_RDWR, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = constants;
    if (!opts.resume) await rm(partial, { force: true });
    handle = await open(
      partial,
      O_RDWR | O_NOFOLLOW | O_NONBLOCK | (opts.resume ? 0 : O_CREAT | O_EXCL),
      0o666,
    );
    if (!(await handle.stat()).isFile()) {
      await handle.close();
      throw Object.assign(new Error('it is not a regular file'), { code: 'ENOTREG' });
    }
    // Whatever follows the last checkpoint is a row cut in half: it goes.
    if (opts.resume) await handle.truncate(opts.resume.bytes);
  } catch (e) {
    throw fileWriteError(partial, e);
  }
  return new FileTarget(file, handle, opts, out.path);
}

class FileTarget implements Sink {
  /** Every chunk is copied (into the file writer's buffers, or a gzip member's input) before `write` returns. */
  readonly copies = true;
  readonly isFile = true;
  readonly resumed: boolean;
  private readonly file: FileWriter;
  private member?: Gzip;
  private failure?: Error;
  /** Rows at the start of the current gzip member. */
  private memberStart: number;
  /** The last checkpoint. */
  private last: Checkpoint;
  private recordedAt = Number.NEGATIVE_INFINITY;
  /** Rows the sidecar on disk holds (written only once its bytes were): what a failure may still keep. */
  private recorded: number;

  /**
   * `path`: the regular file written through `path.partial` (FILE, or where its links lead); undefined for a
   * device, pipe or socket, written into as it is.
   */
  constructor(
    readonly name: string,
    private readonly handle: SpecialHandle,
    private readonly opts: FileTargetOptions,
    private readonly path: string | undefined,
  ) {
    this.file = new FileWriter(handle, { start: opts.resume?.bytes, sequential: path === undefined });
    this.resumed = opts.resume !== undefined;
    this.memberStart = opts.resume?.rows ?? 0;
    this.recorded = this.memberStart;
    this.last = { rows: this.memberStart, bytes: this.file.bytes, writer: opts.resume?.writer };
    // A FILE.partial of this run that nothing describes is removed even when the process is stopped before
    // the clean-up ends (a second SIGTERM, docs/cli-contract.md "Signals").
    if (path !== undefined && !opts.resume) {
      const partial = partialOf(path);
      // Each removal on its own: a FILE.partial already gone must not keep the temporary sidecar.
      this.forget = atExit(() => {
        if (this.recorded === 0) rmSync(partial, { force: true });
        rmSync(`${sidecarOf(path)}.tmp`, { force: true });
      });
    }
  }

  /** Stops the exit-time removal: the file is committed, discarded or kept on purpose. */
  private forget = (): void => {};

  /** Where a kept FILE.partial is, for messages. */
  get partial(): string | undefined {
    return this.path === undefined ? undefined : partialOf(this.path);
  }

  async write(chunk: string | Uint8Array, signal?: AbortSignal): Promise<void> {
    this.check();
    if (chunk.length === 0) return;
    if (this.opts.gzip) {
      const member = this.gzipMember();
      if (!member.write(ownCopy(chunk))) await this.drained(member, signal);
    } else {
      try {
        this.file.append(chunk);
      } catch (e) {
        // A write that failed since the last call (a full disk) is reported here, as this file's failure.
        this.fail(e);
      }
    }
    await this.stoppable(this.file.ready(), signal).catch((e) => this.fail(e));
    this.check();
  }

  /**
   * `p`; for a device, named pipe or socket, an InterruptedError as soon as a signal comes: a reader that
   * stopped reading would hold the write up for ever. (A regular file's writes end by themselves.)
   */
  private stoppable<T>(p: Promise<T>, signal = this.opts.signal): Promise<T> {
    if (this.path !== undefined || !signal) return p;
    if (signal.aborted) return Promise.reject(new InterruptedError('interrupted'));
    return new Promise<T>((resolve, reject) => {
      const stop = () => reject(new InterruptedError('interrupted'));
      signal.addEventListener('abort', stop, { once: true });
      p.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
    });
  }

  /**
   * A device, pipe or socket: the rows it has taken. Through gzip, whose bytes lag the rows it was given, only
   * that it took none is known.
   */
  private readonly taken = new TakenRows();

  mark(rows: number): void {
    if (this.path !== undefined || this.opts.gzip) return;
    this.taken.took(this.file.written);
    this.taken.mark(rows, this.file.bytes);
  }

  rowsTaken(): { rows: number; exact: boolean } | undefined {
    if (this.path !== undefined) return undefined;
    this.taken.took(this.file.written);
    // A device says what each write took; a pipe or socket only once a whole write is taken.
    const exact = !this.handle.stream || this.file.written === this.file.bytes;
    if (this.opts.gzip) return this.file.written === 0 && exact ? { rows: 0, exact } : undefined;
    return { rows: this.taken.rows, exact };
  }

  async checkpoint(rows: number, state?: unknown): Promise<void> {
    if (this.opts.gzip) {
      if (rows - this.memberStart < MEMBER_ROWS) return;
      await this.endMember();
      this.memberStart = rows;
    }
    this.last = { rows, bytes: this.file.bytes, writer: state };
    if (this.opts.record && this.path && performance.now() - this.recordedAt > RECORD_EVERY_MS) {
      // Only what is on disk may be recorded (a process killed now keeps exactly that): write it out first.
      this.recordedAt = performance.now();
      await this.file.flush().catch((e) => this.fail(e));
      this.check();
      await this.writeRecord(this.last);
    }
  }

  async commit(): Promise<void> {
    this.check();
    let step = this.partial ?? this.name;
    try {
      await this.endMember();
      await this.stoppable(this.file.flush());
      await this.handle.close();
      if (this.path) {
        step = this.path;
        if (this.opts.noClobber) await this.linkIntoPlace(this.path);
        else await rename(partialOf(this.path), this.path);
        this.forget();
        await rm(sidecarOf(this.path), { force: true });
      }
    } catch (e) {
      this.fail(e, step);
    }
    this.check();
  }

  /**
   * `--no-clobber`'s rename: a hard link fails if FILE exists (made since the check before the query), where
   * rename would replace it; FILE.partial then goes.
   */
  private async linkIntoPlace(path: string): Promise<void> {
    try {
      await link(partialOf(path), path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw fileExists(this.name);
      throw e;
    }
    await rm(partialOf(path), { force: true });
  }

  async discard(): Promise<void> {
    this.member?.destroy();
    // A device or pipe gets nothing more: what waits for its reader is dropped.
    if (!this.path) this.handle.abort?.();
    else await this.file.flush().catch(() => {});
    await this.handle.close().catch(() => {});
    // A device is left as it is; a resumed export's FILE.partial was there before it, and stays with its
    // sidecar (which only ever describes bytes already written).
    if (!this.path || this.opts.resume) return;
    await rm(partialOf(this.path), { force: true }).catch(() => {});
    await rm(sidecarOf(this.path), { force: true }).catch(() => {});
    this.forget();
  }

  async suspend(): Promise<number> {
    const keep = this.last;
    if (!this.path || !this.opts.record || keep.rows === 0) {
      await this.discard();
      return 0;
    }
    try {
      if (this.failure) throw this.failure;
      // What is taken reaches the disk; the bytes after the last checkpoint are cut off on resume.
      this.member?.destroy();
      this.member = undefined;
      await this.file.flush();
      const crc = await tailCrc(this.handle as FileHandle, keep.bytes);
      await this.handle.close();
      await this.writeRecord(keep, crc);
      this.forget();
      return keep.rows;
    } catch {
      // A full disk or a failing device: the sidecar already on disk still describes bytes that were
      // written, and is kept with them; without one, nothing can be resumed.
      if (this.recorded > 0) {
        this.member?.destroy();
        await this.handle.close().catch(() => {});
        this.forget();
        return this.recorded;
      }
      await this.discard();
      return 0;
    }
  }

  /** The gzip member being written: its output goes into the file as it comes. */
  private gzipMember(): Gzip {
    if (!this.member) {
      const m = createGzip();
      m.on('error', (e) => this.fail(e));
      m.on('data', (bytes: Buffer) => {
        try {
          this.file.append(bytes);
        } catch (e) {
          this.fail(e);
        }
      });
      this.member = m;
    }
    return this.member;
  }

  private async drained(w: Writable, signal?: AbortSignal): Promise<void> {
    try {
      await once(w, 'drain', { signal });
    } catch (e) {
      if ((e as Error).name === 'AbortError') throw new InterruptedError('interrupted');
      this.fail(e);
    }
  }

  private async endMember(): Promise<void> {
    const m = this.member;
    if (!m) return;
    this.member = undefined;
    const ended = once(m, 'end');
    m.end();
    await ended;
    this.check();
  }

  /** `file`: the file the failure was about (FILE.partial while writing, its sidecar, FILE at the rename). */
  private fail(e: unknown, file = this.partial ?? this.name): void {
    if (this.failure) return;
    this.failure = e as Error;
    this.failedFile = file;
  }

  private failedFile?: string;

  private check(): void {
    const e = this.failure;
    if (e) throw e instanceof DlakeError ? e : fileWriteError(this.failedFile ?? this.name, e);
  }

  /** Writes the sidecar for `at`, whose bytes are written; `crc`, when already taken, of their end. */
  private async writeRecord(at: Checkpoint, crc?: number): Promise<void> {
    const path = this.path!;
    const tmp = `${sidecarOf(path)}.tmp`;
    try {
      const crc32 = crc ?? (await tailCrc(this.handle as FileHandle, at.bytes));
      const record: ResumeRecord = { ...this.opts.record!, gzip: !!this.opts.gzip, ...at, crc32 };
      // Created exclusively (whatever was left there removed first): a link planted there is not written through.
      // Synchronous, a few hundred bytes: an exit (a second signal) then runs its clean-up before or after the
      // whole step, never while a write of the pool's threads would create the file after it was removed, and
      // never between the rename and `recorded`, which says whether FILE.partial is described.
      rmSync(tmp, { force: true });
      writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      renameSync(tmp, sidecarOf(path));
      this.recorded = at.rows;
    } catch (e) {
      rmSync(tmp, { force: true });
      this.fail(e, sidecarOf(path));
      this.check();
    }
  }
}

/** What is removed if the process exits now (process.exit runs 'exit' listeners, synchronously). */
const exitCleanups = new Set<() => void>();
let listening = false;

/** Runs `cleanup` if the process exits before the returned function is called. */
function atExit(cleanup: () => void): () => void {
  if (!listening) {
    listening = true;
    process.on('exit', () => {
      for (const c of exitCleanups) {
        try {
          c();
        } catch {}
      }
    });
  }
  exitCleanups.add(cleanup);
  return () => exitCleanups.delete(cleanup);
}

/** The sidecar of FILE, if there is one that can be read. */
export async function readResumeRecord(file: string): Promise<ResumeRecord | undefined> {
  let text: string;
  try {
    // Checked first: a named pipe or device in its place is refused, never read (docs/cli-contract.md).
    text = readCheckedFile(sidecarOf(file), { maxBytes: USER_FILE_MAX_BYTES, noFollow: true }).toString(
      'utf8',
    );
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new UsageError(`cannot resume from ${sidecarOf(file)}: ${describeFsError(e)}`, {
      hint: `remove ${partialOf(file)} and ${sidecarOf(file)} and export again`,
    });
  }
  let r: Partial<ResumeRecord>;
  try {
    r = JSON.parse(text);
  } catch {
    throw new UsageError(`cannot resume from ${sidecarOf(file)}: it is not valid JSON`, {
      hint: `remove ${partialOf(file)} and ${sidecarOf(file)} and export again`,
    });
  }
  const ok =
    typeof r.jobId === 'string' &&
    typeof r.format === 'string' &&
    typeof r.gzip === 'boolean' &&
    Number.isSafeInteger(r.rows) &&
    Number.isSafeInteger(r.bytes) &&
    Number.isSafeInteger(r.crc32);
  if (!ok)
    throw new UsageError(`cannot resume from ${sidecarOf(file)}: it is not a dlake export record`, {
      hint: `remove ${partialOf(file)} and ${sidecarOf(file)} and export again`,
    });
  return r as ResumeRecord;
}
