// The SQL shell's history: one statement a line in `sql_history` in the config folder (mode 0600, the folder
// 0700, whatever the umask), newest last. A statement that may hold a secret is never recorded. The file is
// dlake's own: only a regular file is read or written, never through a symbolic link, never a named pipe or a
// device (docs/cli-contract.md "Files dlake reads and writes").
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { describeFsError, kindOfFile, readCheckedFile } from '../util/files.js';
import { mayHoldSecret } from './history-filter.js';

export const HISTORY_FILE = 'sql_history';
/** Entries kept, in the file and in the session. */
export const HISTORY_SIZE = 1000;
/** Bytes of the file read at start, from its end: the newest entries (a longer file is trimmed on load). */
const HISTORY_READ_BYTES = 4 * 1024 * 1024;

export class History {
  private readonly file: string;
  private warned = false;
  /** The file is not one dlake may use (a link, a pipe, a device): nothing is read from it or written to it. */
  private refused = false;

  /** `warn` is told once when the history cannot be read or written (the shell goes on without it). */
  constructor(
    private readonly dir: string,
    private readonly warn: (message: string) => void = () => {},
  ) {
    this.file = join(dir, HISTORY_FILE);
  }

  /** The entries, newest first (readline's order). A missing or unreadable file is an empty history. */
  load(): string[] {
    let text: string;
    let whole: boolean;
    try {
      const bytes = readCheckedFile(this.file, { maxBytes: HISTORY_READ_BYTES, tail: true, noFollow: true });
      whole = bytes.length < HISTORY_READ_BYTES;
      text = bytes.toString('utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        // A symbolic link, a named pipe or a device in its place is left alone, and never written through.
        if (code === 'ENOTREG' || code === 'ELOOP') this.refused = true;
        this.warnOnce(`not reading the SQL history ${this.file}: ${describeFsError(e)}`);
      }
      return [];
    }
    let lines = text.split('\n');
    // A tail that starts inside a line: that line is not whole.
    if (!whole) lines.shift();
    lines = lines.filter(Boolean);
    if (lines.length > HISTORY_SIZE || !whole) {
      lines = lines.slice(-HISTORY_SIZE);
      this.write(`${lines.join('\n')}\n`, false);
    }
    return lines.reverse();
  }

  /** Appends one entry (a single line); false when it was left out because it may hold a secret. */
  add(entry: string): boolean {
    if (mayHoldSecret(entry)) return false;
    this.write(`${entry.replace(/[\r\n]+/g, ' ')}\n`, true);
    return true;
  }

  /**
   * Appends `text`, or replaces the file with it: opened without following a link (O_NOFOLLOW) and without
   * blocking (O_NONBLOCK), checked to be a regular file before a byte is written; a replacement is written to a
   * new file (created exclusively) and renamed over the history, which replaces a link, never its target.
   */
  private write(text: string, append: boolean): void {
    if (this.refused) return;
    const { O_WRONLY, O_APPEND, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = constants;
    const temporary = `${this.file}.${process.pid}.tmp`;
    const target = append ? this.file : temporary;
    let fd: number | undefined;
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      if ((statSync(this.dir).mode & 0o777) !== 0o700) chmodSync(this.dir, 0o700);
      const flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | (append ? O_APPEND : O_EXCL);
      fd = openSync(target, flags, 0o600);
      const info = fstatSync(fd);
      if (!info.isFile()) {
        this.refused = true;
        throw new Error(`it is ${kindOfFile(info)}, not a regular file`);
      }
      // The mode given to open applies only when the file is created.
      fchmodSync(fd, 0o600);
      const bytes = Buffer.from(text);
      for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off);
      closeSync(fd);
      fd = undefined;
      if (!append) renameSync(temporary, this.file);
    } catch (e) {
      if (fd !== undefined) closeSync(fd);
      if (!append) rmSync(temporary, { force: true });
      if ((e as NodeJS.ErrnoException).code === 'ELOOP') this.refused = true;
      // History is a convenience: a read-only config folder must not stop the shell.
      this.warnOnce(`cannot keep the SQL history in ${this.file}: ${describeFsError(e)}`);
    }
  }

  private warnOnce(message: string): void {
    if (this.warned) return;
    this.warned = true;
    this.warn(message);
  }
}
