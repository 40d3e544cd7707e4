// Tab completion in the SQL shell: SQL keywords, backslash commands, catalog paths written the SQL way
// (`Samples.sales."2024.csv"`), and column names: those of the tables the statement reads (FROM, JOIN), or of
// the dataset a dotted path names. A container's children are listed the first time they are asked for and
// kept for the session; a listing that fails completes nothing (Tab must never print an error).
import { terminalSafe } from '../output/safe-text.js';
import { lex } from '../sql/lexer.js';
import { statementReads } from '../sql/reads.js';
import type { CatalogCache, Field } from './catalog-cache.js';

const KEYWORDS = [
  'ALL',
  'ALTER',
  'AND',
  'AS',
  'ASC',
  'BETWEEN',
  'BY',
  'CASE',
  'CAST',
  'COUNT',
  'CREATE',
  'CROSS',
  'DELETE',
  'DESC',
  'DESCRIBE',
  'DISTINCT',
  'DROP',
  'ELSE',
  'END',
  'EXISTS',
  'EXPLAIN',
  'FALSE',
  'FETCH',
  'FIRST',
  'FROM',
  'FULL',
  'GROUP',
  'HAVING',
  'IN',
  'INNER',
  'INSERT',
  'INTO',
  'IS',
  'JOIN',
  'LEFT',
  'LIKE',
  'LIMIT',
  'MAX',
  'MIN',
  'NOT',
  'NULL',
  'NULLS',
  'OFFSET',
  'ON',
  'OR',
  'ORDER',
  'OUTER',
  'OVER',
  'PARTITION',
  'RIGHT',
  'SELECT',
  'SET',
  'SHOW',
  'SUM',
  'TABLE',
  'TABLES',
  'THEN',
  'TRUE',
  'UNION',
  'UPDATE',
  'USE',
  'USING',
  'VALUES',
  'VIEW',
  'WHEN',
  'WHERE',
  'WITH',
] as const;

/** Lists the names of a container's children (`[]` for the top level: homes, spaces and sources). */
type ListNames = (path: readonly string[]) => Promise<string[]>;

/**
 * Column names for Tab: with no path, those of the tables the statement being typed reads; with a path, those
 * of the dataset it names (none when it is a container). `word` is what Tab completes (not a table yet).
 */
type ListColumns = (path: readonly string[], word: string) => Promise<string[]>;

/**
 * The tables a statement reads (after FROM and JOIN, as the statement reader finds them: src/sql/reads.ts), each as
 * its path components, in the order written, once each.
 */
export function tablesRead(statement: string): string[][] {
  const paths: string[][] = [];
  for (const path of statementReads(lex(statement).tokens).tables) {
    if (!paths.some((p) => p.join('\0').toLowerCase() === path.join('\0').toLowerCase())) paths.push(path);
  }
  return paths;
}

const SIMPLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A name as SQL needs it: bare when it is a plain identifier, otherwise in double quotes (inner ones doubled). */
export function sqlName(name: string): string {
  return SIMPLE.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

/** The components of a dotted SQL path being typed; the last one may be an unfinished (quoted) prefix. */
export function dottedComponents(text: string): { parents: string[]; last: string } {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        current += '"';
        i++;
      } else if (c === '"') quoted = false;
      else current += c;
    } else if (c === '"') quoted = true;
    else if (c === '.') {
      parts.push(current);
      current = '';
    } else current += c;
  }
  return { parents: parts, last: current };
}

export class Completer {
  private readonly cache = new Map<string, Promise<string[]>>();

  constructor(
    private readonly list: ListNames,
    private readonly commands: readonly string[],
    private readonly columns: ListColumns = async () => [],
  ) {}

  /** readline's completer: the candidates for the word before the cursor, and that word. */
  async complete(line: string): Promise<[string[], string]> {
    if (/^\s*\\\S*$/.test(line)) {
      const word = line.trimStart();
      return [this.commands.filter((c) => c.startsWith(word)), word];
    }
    // The word being typed: a run of name characters, dots and quoted parts.
    const word = /(?:[A-Za-z0-9_$.]|"(?:[^"]|"")*"?)*$/.exec(line)?.[0] ?? '';
    const { parents, last } = dottedComponents(word);
    const lower = last.toLowerCase();
    const [names, columns] = await Promise.all([
      this.children(parents),
      this.columns(parents, word).catch(() => [] as string[]),
    ]);
    const prefix = parents.map(sqlName).join('.');
    // A name from the service reaches the terminal as every other text does (output/safe-text.ts): its control
    // and invisible characters shown, never written raw into the line readline echoes.
    const named = (list: readonly string[]) =>
      [...new Set(list)]
        .filter((n) => n.toLowerCase().startsWith(lower))
        .map((n) => terminalSafe(prefix ? `${prefix}.${sqlName(n)}` : sqlName(n)));
    const paths = named(names);
    if (parents.length > 0) return [[...paths, ...named(columns)], word];
    // Keywords in the case the word is typed in (upper case when nothing tells).
    const lowerCase = last !== '' && last === lower;
    const keywords = KEYWORDS.filter((k) => last !== '' && k.startsWith(last.toUpperCase())).map((k) =>
      lowerCase ? k.toLowerCase() : k,
    );
    return [[...keywords, ...named(columns), ...paths], word];
  }

  private children(path: readonly string[]): Promise<string[]> {
    const key = JSON.stringify(path);
    let names = this.cache.get(key);
    if (!names) {
      names = this.list(path).catch(() => {
        // Not cached: the next Tab may find the service back.
        this.cache.delete(key);
        return [];
      });
      this.cache.set(key, names);
    }
    return names;
  }
}

/**
 * Column names for Tab (the shell's ListColumns): with no path, those of the tables `statement` reads (a bare
 * table name looked for in the context first); with a path, those of the dataset it names, when its
 * container's listing (already read to complete the path) says it is one, so that completing a container's
 * children reads nothing more.
 */
export async function columnCandidates(
  catalog: CatalogCache,
  path: readonly string[],
  statement: string,
  context: readonly string[] = [],
): Promise<string[]> {
  const names = (fields: readonly Field[]) => fields.map((f) => f.name);
  if (path.length > 0) {
    const siblings = await catalog.children(path.slice(0, -1)).catch(() => []);
    const me = siblings.find((c) => (c.path.at(-1) ?? '').toLowerCase() === path.at(-1)!.toLowerCase());
    return me?.type === 'DATASET' ? names(await catalog.fields(path)) : [];
  }
  const fields = await Promise.all(
    tablesRead(statement).map(async (t) => {
      if (t.length === 1 && context.length > 0) {
        const inContext = await catalog.fields([...context, ...t]);
        if (inContext.length > 0) return inContext;
      }
      return catalog.fields(t);
    }),
  );
  return fields.flatMap(names);
}
