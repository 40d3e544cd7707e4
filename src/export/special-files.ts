// What `--out FILE` names, and the files that are not regular ones: a device, a named pipe or a socket is written
// into as it is (`/dev/null`, `/dev/stdout`, a FIFO a reader waits on), never replaced; a regular file (or none
// yet) is written the safe way by file-sink.ts. `--out` never replaces what is not a regular file, and a symbolic
// link stays: the file it points to is written (docs/cli-contract.md "Jobs, results and export").
import { once } from 'node:events';
import { close as closeFd, constants, open as openFd, write as writeFd } from 'node:fs';
import { access, type FileHandle, readlink, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { InterruptedError, UsageError } from '../errors.js';
import { fileWriteError, kindOfFile } from '../util/files.js';
import type { WriteHandle } from './file-writer.js';

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
export function fileExists(file: string): UsageError {
  return new UsageError(`${file} exists, and --no-clobber keeps it`, {
    hint: 'choose another --out, or remove it first',
  });
}

/** `--resume` into a device or pipe: nothing of an earlier export was kept there to continue. */
export function cannotResumeInto(file: string, what: string): UsageError {
  return new UsageError(
    `cannot resume into ${file}: it is ${what}, written into as it is, with no ${file}.partial to continue`,
    { hint: 'export again without --resume' },
  );
}

export type SpecialHandle = WriteHandle &
  Pick<FileHandle, 'close'> &
  Partial<Pick<FileHandle, 'read'>> & {
    /** Drops what is not yet written (a reader that stopped reading must not hold up a stop). */
    abort?: () => void;
    /** A pipe or socket, whose write is known taken only whole (a device's says what it took). */
    stream?: boolean;
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
export async function openSpecial(
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
    stream: true,
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
