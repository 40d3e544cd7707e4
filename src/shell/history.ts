// The SQL shell's history: one statement a line in `sql_history` in the config folder (mode 0600, the folder
// 0700, whatever the umask), newest last. A statement that may hold a secret is never recorded.
import { appendFileSync, chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mayHoldSecret } from './history-filter.js';

export const HISTORY_FILE = 'sql_history';
/** Entries kept, in the file and in the session. */
export const HISTORY_SIZE = 1000;

export class History {
  private readonly file: string;
  private warned = false;

  /** `warn` is told once when the history cannot be written (the shell goes on without it). */
  constructor(
    private readonly dir: string,
    private readonly warn: (message: string) => void = () => {},
  ) {
    this.file = join(dir, HISTORY_FILE);
  }

  /** The entries, newest first (readline's order). A missing or unreadable file is an empty history. */
  load(): string[] {
    let lines: string[];
    try {
      lines = readFileSync(this.file, 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
    if (lines.length > HISTORY_SIZE) {
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

  private write(text: string, append: boolean): void {
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      if ((statSync(this.dir).mode & 0o777) !== 0o700) chmodSync(this.dir, 0o700);
      if (append) appendFileSync(this.file, text, { mode: 0o600 });
      else writeFileSync(this.file, text, { mode: 0o600 });
      // The mode option applies only when the file is created.
      chmodSync(this.file, 0o600);
    } catch (e) {
      // History is a convenience: a read-only config folder must not stop the shell.
      if (!this.warned) {
        this.warned = true;
        this.warn(
          `cannot keep the SQL history in ${this.file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
        );
      }
    }
  }
}
