// Where an export goes: a file, written as `FILE.partial` and renamed on success (so a FILE that exists is
// always complete), or standard output. Writes wait for the stream to drain: that backpressure is what
// stops the page fetching from running ahead of the disk. An export that stops on a failure or Ctrl-C may
// keep FILE.partial with a sidecar FILE.partial.json (job, format, rows and bytes complete) for --resume.
import { once } from 'node:events';
import { constants } from 'node:fs';
import { access, type FileHandle, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Writable } from 'node:stream';
import { createGzip, type Gzip } from 'node:zlib';
import { DlakeError, InterruptedError, UsageError } from '../errors.js';
import { describeFsError } from '../util/files.js';
import { FileWriter } from './file-writer.js';

export interface Target {
  /** How messages name it: the file, or "standard output". */
  readonly name: string;
  readonly isFile: boolean;
  /** Resolves once the stream can take more; `chunk` is copied (its buffer may be reused after). */
  write(chunk: string | Uint8Array, signal?: AbortSignal): Promise<void>;
  /**
   * Everything written so far holds `rows` complete rows: a point a resumed export may restart from, with
   * what the formatter needs besides the bytes (`state`, Parquet's row groups). A gzipped file closes its
   * gzip member here (every MEMBER_ROWS rows) so the bytes before it stand alone.
   */
  checkpoint(rows: number, state?: unknown): Promise<void>;
  /** Everything written: flush, close and (for a file) rename into place. */
  commit(): Promise<void>;
  /** Give up: nothing is left behind (the partial file is removed). Never throws. */
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
  /** Parquet: the metadata of the row groups in those bytes, which the footer will list. */
  writer?: unknown;
}

type Checkpoint = Pick<ResumeRecord, 'rows' | 'bytes' | 'writer'>;

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

/** A file that cannot be written is a usage error (exit 2), said before any request is made. */
export async function checkWritable(file: string): Promise<void> {
  const info = await stat(file).catch(() => undefined);
  if (info?.isDirectory()) throw new UsageError(`cannot write ${file}: it is a folder, not a file`);
  const dir = await stat(dirname(file)).catch(() => undefined);
  if (!dir) throw new UsageError(`cannot write ${file}: the folder ${dirname(file)} does not exist`);
  if (!dir.isDirectory()) throw new UsageError(`cannot write ${file}: ${dirname(file)} is not a folder`);
  try {
    await access(dirname(file), constants.W_OK);
  } catch (e) {
    throw new UsageError(`cannot write ${file}: ${describeFsError(e)}`, { cause: e });
  }
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
}

export async function openFileTarget(file: string, opts: FileTargetOptions = {}): Promise<Target> {
  await checkWritable(file);
  const partial = partialOf(file);
  let handle: FileHandle;
  try {
    handle = await open(partial, opts.resume ? 'r+' : 'w', 0o666);
    // Whatever follows the last checkpoint is a row cut in half: it goes.
    if (opts.resume) await handle.truncate(opts.resume.bytes);
  } catch (e) {
    throw new UsageError(`cannot write ${partial}: ${describeFsError(e)}`, { cause: e });
  }
  return new FileTarget(file, handle, opts);
}

export function stdoutTarget(stdout: Writable): Target {
  return new StreamTarget('standard output', stdout);
}

class StreamTarget implements Target {
  readonly isFile: boolean;
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
    throw new DlakeError(`cannot write ${this.name}: ${describeFsError(e)}`, { cause: e });
  }
}

class FileTarget implements Target {
  readonly isFile = true;
  private readonly file: FileWriter;
  private member?: Gzip;
  private failure?: Error;
  /** Rows at the start of the current gzip member. */
  private memberStart: number;
  /** The last checkpoint. */
  private last: Checkpoint;
  private recordedAt = Number.NEGATIVE_INFINITY;

  constructor(
    readonly name: string,
    private readonly handle: FileHandle,
    private readonly opts: FileTargetOptions,
  ) {
    this.file = new FileWriter(handle, opts.resume?.bytes ?? 0);
    this.memberStart = opts.resume?.rows ?? 0;
    this.last = { rows: this.memberStart, bytes: this.file.bytes, writer: opts.resume?.writer };
  }

  async write(chunk: string | Uint8Array, signal?: AbortSignal): Promise<void> {
    this.check();
    if (chunk.length === 0) return;
    if (this.opts.gzip) {
      const member = this.gzipMember();
      if (!member.write(ownCopy(chunk))) await this.drained(member, signal);
    } else this.file.append(chunk);
    await this.file.ready().catch((e) => this.fail(e));
    this.check();
  }

  async checkpoint(rows: number, state?: unknown): Promise<void> {
    if (this.opts.gzip) {
      if (rows - this.memberStart < MEMBER_ROWS) return;
      await this.endMember();
      this.memberStart = rows;
    }
    this.last = { rows, bytes: this.file.bytes, writer: state };
    if (this.opts.record && performance.now() - this.recordedAt > RECORD_EVERY_MS) {
      // Only what is on disk may be recorded (a process killed now keeps exactly that): write it out first.
      this.recordedAt = performance.now();
      await this.file.flush().catch((e) => this.fail(e));
      this.check();
      await this.writeRecord(this.last);
    }
  }

  async commit(): Promise<void> {
    this.check();
    try {
      await this.endMember();
      await this.file.flush();
      await this.handle.close();
      await rename(partialOf(this.name), this.name);
      await rm(sidecarOf(this.name), { force: true });
    } catch (e) {
      this.fail(e);
    }
    this.check();
  }

  async discard(): Promise<void> {
    this.member?.destroy();
    await this.file.flush().catch(() => {});
    await this.handle.close().catch(() => {});
    await rm(partialOf(this.name), { force: true }).catch(() => {});
    await rm(sidecarOf(this.name), { force: true }).catch(() => {});
  }

  async suspend(): Promise<number> {
    const keep = this.last;
    if (!this.opts.record || keep.rows === 0 || this.failure) {
      await this.discard();
      return 0;
    }
    try {
      // What is taken reaches the disk; the bytes after the last checkpoint are cut off on resume.
      this.member?.destroy();
      this.member = undefined;
      await this.file.flush();
      await this.handle.close();
      await this.writeRecord(keep);
      return keep.rows;
    } catch {
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

  private fail(e: unknown): void {
    this.failure ??= e as Error;
  }

  private check(): void {
    const e = this.failure;
    if (e) throw new DlakeError(`cannot write ${this.name}: ${describeFsError(e)}`, { cause: e });
  }

  private async writeRecord(at: Checkpoint): Promise<void> {
    const record: ResumeRecord = { ...this.opts.record!, gzip: !!this.opts.gzip, ...at };
    const tmp = `${sidecarOf(this.name)}.tmp`;
    await writeFile(tmp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
    await rename(tmp, sidecarOf(this.name));
  }
}

/** The sidecar of FILE, if there is one that can be read. */
export async function readResumeRecord(file: string): Promise<ResumeRecord | undefined> {
  const text = await readFile(sidecarOf(file), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
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
    Number.isSafeInteger(r.bytes);
  if (!ok)
    throw new UsageError(`cannot resume from ${sidecarOf(file)}: it is not a dlake export record`, {
      hint: `remove ${partialOf(file)} and ${sidecarOf(file)} and export again`,
    });
  return r as ResumeRecord;
}
