// `dlake mcp --allow-path PATH` (docs/agents.md "Safety rules"): the parts of the catalog a session may touch.
// run_sql, get_entity and get_lineage refuse anything outside before a request is sent (a statement's tables
// found by the statement reader, src/sql/reads.ts; a reference that cannot be placed refused); search_catalog
// answers only the hits inside. Names are matched without regard to case, as the engine resolves them.
import { UsageError } from '../errors.js';
import { lex } from '../sql/lexer.js';
import { READING_FUNCTIONS } from '../sql/read-only.js';
import { statementReads } from '../sql/reads.js';
import { formatPath, isUuid, parsePath, toSqlIdentifier } from '../util/catalog-ref.js';

/**
 * A path as `--allow-path` takes it: `Sales/curated` (dlake's catalog path) or `Sales.curated` (as SQL names it,
 * parts may be double-quoted).
 */
export function parseAllowedPath(text: string): string[] {
  if (text.includes('/')) return parsePath(text);
  const parts: string[] = [];
  const tokens = lex(text).tokens;
  for (const [k, t] of tokens.entries()) {
    const expectName = k % 2 === 0;
    if (expectName && (t.kind === 'word' || t.kind === 'identifier')) parts.push(t.text);
    else if (expectName || t.text !== '.')
      throw new UsageError(`--allow-path "${text}" is not a catalog path`, {
        hint: 'give a space, or a folder in it: --allow-path Sales, --allow-path Sales.curated or Sales/curated',
      });
  }
  if (parts.length === 0 || tokens.length % 2 === 0)
    throw new UsageError(`--allow-path "${text}" is not a catalog path`);
  return parts;
}

const within = (path: readonly string[], allowed: readonly string[]) =>
  allowed.length <= path.length && allowed.every((p, i) => p.toLowerCase() === path[i]!.toLowerCase());

export class AllowedPaths {
  constructor(readonly paths: readonly string[][]) {}

  get active(): boolean {
    return this.paths.length > 0;
  }

  allows(path: readonly string[]): boolean {
    return !this.active || this.paths.some((a) => within(path, a));
  }

  /** `subject` (`Other/t`, `the statement names Other.t, which`) lies outside: a usage error, nothing sent. */
  private outside(subject: string): never {
    throw new UsageError(
      `${subject} lies outside the paths this session allows (${this.paths.map((p) => toSqlIdentifier(p)).join(', ')})`,
      { hint: 'dlake mcp --allow-path PATH allows more' },
    );
  }

  /** What cannot be placed in the catalog before a request: refused while paths are limited. */
  private unplaced(why: string, hint: string): never {
    throw new UsageError(`${why}, so it cannot be checked against --allow-path`, { hint });
  }

  /** get_entity and get_lineage: a path inside; an id cannot be placed before it is looked up, so it is refused. */
  checkRef(ref: string): void {
    if (!this.active) return;
    if (isUuid(ref))
      this.unplaced(
        `${ref} is an id, whose place in the catalog is not known before it is read`,
        'give its path instead, e.g. Sales/orders',
      );
    const path = parsePath(ref);
    if (!this.allows(path)) this.outside(formatPath(path));
  }

  /**
   * run_sql: every table, view and table function's table the statement reads, and what it changes, is inside, read from `context` (the
   * call's context) and, for a name of several parts, from the root too, as the engine may resolve it either way.
   */
  checkStatement(tokens: Parameters<typeof statementReads>[0], context: readonly string[] | undefined): void {
    if (!this.active) return;
    const reads = statementReads(tokens);
    if (reads.target === null)
      this.unplaced(
        'the statement changes something whose place dlake cannot tell',
        'name a table or view inside the paths allowed',
      );
    if (reads.wholeCatalog)
      this.unplaced('the statement lists the whole catalog', 'name a path: SHOW TABLES IN Sales');
    const names = [...reads.tables, ...(reads.target ? [reads.target] : [])];
    for (const call of reads.calls) {
      // The reading functions name their table in a string; any other function is not known to read one.
      const reading = call && (READING_FUNCTIONS as readonly string[]).includes(call.name.toLowerCase());
      if (!call || !reading || call.name.toLowerCase().startsWith('sys.') || call.firstString === undefined)
        this.unplaced(
          `the statement calls ${call ? call.name : 'a table function'}, whose tables dlake cannot tell`,
          "read the table itself, or a metadata function with its name in a string: table_history('Sales.orders')",
        );
      names.push(parseAllowedPath(call.firstString));
    }
    for (const name of names) {
      if (name.length === 1 && reads.ctes.has(name[0]!.toUpperCase())) continue;
      // A one-part name is no table at the root (there are spaces and sources): from the context only.
      const candidates = !context
        ? [name]
        : name.length === 1
          ? [[...context, ...name]]
          : [[...context, ...name], name];
      const outside = candidates.find((c) => !this.allows(c));
      if (outside) this.outside(`the statement names ${toSqlIdentifier(outside)}, which`);
    }
  }
}
