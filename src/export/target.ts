// Where an export goes: a file, written as `FILE.partial` and renamed on success (so a FILE that exists is
// always complete), a device, pipe or socket written into as it is, or standard output. Writes wait for the
// stream to drain: that backpressure is what stops the page fetching from running ahead of the disk. An export
// that stops on a failure or Ctrl-C may keep FILE.partial with a sidecar FILE.partial.json (job, format, rows,
// bytes and their CRC-32) for --resume. `--out` never replaces what is not a regular file, and a symbolic link
// stays: the file it points to is written (docs/cli-contract.md "Jobs, results and export").
import { once } from 'node:events';
import {
  close as closeFd,
  constants,
  open as openFd,
  renameSync,
  rmSync,
  write as writeFd,
  writeFileSync,
} from 'node:fs';
import { access, type FileHandle, link, open, readlink, rename, rm, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import type { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { crc32, createGzip, type Gzip } from 'node:zlib';
import { DlakeError, InterruptedError, UsageError } from '../errors.js';
import {
  describeFsError,
  fileWriteError,
  kindOfFile,
  readCheckedFile,
  USER_FILE_MAX_BYTES,
} from '../util/files.js';
import { FileWriter, type WriteHandle } from './file-writer.js';

/**
 * Where the delivery pipeline (deliver.ts) puts bytes: a file, standard output, a capped buffer in memory.
 *
 * Ownership: a chunk handed to a sink belongs to the sink from then on. No producer reuses, overwrites or
 * returns to a pool a buffer it has handed over; a producer that fills buffers takes a new one for the next
 * piece. (A sink may keep a chunk and write it later: a file writer that held a large chunk by reference
 * while its producer refilled the buffer wrote a wrong file of the right size.)
 */
export interface Sink {
  /** How messages name it: the file, or "standard output". */
  readonly name: string;
  readonly isFile: boolean;
  /** Where a kept FILE.partial is (undefined for standard output, a device, a pipe or a socket). */
  readonly partial?: string;
  /** It continues an earlier export's FILE.partial, which a failure must never remove. */
  readonly resumed: boolean;
  /** Resolves once the sink can take more; `chunk` is the sink's from the call on (see above). */
  write(chunk: string | Uint8Array, signal?: AbortSignal): Promise<void>;
  /**
   * Everything written so far holds `rows` complete rows: a point a resumed export may restart from, with
   * what the formatter needs besides the bytes (`state`, Parquet's row groups). A gzipped file closes its
   * gzip member here (every MEMBER_ROWS rows) so the bytes before it stand alone.
   */
  checkpoint(rows: number, state?: unknown): Promise<void>;
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

/**
 * What a stream (standard output, a gzip member) may keep until it has used it: bytes copied, since the
 * caller may reuse its buffer once `write` resolves (strings cannot change).
 */
const ownCopy = (chunk: string | Uint8Array): string | Uint8Array =>
  typeof chunk === 'string' ? chunk : Buffer.from(chunk);

/** Raised when standard output is closed by its reader (`| head`): the export stops without an error. */
export class OutputClosedError extends Error {}

/**
 * What `--out FILE` names. A regular file (or none yet) is written the safe way, as `path` (FILE itself, or
 * the file its symbolic links lead to) through `path.partial`; a device, a named pipe or a socket that exists
 * is written into as it is (`/dev/null`, `/dev/stdout`, a FIFO a reader waits on), never replaced.
 */
type OutPath = { kind: 'file'; path: string } | { kind: 'special'; path: string; what: string };

export async function resolveOut(file: string): Promise<OutPath> {
  // stat follows every link: `/dev/stdout` is whatever standard output is.
  const info = await stat(file).catch(() => undefined);
  if (info && !info.isFile() && !info.isDirectory())
    return { kind: 'special', path: file, what: kindOfFile(info) };
  return { kind: 'file', path: await followLinks(file) };
}

/** The file FILE's symbolic links lead to, whether it exists or not (the link itself is never replaced). */
async function followLinks(file: string): Promise<string> {
  let path = file;
  // The kernel's own bound on a chain of links (ELOOP is then reported when the file is opened).
  for (let hops = 0; hops < 40; hops++) {
    const link = await readlink(path).catch(() => undefined);
    if (link === undefined) return path;
    path = isAbsolute(link) ? link : join(dirname(path), link);
  }
  return path;
}

/**
 * Said before any request is made: a path that cannot be a file (a folder, a missing folder, below a file) is
 * a usage error (exit 2); a folder the file system will not let dlake write in (permission, read-only) is a
 * local I/O failure (exit 9), as it would be later. With `noClobber`, a file that exists is a usage error too
 * (the final rename checks again: a file made meanwhile is never replaced either).
 */
export async function checkWritable(file: string, opts: { noClobber?: boolean } = {}): Promise<void> {
  const out = await resolveOut(file);
  // A device or pipe is written into as it is: opening it says whether it can be.
  if (out.kind === 'special') return;
  const path = out.path;
  const info = await stat(path).catch(() => undefined);
  if (info?.isDirectory()) throw new UsageError(`cannot write ${file}: it is a folder, not a file`);
  if (info && opts.noClobber) throw fileExists(file);
  const dir = await stat(dirname(path)).catch(() => undefined);
  if (!dir) throw new UsageError(`cannot write ${file}: the folder ${dirname(path)} does not exist`);
  if (!dir.isDirectory()) throw new UsageError(`cannot write ${file}: ${dirname(path)} is not a folder`);
  try {
    await access(dirname(path), constants.W_OK);
  } catch (e) {
    throw fileWriteError(file, e);
  }
}

/** `--no-clobber` and a FILE that exists: exit 2, before the query runs or instead of the final rename. */
function fileExists(file: string): UsageError {
  return new UsageError(`${file} exists, and --no-clobber keeps it`, {
    hint: 'choose another --out, or remove it first',
  });
}

export const partialOf = (file: string): string => `${file}.partial`;
export const sidecarOf = (file: string): string => `${file}.partial.json`;

interface FileTargetOptions {
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

/** `--resume` into a device or pipe: nothing of an earlier export was kept there to continue. */
export function cannotResumeInto(file: string, what: string): UsageError {
  return new UsageError(
    `cannot resume into ${file}: it is ${what}, written into as it is, with no ${file}.partial to continue`,
    { hint: 'export again without --resume' },
  );
}

type SpecialHandle = WriteHandle &
  Pick<FileHandle, 'close'> &
  Partial<Pick<FileHandle, 'read'>> & {
    /** Drops what is not yet written (a reader that stopped reading must not hold up a stop). */
    abort?: () => void;
  };

/** How often a named pipe with no reader is tried again, and a device that is not ready written again. */
const NOT_READY_RETRY_MS = 50;
const openDescriptor = promisify(openFd);

/**
 * A device or named pipe opened for writing as `>` would (no O_CREAT, no O_TRUNC: nothing is created or
 * replaced), a socket connected to. Nothing here ever blocks in a system call: a blocked open() or write() waits
 * in a thread of libuv's pool, where no signal reaches it and which the process waits for as it exits (a
 * named pipe without a reader made SIGTERM print its line and dlake never end). So the open is O_NONBLOCK: a
 * named pipe with no reader yet fails with ENXIO and is tried again every NOT_READY_RETRY_MS until one comes or
 * `signal` ends the wait (InterruptedError, the signal's exit code). A named pipe is then written as a stream
 * of the event loop (as a piped standard output is); a device's write that would block (EAGAIN) is tried again.
 */
async function openSpecial(
  out: OutPath & { kind: 'special' },
  signal?: AbortSignal,
  onWait?: () => void,
): Promise<SpecialHandle> {
  if (out.what === 'a socket') return connectSocket(out.path);
  const { O_WRONLY, O_NONBLOCK, O_NOCTTY } = constants;
  let fd: number;
  for (;;) {
    if (signal?.aborted) throw waitInterrupted(out.path);
    try {
      fd = await openDescriptor(out.path, O_WRONLY | O_NONBLOCK | O_NOCTTY);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENXIO' || out.what !== 'a named pipe') throw e;
      onWait?.();
      onWait = undefined;
      await sleep(NOT_READY_RETRY_MS, undefined, { signal }).catch(() => {});
    }
  }
  if (out.what === 'a named pipe') {
    const { Socket } = await import('node:net');
    return streamHandle(new Socket({ fd, readable: false, writable: true }));
  }
  return deviceHandle(fd);
}

function waitInterrupted(path: string): InterruptedError {
  return new InterruptedError(`interrupted while waiting for a reader of the named pipe ${path}`);
}

/** A device opened without blocking: a write it cannot take yet (EAGAIN) is tried again, never waited on. */
function deviceHandle(fd: number): SpecialHandle {
  let closed = false;
  const writeOnce = (buffer: Uint8Array, offset: number, length: number) =>
    new Promise<{ bytesWritten: number; buffer: Uint8Array }>((resolve, reject) =>
      writeFd(fd, buffer, offset, length, null, (e, bytesWritten) =>
        e ? reject(e) : resolve({ bytesWritten, buffer }),
      ),
    );
  return {
    write: (async (buffer: Uint8Array, offset: number, length: number) => {
      for (;;) {
        try {
          return await writeOnce(buffer, offset, length);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EAGAIN' || closed) throw e;
          await sleep(NOT_READY_RETRY_MS);
        }
      }
    }) as WriteHandle['write'],
    close: () => {
      closed = true;
      return promisify(closeFd)(fd);
    },
  };
}

/** A socket connected to, and written into. */
async function connectSocket(path: string): Promise<SpecialHandle> {
  const { createConnection } = await import('node:net');
  const socket = createConnection({ path });
  await once(socket, 'connect');
  return streamHandle(socket);
}

/** A stream of the event loop (a socket, or a named pipe's descriptor) as a handle FileWriter writes to. */
function streamHandle(socket: import('node:net').Socket): SpecialHandle {
  let failure: Error | undefined;
  socket.on('error', (e) => {
    failure ??= e;
  });
  return {
    // The caller reuses the buffer once this resolves: the socket's callback says it has been handed on.
    write: ((buffer: Uint8Array, offset: number, length: number) =>
      new Promise((resolve, reject) => {
        if (failure) return reject(failure);
        const bytes = buffer.subarray(offset, offset + length);
        socket.write(bytes, (e) => (e ? reject(e) : resolve({ bytesWritten: length, buffer })));
      })) as WriteHandle['write'],
    abort: () => socket.destroy(),
    close: () =>
      new Promise<void>((resolve) => {
        if (socket.destroyed) return resolve();
        socket.end(() => resolve());
        socket.once('error', () => resolve());
      }),
  };
}

/** The names of a process's own standard output. */
const OWN_STDOUT = new Set(['/dev/stdout', '/dev/fd/1', '/proc/self/fd/1']);

/**
 * Whether `--out` names dlake's own standard output (`-`, `/dev/stdout`, whatever it is: a pipe, a socket, a
 * file the shell opened): written as `-` is, as a shell does for `>/dev/stdout`, rather than opened again by
 * name (a socket cannot be).
 */
export const isStdout = (out: string): boolean => out === '-' || OWN_STDOUT.has(out);

/** The sink `--out` names: standard output, or a file (the one place an export file is opened). */
export function openSink(out: string, stdout: Writable, opts: FileTargetOptions = {}): Promise<Sink> {
  return isStdout(out) ? Promise.resolve(stdoutSink(stdout)) : openFileSink(out, opts);
}

export function stdoutSink(stdout: Writable): Sink {
  return new StreamTarget('standard output', stdout);
}

class StreamTarget implements Sink {
  readonly isFile: boolean;
  readonly resumed = false;
  protected failure?: Error;

  constructor(
    readonly name: string,
    protected readonly stream: Writable,
  ) {
    this.isFile = name !== 'standard output';
    // Errors may surface between writes; the next write or the commit reports them.
    stream.on('error', (e) => {
      this.failure ??= e;
    });
  }

  async write(chunk: string | Uint8Array, signal?: AbortSignal): Promise<void> {
    this.check();
    if (chunk.length === 0) return;
    if (this.into().write(ownCopy(chunk))) return;
    await this.drained(this.into(), signal);
  }

  async checkpoint(_rows: number, _state?: unknown): Promise<void> {}

  async commit(): Promise<void> {
    this.check();
  }

  async discard(): Promise<void> {}

  async suspend(): Promise<number> {
    await this.discard();
    return 0;
  }

  /** Where writes go: the stream itself, or a gzip member in front of it. */
  protected into(): Writable {
    return this.stream;
  }

  protected async drained(w: Writable, signal?: AbortSignal): Promise<void> {
    try {
      await once(w, 'drain', { signal });
    } catch (e) {
      if ((e as Error).name === 'AbortError') throw new InterruptedError('interrupted');
      this.failure ??= e as Error;
    }
    this.check();
  }

  protected check(): void {
    const e = this.failure;
    if (!e) return;
    if (!this.isFile && (e as NodeJS.ErrnoException).code === 'EPIPE') throw new OutputClosedError();
    throw fileWriteError(this.name, e);
  }
}

class FileTarget implements Sink {
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
