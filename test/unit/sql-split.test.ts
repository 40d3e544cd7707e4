import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oneLine, splitSql } from '../../src/sql/split.js';

const texts = (source: string) => splitSql(source).statements.map((s) => s.text);

describe('splitSql', () => {
  it('splits on ; and trims', () => {
    expect(texts('SELECT 1; SELECT 2 ;\n\nSELECT 3;')).toEqual(['SELECT 1', 'SELECT 2', 'SELECT 3']);
  });

  it('keeps ; inside strings, quoted identifiers and comments', () => {
    const src = `SELECT 'a;b', 'it''s;' FROM "x;y"."z""; w" -- c;d\nWHERE \`q;r\` = 1 /* e;\nf */;SELECT 2`;
    const split = splitSql(src);
    expect(split.statements.map((s) => s.text)).toEqual([
      `SELECT 'a;b', 'it''s;' FROM "x;y"."z""; w" -- c;d\nWHERE \`q;r\` = 1 /* e;\nf */`,
    ]);
    expect(split.rest).toEqual({ text: 'SELECT 2', line: 3 });
    expect(split.inside).toBe('nothing');
  });

  it('skips statements of blanks and comments only, and numbers lines from the first code', () => {
    const split = splitSql('-- header;\n\n/* a\n b; */\n  SELECT 1;\n;\n-- tail\n');
    expect(split.statements).toEqual([{ text: '-- header;\n\n/* a\n b; */\n  SELECT 1', line: 5 }]);
    expect(split.rest).toBeUndefined();
  });

  it('reports an unfinished quote or comment', () => {
    expect(splitSql("SELECT 'abc;").inside).toBe('string');
    expect(splitSql('SELECT "abc;').inside).toBe('identifier');
    expect(splitSql('SELECT 1 /* x;').inside).toBe('comment');
    expect(splitSql("SELECT 'abc;").statements).toEqual([]);
  });

  it('counts lines inside multi-line strings', () => {
    const split = splitSql("SELECT 'a\nb\nc';\nSELECT 2;");
    expect(split.statements.map((s) => s.line)).toEqual([1, 4]);
  });

  it('ends a line comment where the engine does: at LF, CR or CRLF, and at nothing else', () => {
    expect(texts('SELECT 1 --\r; SELECT 2;')).toEqual(['SELECT 1 --', 'SELECT 2']);
    expect(texts('SELECT 1 --a\r\n; SELECT 2;')).toEqual(['SELECT 1 --a', 'SELECT 2']);
    expect(texts('SELECT 1 // x ; y\n; SELECT 2;')).toEqual(['SELECT 1 // x ; y', 'SELECT 2']);
    expect(texts('SELECT 1 -- x\u2028; still the comment\n;')).toEqual([
      'SELECT 1 -- x\u2028; still the comment',
    ]);
    // Block comments do not nest: the first */ ends one.
    expect(texts('SELECT 1 /* /* */; SELECT 2 */;')).toEqual(['SELECT 1 /* /* */', 'SELECT 2 */']);
    // CR, LF and CRLF are one line end each.
    expect(splitSql('SELECT 1;\rSELECT 2;\r\nSELECT 3;\nSELECT 4;').statements.map((s) => s.line)).toEqual([
      1, 2, 3, 4,
    ]);
  });

  // Statements built from pieces that may hold `;` only where it separates nothing.
  const piece = fc.oneof(
    fc.stringMatching(/^[A-Za-z0-9_ ,.()*=<>+\n-]{1,12}$/).filter((s) => !s.includes('--')),
    fc.string({ maxLength: 8 }).map((s) => `'${s.replaceAll("'", "''")}'`),
    fc.string({ maxLength: 8 }).map((s) => `"${s.replaceAll('"', '""')}"`),
    fc.string({ maxLength: 8 }).map((s) => `/*${s.replaceAll('*/', '')}*/`),
    fc.stringMatching(/^[^\n\r]{0,8}$/).map((s) => `--${s}\n`),
  );
  const statement = fc.array(piece, { minLength: 1, maxLength: 6 }).map((ps) => `X ${ps.join(' ')} Y`);

  it('gives back the statements it was built from (property)', () => {
    fc.assert(
      fc.property(fc.array(statement, { minLength: 1, maxLength: 5 }), (stmts) => {
        const split = splitSql(stmts.map((s) => `${s};`).join('\n'));
        expect(split.statements.map((s) => s.text)).toEqual(stmts.map((s) => s.trim()));
        expect(split.inside).toBe('nothing');
        // Each statement starts on the line its first character is on.
        let line = 1;
        split.statements.forEach((s, k) => {
          expect(s.line).toBe(line);
          line += stmts[k]!.split('\n').length;
        });
      }),
    );
  });

  it('never throws and never loses a non-blank character (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (src) => {
        const split = splitSql(src);
        const kept = [...split.statements, ...(split.rest ? [split.rest] : [])].map((s) => s.text).join('');
        expect(kept.replace(/[\s;]/g, '').length).toBeLessThanOrEqual(src.replace(/[\s;]/g, '').length);
      }),
    );
  });
});

describe('oneLine', () => {
  it('joins lines and drops line comments, keeping quoted text', () => {
    expect(oneLine("SELECT 1, -- one\n  'a\nb' /* -- c\n d */\nFROM t")).toBe(
      "SELECT 1, 'a\nb' /* -- c d */ FROM t",
    );
  });
});
