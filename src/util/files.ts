// File errors said in words ("no such file or folder", not ENOENT), and the one way commands read a file
// the user named: a failure is one UsageError naming the file and what went wrong.
import { readFileSync } from 'node:fs';
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
  return new UsageError(`cannot read ${what ? `${what} ` : ''}${file}: ${describeFsError(e)}`, { cause: e });
}

/** A text file the user named (UTF-8), or the UsageError that says in words why it cannot be read. */
export function readTextFile(file: string, what = ''): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw fileReadError(file, e, what);
  }
}
