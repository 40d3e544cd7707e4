// `dlake mcp --allow-path`: the paths as given, and what a statement reads checked against them (the statement
// reader finds tables after FROM, JOIN and commas, in CTEs and subqueries, DESCRIBE and SHOW … IN, and the table a
// metadata function names); what cannot be placed is refused.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { AllowedPaths, parseAllowedPath } from '../../src/mcp/allow-path.js';
import { lex } from '../../src/sql/lexer.js';
import { thrown } from '../helpers/thrown.js';

const allowed = new AllowedPaths([['Sales'], ['Lake', 'curated']]);
const check = (sql: string, context?: string[]) => allowed.checkStatement(lex(sql).tokens, context);

describe('--allow-path', () => {
  it('takes a catalog path with / or a SQL name with dots, quoted parts included', () => {
    expect(parseAllowedPath('Sales')).toEqual(['Sales']);
    expect(parseAllowedPath('Lake/curated')).toEqual(['Lake', 'curated']);
    expect(parseAllowedPath('Lake."cur.ated"')).toEqual(['Lake', 'cur.ated']);
    for (const bad of ['Sales..x', '.Sales', 'Sales.', "'Sales'"])
      expect(thrown(() => parseAllowedPath(bad), UsageError).message).toBe(
        `--allow-path "${bad}" is not a catalog path`,
      );
  });

  it.each([
    'SELECT * FROM Sales.orders',
    'select * from "SALES"."Orders" o join lake.CURATED.t on true',
    'WITH x AS (SELECT * FROM Sales.orders), y (a) AS (SELECT 1) SELECT * FROM x, y',
    'SELECT * FROM (SELECT a FROM Sales.orders) s WHERE a IN (SELECT a FROM Lake.curated.t)',
    "SELECT * FROM TABLE(table_history('Sales.orders'))",
    'DESCRIBE TABLE Sales.orders',
    'SHOW TABLES IN Sales',
    'SELECT EXTRACT(YEAR FROM d) FROM Sales.orders',
  ])('lets %j run', (sql) => {
    expect(() => check(sql)).not.toThrow();
  });

  it.each([
    ['SELECT * FROM big', 'the statement names big, which lies outside'],
    ['SELECT * FROM Sales.orders, Other.t', 'the statement names Other.t, which lies outside'],
    ['SELECT * FROM Lake.raw.t', 'the statement names Lake.raw.t, which lies outside'],
    [
      'SELECT * FROM Sales.orders WHERE a IN (SELECT a FROM sys.jobs)',
      'the statement names sys.jobs, which lies outside',
    ],
    ['SELECT * FROM x', 'the statement names x, which lies outside'],
    ["SELECT * FROM TABLE(table_files('Other.t'))", 'the statement names Other.t, which lies outside'],
    [
      "SELECT * FROM TABLE(sys.reflection_lineage('r1'))",
      'the statement calls sys.reflection_lineage, whose tables dlake cannot tell',
    ],
    ['SHOW SCHEMAS', 'the statement lists the whole catalog'],
  ])('refuses %j', (sql, words) => {
    expect(thrown(() => check(sql), UsageError).message).toMatch(
      new RegExp(`^${words.replace(/[.()]/g, '\\$&')}`),
    );
  });

  it('with --allow-writes too: what a statement changes must be inside, and one whose target is unknown is refused', () => {
    expect(() => check('INSERT INTO Sales.orders SELECT * FROM Sales.staging')).not.toThrow();
    expect(() => check('CREATE OR REPLACE VIEW Lake.curated.v AS SELECT * FROM Sales.orders')).not.toThrow();
    expect(thrown(() => check('INSERT INTO Other.t SELECT * FROM Sales.orders'), UsageError).message).toMatch(
      /^the statement names Other\.t, which lies outside/,
    );
    expect(thrown(() => check('DROP TABLE IF EXISTS Other.t'), UsageError).message).toMatch(
      /names Other\.t, which/,
    );
    expect(thrown(() => check('DELETE FROM Other.t'), UsageError).message).toMatch(/names Other\.t, which/);
    expect(thrown(() => check('GRANT SELECT ON TABLE Sales.orders TO USER bob'), UsageError).message).toMatch(
      /^the statement changes something whose place dlake cannot tell/,
    );
  });

  it('reads a name both from the context and from the root, as the engine may', () => {
    expect(() => check('SELECT * FROM orders', ['Sales'])).not.toThrow();
    expect(thrown(() => check('SELECT * FROM curated.t', ['Lake']), UsageError).message).toMatch(
      /names curated\.t, which/,
    );
    expect(thrown(() => check('SELECT * FROM orders', ['Other']), UsageError).message).toMatch(
      /names Other\.orders, which/,
    );
  });

  it('get_entity and get_lineage: a path inside; an id is refused, its place unknown before a request', () => {
    expect(() => allowed.checkRef('Sales/orders')).not.toThrow();
    expect(thrown(() => allowed.checkRef('Other/t'), UsageError).message).toBe(
      'Other/t lies outside the paths this session allows (Sales, Lake.curated)',
    );
    expect(
      thrown(() => allowed.checkRef('3f1c0a4e-0000-4000-8000-000000000000'), UsageError).message,
    ).toMatch(/is an id, whose place in the catalog is not known before it is read/);
    expect(() => new AllowedPaths([]).checkRef('anything')).not.toThrow();
  });
});
