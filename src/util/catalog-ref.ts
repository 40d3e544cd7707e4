// The `<ref>` of a catalog entity (docs/cli-contract.md "Catalog references"): a UUID is an id; anything else
// is a `/`-separated path.
//
// Path syntax: a component that contains `/` or starts with `"` is wrapped in double quotes, each inner `"`
// doubled; any other component is written as is (dots, spaces and quotes in the middle are fine):
//   Sales/"a/b"               → ['Sales', 'a/b']
//   Sales/top "best".v2       → ['Sales', 'top "best".v2']
//   Sales/"top ""best"".v2"   → ['Sales', 'top "best".v2']
// One leading and one trailing `/` are tolerated and ignored (`/Sales/x/` is `Sales/x`): people paste
// filesystem-looking paths and shell completion appends a slash, and neither can be part of an unquoted name.
// An empty component (`a//b`) is an error; an empty name can only be written quoted (`a/""/b`).
import { UsageError } from '../errors.js';

export type CatalogRef = { kind: 'id'; id: string } | { kind: 'path'; path: string[] };

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const SIMPLE_SQL_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function isUuid(text: string): boolean {
  return UUID_RE.test(text);
}

/** An id when `input` is a UUID, else a path (see the syntax above). */
export function parseRef(input: string): CatalogRef {
  if (isUuid(input)) return { kind: 'id', id: input };
  return { kind: 'path', path: parsePath(input) };
}

/** `--id` makes any text an id (internal ids such as `service:/Samples/a b` are not UUIDs). */
export function parseRefWithId(input: string, forceId: boolean): CatalogRef {
  if (!forceId) return parseRef(input);
  if (input === '') throw new UsageError('an empty id is not a catalog id');
  return { kind: 'id', id: input };
}

function pathError(input: string, position: number, why: string): UsageError {
  // Two detail lines put a caret under the offending character.
  return new UsageError(`invalid catalog path "${input}": ${why} at position ${position + 1}`, {
    details: [input, `${' '.repeat(position)}^`],
    hint: 'quote a component that contains / or starts with ", doubling inner quotes: Sales/"a/b", Sales/"x ""y"""',
  });
}

/** The components of a path ref; throws a UsageError that points at the position of a syntax error. */
export function parsePath(input: string): string[] {
  if (input === '' || input === '/') throw new UsageError('an empty catalog path names nothing');
  let pos = input.startsWith('/') ? 1 : 0;
  const end = input.endsWith('/') && input.length > pos ? input.length - 1 : input.length;
  const path: string[] = [];
  for (;;) {
    const [component, next] = input[pos] === '"' ? readQuoted(input, pos, end) : readBare(input, pos, end);
    path.push(component);
    if (next >= end) return path;
    pos = next + 1; // past the `/`
    // A trailing `/` was cut off above, so a `/` at the end here means `a//`, an empty component.
    if (pos >= end) throw pathError(input, next, 'empty component (two slashes in a row)');
  }
}

/** An unquoted component: up to the next `/`. Returns the component and the index of that `/` (or `end`). */
function readBare(input: string, start: number, end: number): [string, number] {
  const slash = input.indexOf('/', start);
  const stop = slash === -1 || slash > end ? end : slash;
  if (stop === start) throw pathError(input, start, 'empty component (two slashes in a row)');
  return [input.slice(start, stop), stop];
}

/** A quoted component starting at the `"` at `start`; `""` inside stands for one `"`. */
function readQuoted(input: string, start: number, end: number): [string, number] {
  let text = '';
  let pos = start + 1;
  for (;;) {
    const quote = input.indexOf('"', pos);
    // The closing quote may sit at `end` only if `end` is a cut-off trailing `/`; it never is, so search all.
    if (quote === -1) throw pathError(input, start, 'the quote opened here is never closed');
    text += input.slice(pos, quote);
    if (input[quote + 1] === '"') {
      text += '"';
      pos = quote + 2;
      continue;
    }
    const after = quote + 1;
    if (after < end && input[after] !== '/') {
      throw pathError(input, after, 'a closing quote must be followed by / or the end of the path');
    }
    return [text, Math.min(after, end)];
  }
}

function needsQuotes(component: string): boolean {
  return component === '' || component.includes('/') || component.startsWith('"');
}

function quote(component: string): string {
  return `"${component.replaceAll('"', '""')}"`;
}

/**
 * The printed form of a path, which parses back to the same components. A component is quoted only when it
 * must be: it contains `/`, starts with `"` or is empty — or it is a lone component that looks like a UUID,
 * which would otherwise be read back as an id.
 */
export function formatPath(path: readonly string[]): string {
  if (path.length === 1 && isUuid(path[0]!)) return quote(path[0]!);
  return path.map((c) => (needsQuotes(c) ? quote(c) : c)).join('/');
}

/**
 * The service's SQL name of a dataset: components joined by `.`, each double-quoted (inner `"` doubled) unless
 * it is a simple identifier. Reserved words (a table named `select`) are not detected and stay unquoted.
 */
export function toSqlIdentifier(path: readonly string[]): string {
  return path.map((c) => (SIMPLE_SQL_IDENTIFIER.test(c) ? c : quote(c))).join('.');
}
