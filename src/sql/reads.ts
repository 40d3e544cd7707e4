// What one statement reads, found in its tokens (src/sql/lexer.ts): the table functions it calls and the tables
// and views it names. The read-only rule (src/sql/read-only.ts) judges the functions; `dlake mcp --allow-path`
// (src/mcp/allow-path.ts) the names. A name whose place dlake cannot tell is reported, never guessed.
import type { Token } from './lexer.js';

/** A table function call: its dotted name as written (quoted parts unquoted), and its first argument if a string. */
interface FunctionCall {
  name: string;
  /** The string literal it takes first (`table_history('Lake.orders')`), if it does. */
  firstString?: string;
}

interface Reads {
  /** Each table function called; `undefined` for a `TABLE(` not followed by a function's name. */
  calls: (FunctionCall | undefined)[];
  /** Each table or view named where a table goes (FROM, JOIN, a comma of a FROM clause, DESCRIBE, SHOW … IN). */
  tables: string[][];
  /** The names of the statement's own CTEs (`WITH x AS (…)`): what a one-part table name may stand for. */
  ctes: Set<string>;
  /** A SHOW without IN/FROM: it reads about the whole catalog. */
  wholeCatalog: boolean;
  /**
   * A statement that writes (allowed with --allow-writes): the table, view or folder it changes, if dlake can
   * tell (`INSERT INTO x`, `DROP TABLE IF EXISTS x`…); `null` for one whose target it cannot tell.
   */
  target?: string[] | null;
}

/** Statements that change what they name next, after any of WRITE_FILLERS. */
const WRITES = new Set([
  'INSERT',
  'UPSERT',
  'UPDATE',
  'DELETE',
  'MERGE',
  'CREATE',
  'DROP',
  'ALTER',
  'TRUNCATE',
  'OPTIMIZE',
  'VACUUM',
  'COPY',
]);
const WRITE_FILLERS = new Set([
  'INTO',
  'FROM',
  'TABLE',
  'VIEW',
  'VDS',
  'PDS',
  'FOLDER',
  'SPACE',
  'OR',
  'REPLACE',
  'IF',
  'NOT',
  'EXISTS',
]);
const READS = new Set(['SELECT', 'WITH', 'VALUES', 'SHOW', 'DESCRIBE', 'DESC', 'EXPLAIN']);

/** Words that end a query block's FROM clause. */
const AFTER_FROM = new Set([
  'WHERE',
  'GROUP',
  'HAVING',
  'ORDER',
  'LIMIT',
  'OFFSET',
  'FETCH',
  'QUALIFY',
  'WINDOW',
  'UNION',
  'INTERSECT',
  'EXCEPT',
  'MINUS',
  'SELECT',
  'VALUES',
]);

const isName = (t: Token | undefined) => t?.kind === 'word' || t?.kind === 'identifier';
const isSymbol = (t: Token | undefined, s: string) => t?.kind === 'symbol' && t.text === s;
const isWord = (t: Token | undefined, w: string) => t?.kind === 'word' && t.text.toUpperCase() === w;

/** The dotted name starting at `k` (`a."b".c`), and the index after it. */
function nameAt(tokens: readonly Token[], k: number): { parts: string[]; next: number } | undefined {
  if (!isName(tokens[k])) return undefined;
  const parts = [tokens[k]!.text];
  let j = k + 1;
  while (isSymbol(tokens[j], '.') && isName(tokens[j + 1])) {
    parts.push(tokens[j + 1]!.text);
    j += 2;
  }
  return { parts, next: j };
}

/**
 * What the statement `tokens` reads. Table functions: each `TABLE(name(…))`, and each `name(…)` where a table
 * goes, so that a call without TABLE is seen too. Where a table goes: after FROM or JOIN of a query block (a
 * SELECT's; `EXTRACT(YEAR FROM d)` is no table), or after a comma of its FROM clause.
 */
export function statementReads(tokens: readonly Token[]): Reads {
  const reads: Reads = { calls: [], tables: [], ctes: new Set(), wholeCatalog: false };
  const call = (k: number): number => {
    const name = nameAt(tokens, k);
    if (!name || !isSymbol(tokens[name.next], '(')) return -1;
    const arg = tokens[name.next + 1];
    reads.calls.push({
      name: name.parts.join('.'),
      ...(arg?.kind === 'string' &&
      (isSymbol(tokens[name.next + 2], ',') || isSymbol(tokens[name.next + 2], ')'))
        ? { firstString: arg.text }
        : {}),
    });
    return name.next;
  };
  const first = tokens.find((t) => !isSymbol(t, '('));
  const lead = first?.kind === 'word' ? first.text.toUpperCase() : '';
  if (lead === 'DESCRIBE' || lead === 'DESC') {
    const at = tokens.indexOf(first!) + 1;
    const name = nameAt(tokens, isWord(tokens[at], 'TABLE') || isWord(tokens[at], 'VIEW') ? at + 1 : at);
    if (name) reads.tables.push(name.parts);
  }
  if (!READS.has(lead)) {
    let at = tokens.indexOf(first!) + 1;
    while (tokens[at]?.kind === 'word' && WRITE_FILLERS.has(tokens[at]!.text.toUpperCase())) at++;
    const name = WRITES.has(lead) ? nameAt(tokens, at) : undefined;
    reads.target = name ? name.parts : null;
  }
  if (lead === 'SHOW') {
    const at = tokens.findIndex((t) => isWord(t, 'IN') || isWord(t, 'FROM'));
    const name = at < 0 ? undefined : nameAt(tokens, at + 1);
    if (name) reads.tables.push(name.parts);
    else reads.wholeCatalog = true;
    return reads;
  }
  // Per parenthesis depth: whether a SELECT began a query block there, and whether its FROM clause is open.
  const blocks = [{ select: false, from: false }];
  let tableHere = false;
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    const block = blocks.at(-1)!;
    const word = t.kind === 'word' ? t.text.toUpperCase() : '';
    // `WITH x AS (`, `, y (a, b) AS (`: the statement's own names.
    if (
      isName(t) &&
      (isWord(tokens[k - 1], 'WITH') || isWord(tokens[k - 1], 'RECURSIVE') || isSymbol(tokens[k - 1], ','))
    ) {
      let j = k + 1;
      if (isSymbol(tokens[j], '(')) while (j < tokens.length && !isSymbol(tokens[j], ')')) j++;
      if (isWord(tokens[isSymbol(tokens[k + 1], '(') ? j + 1 : k + 1], 'AS'))
        reads.ctes.add(t.text.toUpperCase());
    }
    if (word === 'TABLE' && isSymbol(tokens[k + 1], '(')) {
      const at = isWord(tokens[k + 2], 'SPECIFIC') ? k + 3 : k + 2;
      if (call(at) < 0) reads.calls.push(undefined);
      tableHere = false;
      continue;
    }
    if (tableHere && isName(t) && word !== 'LATERAL' && word !== 'UNNEST') {
      if (call(k) < 0) {
        const name = nameAt(tokens, k)!;
        reads.tables.push(name.parts);
        k = name.next - 1;
      }
      tableHere = false;
      continue;
    }
    if (isSymbol(t, '(')) {
      blocks.push({ select: false, from: false });
      tableHere = false;
    } else if (isSymbol(t, ')')) {
      if (blocks.length > 1) blocks.pop();
    } else if (word === 'SELECT') {
      block.select = true;
      block.from = false;
    } else if (block.select && (word === 'FROM' || word === 'JOIN')) {
      block.from = true;
      tableHere = true;
    } else if (block.from && isSymbol(t, ',')) tableHere = true;
    else if (AFTER_FROM.has(word)) block.from = false;
    if (word !== 'LATERAL' && word !== 'FROM' && word !== 'JOIN' && !isSymbol(t, ',')) tableHere = false;
  }
  return reads;
}
