// What run_sql lets an agent run without --allow-writes, read with the statement splitter's rules, and the
// row limit it adds where a statement has none.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { checkStatement, READING_FUNCTIONS, requireReading, withRowLimit } from '../../src/sql/read-only.js';
import { thrown } from '../helpers/thrown.js';

describe('checkStatement', () => {
  it.each([
    'SELECT 1',
    '  select * from t;',
    'WITH x AS (SELECT 1 AS a) SELECT a FROM x',
    'VALUES (1), (2)',
    'SHOW TABLES',
    'DESCRIBE Sales.orders',
    'EXPLAIN PLAN FOR SELECT 1',
    "SELECT 'DROP TABLE t; DELETE' AS s",
    'SELECT "delete", "update" FROM t',
    '-- DROP TABLE t\nSELECT 1',
    '/* INSERT INTO t */ SELECT 1',
  ])('reads: %j', (sql) => {
    expect(() => checkStatement(sql, false)).not.toThrow();
  });

  it.each([
    ['DELETE FROM t', 'the statement is a DELETE'],
    ['  drop table t', 'the statement is a DROP'],
    ['/* SELECT */ INSERT INTO t VALUES (1)', 'the statement is an INSERT'],
    ['-- a comment\nUPDATE t SET a = 1', 'the statement is an UPDATE'],
    ['SELECT 1; DROP TABLE t', 'one of the statements is a DROP'],
    ['SELECT 1;\n-- then\nCREATE TABLE t AS SELECT 1', 'one of the statements is a CREATE'],
    ['WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x', 'the statement is an INSERT'],
    ['EXPLAIN PLAN FOR DELETE FROM t', 'the statement is a DELETE'],
    ['ALTER TABLE t REFRESH METADATA', 'the statement is an ALTER'],
    ['GRANT SELECT ON TABLE t TO USER bob', 'the statement is a GRANT'],
    ['MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN DELETE', 'the statement is a MERGE'],
    ['OPTIMIZE TABLE t', 'the statement is an OPTIMIZE'],
    ['"SELECT"', 'the statement is not a reading statement'],
  ])('refuses %j', (sql, words) => {
    expect(thrown(() => checkStatement(sql, false), UsageError).message).toBe(
      `${words}: only SELECT, WITH, VALUES, SHOW, DESCRIBE, EXPLAIN statements run without --allow-writes`,
    );
  });

  it('with writes allowed: any one statement; never several, never none', () => {
    expect(checkStatement('DROP TABLE t;', true)).toEqual({
      text: 'DROP TABLE t',
      kind: 'DROP',
      limited: false,
    });
    expect(thrown(() => checkStatement('SELECT 1; SELECT 2', true), UsageError).message).toBe(
      'run_sql runs one statement at a time, not 2',
    );
    expect(thrown(() => checkStatement(' -- nothing\n;', false), UsageError).message).toBe(
      'the query is empty',
    );
  });
});

describe('checkStatement: judged by what the engine will do', () => {
  const refusal = (sql: string) => thrown(() => checkStatement(sql, false), UsageError).message;

  it.each([
    "SELECT * FROM TABLE(pg.external_query('DELETE FROM orders'))",
    'select * from table( PG . "EXTERNAL_QUERY" ( \'x\' ) )',
    "SELECT * FROM TABLE(pg./* c */External_Query('x'))",
    "WITH x AS (SELECT * FROM TABLE(pg.external_query('x'))) SELECT * FROM x",
    "SELECT * FROM (SELECT a FROM TABLE(pg.external_query('x'))) AS s",
    "SELECT * FROM t WHERE a IN (SELECT a FROM pg.external_query('x'))",
    "SELECT * FROM pg.external_query('x')",
    'SELECT * FROM TABLE("pg"."external_query"(\'x\'))',
  ])('refuses external_query in any spelling: %j', (sql) => {
    expect(refusal(sql)).toBe(
      "the statement calls external_query, which sends its text unread to a source's own database, where it may change data: refused without --allow-writes",
    );
  });

  it.each([
    ["SELECT * FROM TABLE(my.udtf('x'))", 'my.udtf'],
    ['SELECT * FROM TABLE(SPECIFIC evil(1))', 'evil'],
    ["SELECT * FROM TABLE(table_history('t')), TABLE(writes('x'))", 'writes'],
    ['SELECT * FROM a, f(1)', 'f'],
    ['SELECT * FROM a JOIN lake.g(1) ON true', 'lake.g'],
    ["SELECT * FROM TABLE(other.table_history('t'))", 'other.table_history'],
  ])('refuses a table function not on the list: %j', (sql, name) => {
    expect(refusal(sql)).toBe(
      `the statement calls the table function ${name}, which is not one dlake knows to only read (${READING_FUNCTIONS.join(', ')}): refused without --allow-writes`,
    );
  });

  it('refuses a TABLE( … ) that does not call a named function', () => {
    expect(refusal('SELECT * FROM TABLE((SELECT 1))')).toMatch(
      /^the statement has a TABLE\( … \) that is not a call/,
    );
  });

  it.each([
    "SELECT * FROM TABLE(table_history('Lake.orders'))",
    'SELECT * FROM TABLE( "TABLE_FILES" ( \'Lake.orders\' ) ) LIMIT 5',
    "SELECT * FROM TABLE(sys.reflection_lineage('r1')) AS l",
    "SELECT * FROM TABLE(copy_errors('Lake.orders', '1f0c'))",
    "SELECT EXTRACT(YEAR FROM CAST(d AS DATE)), SUBSTRING(s FROM 2 FOR 3), TRIM(BOTH 'x' FROM s) FROM t",
    'SELECT * FROM UNNEST(ARRAY[1, 2]) AS u(x)',
    "SELECT 'external_query' AS s, lower(a) FROM t AS x(a) JOIN b ON x.a = upper(b.a), c WHERE f(1) = 1",
    'DESCRIBE TABLE Sales.orders',
    '(SELECT a FROM t) UNION ALL (SELECT a FROM u)',
  ])('lets a reading statement run: %j', (sql) => {
    expect(() => checkStatement(sql, false)).not.toThrow();
  });

  it.each([
    // The engine ends a line comment at CR: what follows is code to it.
    ['--\rCREATE TABLE pwned AS SELECT 99 /*\nSELECT 1 LIMIT 1 */', 'the statement is a CREATE'],
    ['--\rDROP TABLE t /*\nSELECT 1 LIMIT 1 */', 'the statement is a DROP'],
    ['SELECT 1 LIMIT 1 --\r; CREATE TABLE pwned AS SELECT 1', 'one of the statements is a CREATE'],
    ['SELECT 1 --\r\nFROM t; DROP TABLE t', 'one of the statements is a DROP'],
  ])('reads line ends as the engine does: %j', (sql, what) => {
    expect(refusal(sql)).toMatch(new RegExp(`^${what}: `));
  });

  it.each([
    ['SELECT 1 // DROP\n', 'a `//` comment'],
    ['/* /* */ SELECT 1 */', 'a `/*` inside a block comment'],
    ['SELECT "a\nb" FROM t', 'a quoted name with a line break'],
    ['SELECT 1 -- x\u2028DROP TABLE t', 'a line comment holding U+2028'],
    ['SELECT 1 -- x\u0085', 'a line comment holding U+0085'],
    ['SELECT /*+ x */ 1', 'a `/*+` hint'],
    ["SELECT E'\\' ; DROP TABLE t; --'", "an E'…' string with a backslash"],
    ["SELECT $$'$$ ; DROP TABLE t; --'", 'a name starting with `$`'],
    ['SELECT `a` FROM t', 'a back-quoted name'],
    ['SELECT U&"\\0041" FROM t', 'a U&"…" name'],
  ])('refuses what SQL readers read differently: %j', (sql, what) => {
    expect(refusal(sql)).toMatch(
      new RegExp(
        `^the text holds ${what.replace(/[$()*+?.\\[\]^{|}]/g, '\\$&')}.*: refused without --allow-writes$`,
      ),
    );
  });

  it('refuses a text that ends inside a string, a name or a comment', () => {
    expect(refusal("SELECT 'abc")).toBe(
      'the text ends inside an unclosed string literal: refused without --allow-writes',
    );
    expect(refusal('SELECT 1 /* x')).toBe(
      'the text ends inside an unclosed comment: refused without --allow-writes',
    );
  });

  it('words a refusal for sql --read-only and the shell by their own rule', () => {
    const rule = { when: 'with --read-only', hint: 'leave out --read-only to run it' };
    const err = thrown(() => requireReading('SELECT 1; DROP TABLE t', rule), UsageError);
    expect(err.message).toBe(
      'one of the statements is a DROP: only SELECT, WITH, VALUES, SHOW, DESCRIBE, EXPLAIN statements run with --read-only',
    );
    expect(err.hint).toBe('leave out --read-only to run it');
    expect(() => requireReading('SELECT 1; SELECT 2;', rule)).not.toThrow();
  });
});

describe('withRowLimit', () => {
  const limited = (sql: string, n = 100) => withRowLimit(checkStatement(sql, false), n);

  it('adds LIMIT on its own line where the statement reads rows and has no limit', () => {
    expect(limited('SELECT * FROM t')).toBe('SELECT * FROM t\nLIMIT 100');
    expect(limited('SELECT * FROM t -- the end', 5)).toBe('SELECT * FROM t -- the end\nLIMIT 5');
    expect(limited('SELECT * FROM t;')).toBe('SELECT * FROM t\nLIMIT 100');
    expect(limited('WITH x AS (SELECT * FROM t LIMIT 3) SELECT * FROM x')).toBe(
      'WITH x AS (SELECT * FROM t LIMIT 3) SELECT * FROM x\nLIMIT 100',
    );
    expect(limited('SELECT a FROM t UNION ALL SELECT a FROM u')).toBe(
      'SELECT a FROM t UNION ALL SELECT a FROM u\nLIMIT 100',
    );
    expect(limited('SELECT \'LIMIT 5\' AS s, "limit" FROM t')).toBe(
      'SELECT \'LIMIT 5\' AS s, "limit" FROM t\nLIMIT 100',
    );
  });

  it("keeps the statement's own limit, and leaves SHOW, DESCRIBE and EXPLAIN as they are", () => {
    expect(limited('SELECT * FROM t LIMIT 5')).toBe('SELECT * FROM t LIMIT 5');
    expect(limited('select * from t order by a offset 10 rows fetch next 5 rows only')).toBe(
      'select * from t order by a offset 10 rows fetch next 5 rows only',
    );
    expect(limited('SHOW TABLES')).toBe('SHOW TABLES');
    expect(limited('DESCRIBE t')).toBe('DESCRIBE t');
    expect(limited('EXPLAIN PLAN FOR SELECT * FROM t')).toBe('EXPLAIN PLAN FOR SELECT * FROM t');
  });
});
