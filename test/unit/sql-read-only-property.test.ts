// The read-only rule against random disguises (property tests): every form it refuses, dressed in random
// comments, strings, line ends, semicolons, letter case and quoting that the engine reads as dlake's lexer does
// (so the engine would still run the form), stays refused. Decoys imitate the bypasses this rule must not fall
// for: a line comment ended by CR alone, a block comment opened after a write, a `;` hidden from a lexer that
// ends comments at LF only.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { checkStatement, requireReading } from '../../src/sql/read-only.js';
import { thrown } from '../helpers/thrown.js';

/** Line ends as the engine knows them (LF, CR, CRLF), and blanks it skips. */
const lineEnd = fc.constantFrom('\n', '\r', '\r\n');
const blank = fc.constantFrom(' ', '\t', '\f', '\n', '\r', '\r\n', '  ');
/** Text that may sit inside a comment: quotes, semicolons, comment openers, writes, line ends of other readers. */
const HOSTILE = [
  "'",
  '"',
  ';',
  '--',
  '/*',
  '`',
  ' ',
  'SELECT 1 LIMIT 1',
  'DROP',
  'x',
  '\u2028',
  '\u0085',
  '$$',
];
/** The same without what readers disagree on (a nested `/*`, other line ends, back-quotes, `$$`). */
const PLAIN = ["'", '"', ';', '--', ' ', 'SELECT 1 LIMIT 1', 'DROP', 'x'];

/** What may stand between two tokens without changing what the engine runs: blanks and comments of `words`. */
function gapOf(words: string[]): fc.Arbitrary<string> {
  const junk = fc.array(fc.constantFrom(...words), { maxLength: 6 }).map((parts) => parts.join(''));
  // A comment the engine ends where dlake does: a block one without `*\/`, a line one closed by LF, CR or CRLF.
  const comment = fc.oneof(
    junk.map((j) => `/*${j.replaceAll('*/', '')}*/`),
    fc.tuple(junk, lineEnd).map(([j, end]) => `--${j.replace(/[\n\r]/g, '')}${end}`),
  );
  return fc.array(fc.oneof(blank, comment), { minLength: 1, maxLength: 3 }).map((g) => g.join(''));
}

/** A keyword in random letter case. */
const cased = (word: string) =>
  fc
    .array(fc.boolean(), { minLength: word.length, maxLength: word.length })
    .map((upper) => [...word].map((c, k) => (upper[k] ? c.toUpperCase() : c.toLowerCase())).join(''));
/** A name, bare or double-quoted, in random case (the engine's name lookup ignores case). */
const name = (word: string) =>
  fc.tuple(cased(word), fc.boolean()).map(([w, quoted]) => (quoted ? `"${w.replaceAll('"', '""')}"` : w));
/** A string literal holding a write, in the engine's quoting ('' for a quote). */
const stringOf = (text: string) => fc.constant(`'${text.replaceAll("'", "''")}'`);

type Piece = fc.Arbitrary<string> | string;
const build = (pieces: Piece[], gap = gapOf(HOSTILE)) =>
  fc
    .tuple(
      ...pieces.map((p) => (typeof p === 'string' ? fc.constant(p) : p)),
      fc.array(gap, { minLength: pieces.length + 1, maxLength: pieces.length + 1 }),
    )
    .map((parts) => {
      const gaps = parts.pop() as string[];
      const tokens = parts as string[];
      // Every token separated from the next by a gap (blanks or comments), and the text framed by them too.
      return gaps[0] + tokens.map((t, k) => t + gaps[k + 1]).join('');
    });

/** Every form the rule refuses, each a sequence of tokens. */
const REFUSED: Record<string, fc.Arbitrary<string>> = {
  'a DROP': build([cased('drop'), cased('table'), name('orders')]),
  'a CREATE … AS SELECT': build([
    cased('create'),
    cased('table'),
    name('pwned'),
    cased('as'),
    cased('select'),
    '99',
  ]),
  'a DELETE': build([cased('delete'), cased('from'), name('orders')]),
  'an INSERT behind a WITH': build([
    cased('with'),
    'x',
    cased('as'),
    '(',
    cased('select'),
    '1',
    ')',
    cased('insert'),
    cased('into'),
    name('t'),
    cased('select'),
    '*',
    cased('from'),
    'x',
  ]),
  'external_query in a FROM': build([
    cased('select'),
    '*',
    cased('from'),
    cased('table'),
    '(',
    name('pg'),
    '.',
    name('external_query'),
    '(',
    stringOf('DELETE FROM orders'),
    ')',
    ')',
  ]),
  'external_query in a CTE': build([
    cased('with'),
    'x',
    cased('as'),
    '(',
    cased('select'),
    '*',
    cased('from'),
    cased('table'),
    '(',
    name('pg'),
    '.',
    name('external_query'),
    '(',
    stringOf('DROP TABLE t'),
    ')',
    ')',
    ')',
    cased('select'),
    '*',
    cased('from'),
    'x',
  ]),
  'external_query in a subquery, without TABLE': build([
    cased('select'),
    '*',
    cased('from'),
    '(',
    cased('select'),
    'a',
    cased('from'),
    name('pg'),
    '.',
    name('external_query'),
    '(',
    stringOf('UPDATE t SET a = 1'),
    ')',
    ')',
  ]),
  'a table function not on the list': build([
    cased('select'),
    '*',
    cased('from'),
    cased('table'),
    '(',
    name('lake'),
    '.',
    name('writer'),
    '(',
    '1',
    ')',
    ')',
  ]),
  'a SELECT with a second statement that writes': build([
    cased('select'),
    '1',
    cased('limit'),
    '1',
    ';',
    cased('create'),
    cased('table'),
    name('pwned'),
    cased('as'),
    cased('select'),
    '1',
  ]),
};

describe('the read-only rule under random disguises (property)', () => {
  for (const [form, text] of Object.entries(REFUSED)) {
    it(`refuses ${form}, however it is dressed`, () => {
      fc.assert(
        fc.property(text, fc.constantFrom('', ';', ';\n', '; -- end\r'), (sql, end) => {
          const message = thrown(() => checkStatement(sql + end, false), UsageError).message;
          expect(message).toMatch(/without --allow-writes$/);
          // The same rule for `dlake sql --read-only` and the shell.
          expect(() => requireReading(sql + end, { when: 'with --read-only', hint: '' })).toThrow(UsageError);
        }),
        { numRuns: 300 },
      );
    });
  }

  it('lets the same disguises of a reading statement run (the rule is not refusing everything)', () => {
    const reading = build(
      [cased('select'), name('a'), cased('from'), name('orders'), cased('where'), name('a'), '=', "'x'"],
      gapOf(PLAIN),
    );
    fc.assert(
      fc.property(reading, (sql) => {
        expect(() => checkStatement(sql, false)).not.toThrow();
      }),
      { numRuns: 300 },
    );
  });
});
