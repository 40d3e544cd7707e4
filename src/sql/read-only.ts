// What an agent may run without --allow-writes (docs/agents.md "Safety"): one statement that only reads,
// and a row limit the engine applies, so that a large table is never scanned whole for a capped answer.
// Read with the statement splitter's rules (src/sql/split.ts): a write after a comment, inside a second
// statement, or behind a WITH is seen; a keyword inside a string or a quoted name is not a keyword.
import { UsageError } from '../errors.js';
import { bareWords, splitSql, type Word } from './split.js';

/** The statements that only read, by their first word. */
const READING = ['SELECT', 'WITH', 'VALUES', 'SHOW', 'DESCRIBE', 'DESC', 'EXPLAIN'] as const;

/** Words that make a statement change something, wherever they stand outside strings and quoted names. */
const WRITING = new Set([
  'INSERT',
  'UPDATE',
  'DELETE',
  'MERGE',
  'UPSERT',
  'CREATE',
  'DROP',
  'ALTER',
  'TRUNCATE',
  'GRANT',
  'REVOKE',
  'REFRESH',
  'COPY',
  'OPTIMIZE',
  'VACUUM',
  'ROLLBACK',
  'USE',
  'SET',
  'RESET',
  'CALL',
]);

/** Statements that take a LIMIT at their end. */
const LIMITABLE = new Set(['SELECT', 'WITH', 'VALUES']);

interface Checked {
  /** The one statement, without its `;`. */
  text: string;
  /** Its first word, upper-cased. */
  kind: string;
  /** Whether it carries a row limit of its own (LIMIT or FETCH at its top level). */
  limited: boolean;
}

/** The one statement of `sql`; with `allowWrites` false, a UsageError unless it only reads. */
export function checkStatement(sql: string, allowWrites: boolean): Checked {
  const split = splitSql(sql);
  const statements = [...split.statements, ...(split.rest ? [split.rest] : [])];
  if (statements.length === 0) throw new UsageError('the query is empty');
  if (!allowWrites) for (const s of statements) refuseWrite(s.text, statements.length > 1);
  if (statements.length > 1) {
    throw new UsageError(`run_sql runs one statement at a time, not ${statements.length}`, {
      hint: 'send each statement in its own call',
    });
  }
  const text = statements[0]!.text;
  const words = bareWords(text);
  const kind = words[0]?.word ?? '';
  return {
    text,
    kind,
    limited: words.some((w) => w.depth === 0 && (w.word === 'LIMIT' || w.word === 'FETCH')),
  };
}

function refuseWrite(text: string, several: boolean): void {
  const words: Word[] = bareWords(text);
  const first = words[0]?.word ?? '';
  const writer = words.find((w) => WRITING.has(w.word));
  if ((READING as readonly string[]).includes(first) && !writer) return;
  const what = writer && (READING as readonly string[]).includes(first) ? writer.word : first || 'this';
  throw new UsageError(
    `${several ? 'one of the statements is' : 'the statement is'} ${what === 'this' ? 'not a reading statement' : `${/^[AEIOU]/.test(what) ? 'an' : 'a'} ${what}`}: only ${READING.filter((r) => r !== 'DESC').join(', ')} statements run without --allow-writes`,
    { hint: 'start dlake mcp with --allow-writes to let agents change data' },
  );
}

/** `text` with `LIMIT maxRows` added where the statement reads rows and sets no limit of its own. */
export function withRowLimit(checked: Checked, maxRows: number): string {
  if (checked.limited || !LIMITABLE.has(checked.kind)) return checked.text;
  // On a line of its own: a line comment at the statement's end must not swallow it.
  return `${checked.text}\nLIMIT ${maxRows}`;
}
