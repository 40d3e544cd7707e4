// Bytes on their way into an export file: text is encoded straight into one of two reused 256 KiB buffers, and
// a full buffer is written with FileHandle.write while the other fills. A WriteStream made a new Buffer of
// every page and a system call (or a writev) per page or two: that was a tenth of an export's CPU
// (bench/profile.ts), and the Buffers were external memory that V8 frees only when it collects. Here the memory
// is two buffers whatever the row count, and there is one write per 256 KiB. (Buffers of 1 MiB cost 4 MiB more
// peak RSS at 1M rows than at 10k, and were no faster: docs/benchmarks.md.)
import type { FileHandle } from 'node:fs/promises';

const BUFFER_BYTES = 256 * 1024;

/** Where the bytes go: a file, a device or pipe (written in order, without positions), or a socket. */
export type WriteHandle = Pick<FileHandle, 'write'>;

interface FileWriterOptions {
  /** Where writing starts (the kept bytes of a resumed export). */
  start?: number;
  /** Bytes a buffer holds. */
  size?: number;
  /** Written in order without file positions: a device, a pipe or a socket, which have none. */
  sequential?: boolean;
}

export class FileWriter {
  private current: Buffer;
  private used = 0;
  /** Buffers free to fill again (at most one: the other is current or being written). */
  private spare: Buffer[] = [];
  /** The writes handed to the file, in order; `writing` of them not finished. */
  private chain: Promise<void> = Promise.resolve();
  private writing = 0;
  private failure?: Error;
  /** File offset of the current buffer's first byte. */
  private position: number;
  /** Bytes whose writes have finished: on disk (in the page cache) from `start`. */
  private done: number;
  private readonly size: number;
  private readonly sequential: boolean;

  constructor(
    private readonly handle: WriteHandle,
    opts: FileWriterOptions = {},
  ) {
    this.size = opts.size ?? BUFFER_BYTES;
    this.sequential = opts.sequential ?? false;
    this.current = Buffer.allocUnsafe(this.size);
    this.position = opts.start ?? 0;
    this.done = this.position;
  }

  /** Bytes taken so far, counted from the start of the file (what the file's size will be). */
  get bytes(): number {
    return this.position + this.used;
  }

  /** Bytes known to be written to the file: a sidecar may promise these and no more. */
  get written(): number {
    return this.done;
  }

  /**
   * Takes a chunk (copied or encoded at once: the caller may reuse it). Never waits; `ready()` is the
   * backpressure, so a full buffer is written while the other fills.
   */
  append(chunk: string | Uint8Array): void {
    this.check();
    if (chunk.length === 0) return;
    if (typeof chunk !== 'string') this.appendBytes(chunk);
    // At most 3 bytes a UTF-16 unit: below that it surely fits, without measuring it first.
    else if (chunk.length * 3 <= this.size - this.used || Buffer.byteLength(chunk) <= this.size - this.used)
      this.used += this.current.write(chunk, this.used);
    else this.appendBytes(Buffer.from(chunk));
  }

  /** Resolves once at most one buffer is being written (so there is one to fill). */
  async ready(): Promise<void> {
    if (this.writing > 1) await this.chain;
    this.check();
  }

  /** Everything taken is written. */
  async flush(): Promise<void> {
    this.rotate();
    await this.chain;
    this.check();
  }

  private appendBytes(bytes: Uint8Array): void {
    if (bytes.length <= this.size - this.used) {
      this.current.set(bytes, this.used);
      this.used += bytes.length;
      return;
    }
    // Larger than the room left (a Flight batch, a Parquet row group): copied a buffer at a time, since it is
    // written later and the caller may overwrite its bytes as soon as this returns (file-sink.ts `copies`).
    let from = 0;
    while (from < bytes.length) {
      if (this.used === this.size) this.rotate();
      const n = Math.min(this.size - this.used, bytes.length - from);
      this.current.set(bytes.subarray(from, from + n), this.used);
      this.used += n;
      from += n;
    }
  }

  /** Hands the current buffer to the file and starts filling a free one. */
  private rotate(): void {
    if (this.used === 0) return;
    this.enqueue(this.current.subarray(0, this.used), this.current);
    this.current = this.spare.pop() ?? Buffer.allocUnsafe(this.size);
    this.used = 0;
  }

  /** Writes `bytes` after everything before; `owner`, the buffer they are in, is free again afterwards. */
  private enqueue(bytes: Uint8Array, owner?: Buffer): void {
    const at = this.position;
    this.position += bytes.length;
    this.writing++;
    this.chain = this.chain.then(async () => {
      try {
        if (this.failure) return;
        let off = 0;
        // FileHandle.write may write less than asked (a full disk says so with an error on the next call).
        while (off < bytes.length) {
          const position = this.sequential ? null : at + off;
          const { bytesWritten } = await this.handle.write(bytes, off, bytes.length - off, position);
          off += bytesWritten;
          // Known written as it goes: a pipe whose reader stopped took part of a buffer (its rows count).
          this.done = at + off;
        }
        if (owner && this.spare.length === 0) this.spare.push(owner);
      } catch (e) {
        this.failure ??= e as Error;
      } finally {
        this.writing--;
      }
    });
  }

  private check(): void {
    if (this.failure) throw this.failure;
  }
}
