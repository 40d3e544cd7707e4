// Where an export goes: a file, written as `FILE.partial` and renamed on success (so a FILE that exists is
// always complete), or standard output. Writes wait for the stream to drain: that backpressure is what
// stops the page fetching from running ahead of the disk.
import { once } from 'node:events';
import { constants } from 'node:fs';
import { access, type FileHandle, open, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { DlakeError, InterruptedError, UsageError } from '../errors.js';
import { describeFsError } from '../util/files.js';

export interface Target {
  /** How messages name it: the file, or "standard output". */
  readonly name: string;
  readonly isFile: boolean;
  /** Resolves once the stream can take more. */
  write(text: string, signal?: AbortSignal): Promise<void>;
  /** Everything written: flush, close and (for a file) rename into place. */
  commit(): Promise<void>;
  /** Give up: nothing is left behind (the partial file is removed). Never throws. */
  discard(): Promise<void>;
}

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

export async function openFileTarget(file: string): Promise<Target> {
  await checkWritable(file);
  const partial = `${file}.partial`;
  let handle: FileHandle;
  try {
    handle = await open(partial, 'w', 0o666);
  } catch (e) {
    throw new UsageError(`cannot write ${partial}: ${describeFsError(e)}`, { cause: e });
  }
  const stream = handle.createWriteStream({ highWaterMark: 256 * 1024 });
  return new StreamTarget(file, stream, {
    commit: async () => {
      stream.end();
      await finished(stream);
      await rename(partial, file);
    },
    discard: async () => {
      stream.destroy();
      await finished(stream).catch(() => {});
      await rm(partial, { force: true }).catch(() => {});
    },
  });
}

export function stdoutTarget(stdout: Writable): Target {
  return new StreamTarget('standard output', stdout, { commit: async () => {}, discard: async () => {} });
}

class StreamTarget implements Target {
  readonly isFile: boolean;
  private failure?: Error;

  constructor(
    readonly name: string,
    private readonly stream: Writable,
    private readonly end: { commit(): Promise<void>; discard(): Promise<void> },
  ) {
    this.isFile = name !== 'standard output';
    // Errors may surface between writes; the next write or the commit reports them.
    stream.on('error', (e) => {
      this.failure ??= e;
    });
  }

  async write(text: string, signal?: AbortSignal): Promise<void> {
    this.check();
    if (text === '') return;
    if (this.stream.write(text)) return;
    try {
      await once(this.stream, 'drain', { signal });
    } catch (e) {
      if ((e as Error).name === 'AbortError') throw new InterruptedError('interrupted');
      this.failure ??= e as Error;
    }
    this.check();
  }

  async commit(): Promise<void> {
    this.check();
    try {
      await this.end.commit();
    } catch (e) {
      this.failure ??= e as Error;
    }
    this.check();
  }

  discard(): Promise<void> {
    return this.end.discard();
  }

  private check(): void {
    const e = this.failure;
    if (!e) return;
    if (!this.isFile && (e as NodeJS.ErrnoException).code === 'EPIPE') throw new OutputClosedError();
    throw new DlakeError(`cannot write ${this.name}: ${describeFsError(e)}`, { cause: e });
  }
}
