// File errors said in words ("no such file or folder", not ENOENT), and the one way dlake reads a file: checked
// first (a regular file, never a named pipe or a device, which could block or never end), opened without
// blocking, read with a bound (docs/cli-contract.md "Files dlake reads and writes").
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  type Stats,
  statSync,
} from 'node:fs';
import { LocalIOError, UsageError } from '../errors.js';

/** What a file-system error means, in words; the system's own message for anything unusual. */
export function describeFsError(e: unknown): string {
  switch ((e as NodeJS.ErrnoException)?.code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOENT':
      return 'no such file or folder';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'EDQUOT':
      return 'disk quota exceeded';
    case 'EROFS':
      return 'read-only file system';
    case 'EISDIR':
      return 'it is a folder, not a file';
    case 'ENOTDIR':
      return 'a part of the path is not a folder';
    case 'ELOOP':
      return 'too many symbolic links';
    case 'ENAMETOOLONG':
      return 'the name is too long';
    case 'EMFILE':
    case 'ENFILE':
      return 'too many open files';
    case 'EPIPE':
      return 'the reader closed the pipe';
    case 'EIO':
      return 'input/output error on the device';
    case 'EFBIG':
      return 'the file is too large for the file system';
    case 'ENXIO':
      return 'no device or reader behind it';
    default:
      return (e as Error)?.message ?? String(e);
  }
}

/**
 * The error for a file dlake could not write (or create, or rename into place): one line naming the file and
 * the cause, exit 9 (docs/cli-contract.md "Exit codes"). `file` is how the user knows it (a path, or
 * "standard output").
 */
export function fileWriteError(file: string, e: unknown): LocalIOError {
  return new LocalIOError(`cannot write ${file}: ${describeFsError(e)}`, { cause: e });
}

/** The UsageError for a file that could not be read: `cannot read the CA file ca.pem: no such file or folder`. */
function fileReadError(file: string, e: unknown, what = ''): UsageError {
  // A pipe given by name (`-f /dev/stdin`, `-f <(…)`) is refused as every pipe is; standard input is `-`.
  const pipe = e instanceof UncheckedFileError && e.pipe;
  return new UsageError(`cannot read ${what ? `${what} ` : ''}${file}: ${describeFsError(e)}`, {
    cause: e,
    ...(pipe
      ? {
          hint: 'dlake reads only regular files by name; where the command takes -, that reads standard input',
        }
      : {}),
  });
}

const MIB = 1024 * 1024;
/** The bound on a file the user names (a script, a definition, a JSON body): larger is refused. */
export const USER_FILE_MAX_BYTES = 64 * MIB;
/** The bound on a CA bundle (`--ca-file`, DLAKE_CA_FILE): the system's whole bundle is well under 1 MiB. */
const CA_FILE_MAX_BYTES = 8 * MIB;

/** What a file that is not a regular one is, in words. */
export function kindOfFile(info: Stats): string {
  if (info.isDirectory()) return 'a folder';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isFIFO()) return 'a named pipe';
  if (info.isSocket()) return 'a socket';
  if (info.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** A file refused before a byte of it was read; its message is the reason, in words (describeFsError). */
class UncheckedFileError extends Error {
  constructor(
    message: string,
    readonly code: string,
    /** What was refused is a pipe (a named one, or one given by name as /dev/stdin is). */
    readonly pipe = false,
  ) {
    super(message);
  }
}

interface CheckedRead {
  /** Bytes read at most: a larger file is refused, or with `tail` only its last `maxBytes` are read. */
  maxBytes: number;
  /** Read the end of a larger file instead of refusing it (a history keeps its newest lines). */
  tail?: boolean;
  /**
   * Refuse a symbolic link (the last part of the path): for dlake's own files, which it never follows out of
   * its folders. A file the user names may be a link.
   */
  noFollow?: boolean;
}

/**
 * The bytes of a regular file, checked before they are read: a named pipe, a device, a socket or a folder is
 * refused before it is opened (and again on the open descriptor, should the path change in between), the open
 * never blocks (O_NONBLOCK: a named pipe with no writer would wait in open(), uninterruptibly), and at most
 * `maxBytes` are read (a device that reads without end, a file that grows). Throws an Error with a `code`
 * that describeFsError says in words.
 */
export function readCheckedFile(file: string, opts: CheckedRead): Buffer {
  const refuse = (info: Stats) =>
    new UncheckedFileError(
      info.isDirectory() ? 'it is a folder, not a file' : `it is ${kindOfFile(info)}, not a regular file`,
      'ENOTREG',
      info.isFIFO(),
    );
  const before = opts.noFollow ? lstatSync(file) : statSync(file);
  if (!before.isFile()) throw refuse(before);
  const { O_RDONLY, O_NONBLOCK, O_NOCTTY, O_NOFOLLOW } = constants;
  const fd = openSync(file, O_RDONLY | O_NONBLOCK | O_NOCTTY | (opts.noFollow ? O_NOFOLLOW : 0));
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw refuse(info);
    const tooLarge = () =>
      new UncheckedFileError(
        `it is larger than ${opts.maxBytes / MIB} MiB, more than such a file can be`,
        'ETOOLARGE',
      );
    if (info.size > opts.maxBytes && !opts.tail) throw tooLarge();
    // One byte more than the bound says that the file grew past it while being read.
    const limit = opts.tail ? opts.maxBytes : opts.maxBytes + 1;
    let position = opts.tail ? Math.max(0, info.size - opts.maxBytes) : 0;
    const chunks: Buffer[] = [];
    let got = 0;
    while (got < limit) {
      // The size said, or 64 KiB at a time where it says nothing (a file of /proc).
      const chunk = Buffer.allocUnsafe(Math.min(limit - got, Math.max(64 * 1024, info.size - position)));
      const n = readSync(fd, chunk, 0, chunk.length, position);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      got += n;
      position += n;
    }
    if (got > opts.maxBytes) throw tooLarge();
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  } finally {
    closeSync(fd);
  }
}

/**
 * A text file the user named (UTF-8, at most `maxBytes`), or the UsageError that says in words why it cannot
 * be read (exit 2): `cannot read the CA file ca.pem: it is a named pipe, not a regular file`.
 */
export function readTextFile(file: string, what = '', maxBytes = USER_FILE_MAX_BYTES): string {
  try {
    return readCheckedFile(file, { maxBytes }).toString('utf8');
  } catch (e) {
    throw fileReadError(file, e, what);
  }
}

/** The PEM text of `--ca-file` / DLAKE_CA_FILE, for HTTPS and Flight alike: a regular file of at most 8 MiB. */
export function readCaFile(file: string): string {
  return readTextFile(file, 'the CA file', CA_FILE_MAX_BYTES);
}
