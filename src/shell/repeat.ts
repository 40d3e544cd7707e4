// The SQL shell's commands that run statements more than once or from elsewhere: `\watch` (the query again
// and again until Ctrl-C, which ends the watch and keeps the shell) and `\i FILE` (a file's statements in
// order; the first failure stops it and says which statement, as `dlake sql -f` does).
import { homedir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from '../context.js';
import { DlakeError, InterruptedError, rephrased, UsageError } from '../errors.js';
import { splitSql } from '../sql/split.js';
import { readTextFile } from '../util/files.js';
import type { KeyRouter } from './keys.js';

/** What the shell lends these commands: its context, its keyboard, and how it runs one statement. */
interface StatementRunner {
  ctx: Context;
  keys: KeyRouter;
  /** Runs one statement and shows its result (or exports it after `\o`); Ctrl-C cancels it. */
  execute(text: string): Promise<void>;
}

/**
 * `\watch`: runs `text` every `seconds` until Ctrl-C or a failure. Each run is headed, as psql heads it, with
 * the time and the interval. Ctrl-C while waiting ends the watch quietly; while the statement runs it cancels
 * the statement (said as any cancelled statement is) and ends the watch.
 */
export async function watch(shell: StatementRunner, text: string, seconds: number): Promise<void> {
  const stop = new AbortController();
  const { stdout } = shell.ctx.streams;
  // Results are printed, never paged, while watching (psql's \watch does not use $PAGER either): a pager
  // would stop the watch until it is closed. An empty PAGER is no pager (pager.ts).
  const { env } = shell.ctx;
  const pager = env.PAGER;
  env.PAGER = '';
  try {
    for (;;) {
      stdout.write(`${new Date().toUTCString()} (every ${seconds}s)\n\n`);
      await shell.execute(text);
      stdout.write('\n');
      // Between runs Ctrl-C belongs to the watch (execute gave the keys back to the prompt).
      shell.keys.running(() => stop.abort());
      try {
        await sleep(seconds * 1000, undefined, { signal: stop.signal });
      } catch {
        return;
      }
    }
  } finally {
    if (pager === undefined) delete env.PAGER;
    else env.PAGER = pager;
  }
}

const UNCLOSED = { string: 'string literal', identifier: 'quoted identifier', comment: 'comment' } as const;

/**
 * `\i FILE`: its statements in order (a last one without `;` runs too, as `dlake sql -f` runs it). The first
 * failure stops the file: one error naming the file, the statement's number and its line.
 */
export async function include(shell: StatementRunner, file: string): Promise<void> {
  const text = readTextFile(file.startsWith('~/') ? join(homedir(), file.slice(2)) : file);
  const split = splitSql(text);
  const statements = split.rest ? [...split.statements, split.rest] : split.statements;
  if (split.inside !== 'nothing') {
    const last = statements.at(-1);
    throw new UsageError(
      `${file}: statement ${statements.length} (line ${last?.line ?? 1}) has an unclosed ${UNCLOSED[split.inside]}; nothing was run`,
    );
  }
  if (statements.length === 0) {
    shell.ctx.ui.notice(`${file} holds no SQL statement.`);
    return;
  }
  for (const [k, statement] of statements.entries()) {
    try {
      await shell.execute(statement.text);
    } catch (err) {
      // Ctrl-C ends the whole file as it is; a bug is not a statement's failure.
      if (!(err instanceof DlakeError) || err instanceof InterruptedError) throw err;
      const left = statements.length - k - 1;
      throw rephrased(err, `${file}: statement ${k + 1} (line ${statement.line}): ${err.message}`, {
        hint:
          err.hint ?? (left > 0 ? `${left} statement${left === 1 ? ' was' : 's were'} not run` : undefined),
      });
    }
  }
}
