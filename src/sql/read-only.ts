// The read-only rule (docs/agents.md "Read-only: what it guarantees"): what runs without --allow-writes (`dlake
// mcp`'s run_sql), with `dlake sql --read-only`, or in the shell with `\set readonly on`. A statement runs only
// when it reads, judged by what the engine will do with its text (read by src/sql/lexer.ts as the engine reads
// it), not by its first word alone:
// - it starts with a reading word and holds no writing keyword outside strings, quoted names and comments;
// - it calls no `external_query` (the engine sends that function's text, unread, to the source's own database,
//   where it may write), in any spelling;
// - every table function it calls is on READING_FUNCTIONS;
// - its text holds nothing that SQL readers read differently (a `//` comment, a nested `/*`, …), nor an unclosed
//   string, name or comment: where dlake cannot be sure how the engine reads it, it refuses.
// It also gives run_sql its one statement and the row limit the engine applies.
import { UsageError } from '../errors.js';
import { type Inside, type Lexed, lex, type Token } from './lexer.js';
import { statementReads } from './reads.js';
import { bareWords, splitSql } from './split.js';

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

/**
 * The table functions that only read (docs/agents.md "Reading table functions"; docs/api-facts.md §4.5): the
 * Iceberg metadata functions, COPY INTO's error report and the hosted edition's `sys` functions. Any other
 * (`external_query`, a user-defined table function, one a later release adds) is refused.
 */
export const READING_FUNCTIONS = [
  'table_files',
  'table_history',
  'table_manifests',
  'table_partitions',
  'table_snapshot',
  'copy_errors',
  'sys.recommend_reflections',
  'sys.reflection_lineage',
  'sys.reflection_refresh_settings',
] as const;

/** The engine's pass-through to a source's own database. */
const PASS_THROUGH = 'external_query';

/** Statements that take a LIMIT at their end. */
const LIMITABLE = new Set(['SELECT', 'WITH', 'VALUES']);

/** How the caller's rule is named in a refusal, and how to lift it. */
interface Rule {
  /** "without --allow-writes", "with --read-only". */
  when: string;
  hint: string;
}

const MCP_RULE: Rule = {
  when: 'without --allow-writes',
  hint: 'start dlake mcp with --allow-writes to let agents change data',
};

const UNCLOSED: Record<Exclude<Inside, 'nothing'>, string> = {
  string: 'an unclosed string literal',
  identifier: 'an unclosed quoted name',
  comment: 'an unclosed comment',
};

/** The statements of lexed text: each one's tokens, without the `;` between them (empty ones left out). */
function statementsOf(lexed: Lexed): Token[][] {
  const statements: Token[][] = [[]];
  for (const token of lexed.tokens) {
    if (token.kind === 'symbol' && token.text === ';') statements.push([]);
    else statements.at(-1)!.push(token);
  }
  return statements.filter((s) => s.length > 0);
}

/** A UsageError unless every statement of `sql` only reads (the rule above); `rule` words it. */
export function requireReading(sql: string, rule: Rule): void {
  const lexed = lex(sql);
  judge(lexed, statementsOf(lexed), rule);
}

function judge(lexed: Lexed, statements: Token[][], rule: Rule): void {
  const refuse = (why: string) => new UsageError(`${why}: refused ${rule.when}`, { hint: rule.hint });
  const doubt = lexed.doubts[0];
  if (doubt) throw refuse(`the text holds ${doubt.what}, so dlake cannot be sure how the engine reads it`);
  if (lexed.inside !== 'nothing') throw refuse(`the text ends inside ${UNCLOSED[lexed.inside]}`);
  const several = statements.length > 1;
  for (const tokens of statements) {
    const subject = several ? 'one of the statements' : 'the statement';
    const words = bareWords(tokens);
    const first = words[0]?.word ?? '';
    // Its first token after any opening parentheses (`(SELECT …) UNION …`) is the word that says what it is.
    const lead = tokens.find((t) => !(t.kind === 'symbol' && t.text === '('));
    const bare = lead?.kind === 'word';
    const reading = bare && (READING as readonly string[]).includes(first);
    const writer = words.find((w) => WRITING.has(w.word));
    if (!reading || writer) {
      const what = reading && writer ? writer.word : bare ? first : '';
      throw new UsageError(
        `${subject} is ${what ? `${/^[AEIOU]/.test(what) ? 'an' : 'a'} ${what}` : 'not a reading statement'}: only ${READING.filter((r) => r !== 'DESC').join(', ')} statements run ${rule.when}`,
        { hint: rule.hint },
      );
    }
    const passThrough = tokens.find(
      (t) => (t.kind === 'word' || t.kind === 'identifier') && t.text.toLowerCase() === PASS_THROUGH,
    );
    if (passThrough) {
      throw refuse(
        `${subject} calls external_query, which sends its text unread to a source's own database, where it may change data`,
      );
    }
    for (const call of statementReads(tokens).calls) {
      if (call === undefined)
        throw refuse(`${subject} has a TABLE( … ) that is not a call of a named function`);
      if (!(READING_FUNCTIONS as readonly string[]).includes(call.name.toLowerCase())) {
        throw refuse(
          `${subject} calls the table function ${call.name}, which is not one dlake knows to only read (${READING_FUNCTIONS.join(', ')})`,
        );
      }
    }
  }
}

interface Checked {
  /** The one statement, without its `;`. */
  text: string;
  /** Its first word, upper-cased. */
  kind: string;
  /** Whether it carries a row limit of its own (LIMIT or FETCH at its top level). */
  limited: boolean;
}

/** run_sql's one statement of `sql`; with `allowWrites` false, a UsageError unless it only reads. */
export function checkStatement(sql: string, allowWrites: boolean): Checked {
  const lexed = lex(sql);
  const statements = statementsOf(lexed);
  if (statements.length === 0) throw new UsageError('the query is empty');
  if (!allowWrites) judge(lexed, statements, MCP_RULE);
  if (statements.length > 1) {
    throw new UsageError(`run_sql runs one statement at a time, not ${statements.length}`, {
      hint: 'send each statement in its own call',
    });
  }
  const tokens = statements[0]!;
  // Its text as the splitter gives it: leading comments kept, its `;` and what follows left out.
  const split = splitSql(sql);
  const text = (split.statements[0] ?? split.rest)!.text;
  const words = bareWords(tokens);
  return {
    text,
    kind: words[0]?.word ?? '',
    limited: words.some((w) => w.depth === 0 && (w.word === 'LIMIT' || w.word === 'FETCH')),
  };
}

/** `text` with `LIMIT maxRows` added where the statement reads rows and sets no limit of its own. */
export function withRowLimit(checked: Checked, maxRows: number): string {
  if (checked.limited || !LIMITABLE.has(checked.kind)) return checked.text;
  // On a line of its own: a line comment at the statement's end must not swallow it.
  return `${checked.text}\nLIMIT ${maxRows}`;
}
