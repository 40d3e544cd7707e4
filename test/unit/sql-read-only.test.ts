// What run_sql lets an agent run without --allow-writes, read with the statement splitter's rules, and the
// row limit it adds where a statement has none.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { checkStatement, withRowLimit } from '../../src/sql/read-only.js';
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
    'SELECT "delete", `update` FROM t',
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
