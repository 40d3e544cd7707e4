// Splits SQL text into statements on `;`, the way the service's parser sees the text (src/sql/lexer.ts reads
// it): a `;` inside a string literal ('it''s'), a quoted name ("a;b"), a line comment (-- … or // … to the next
// LF or CR) or a block comment (/* … */) separates nothing. Used by `dlake sql -f` and by the shell to know when
// a statement is complete.
import { type Inside, lex, type Token } from './lexer.js';

interface Statement {
  /** The statement's text without its `;`, trimmed; comments inside it are kept (the service ignores them). */
  text: string;
  /** 1-based line of the statement's first character that is neither blank nor comment. */
  line: number;
}

interface Split {
  /** Statements ended by `;`, without those holding only blanks and comments. */
  statements: Statement[];
  /** The text after the last `;` when it holds more than blanks and comments (a statement not yet ended). */
  rest?: Statement;
  /** What the text ends inside of: an unclosed quote or block comment makes `rest` unfinished. */
  inside: Inside;
  /** The raw text after the last `;` (the shell keeps it as the start of the next statement). */
  tail: string;
}

export function splitSql(source: string): Split {
  const { tokens, inside } = lex(source);
  const statements: Statement[] = [];
  let start = 0; // where the current statement's text starts
  let first: Token | undefined; // its first token
  for (const token of tokens) {
    if (token.kind === 'symbol' && token.text === ';') {
      if (first) statements.push({ text: source.slice(start, token.start).trim(), line: first.line });
      start = token.end;
      first = undefined;
    } else first ??= token;
  }
  const rest = first ? { text: source.slice(start).trim(), line: first.line } : undefined;
  return { statements, ...(rest ? { rest } : {}), inside, tail: source.slice(start) };
}

/**
 * The statement on one line, for the shell's history: line comments dropped (joined lines would turn the
 * rest into comment), line breaks outside quotes become spaces.
 */
export function oneLine(text: string): string {
  const { tokens, comments } = lex(text);
  const pieces = [
    ...tokens.map((t) => ({ start: t.start, text: text.slice(t.start, t.end) })),
    ...comments
      .filter((c) => c.kind === 'block')
      .map((c) => ({ start: c.start, text: text.slice(c.start, c.end).replace(/\s+/g, ' ') })),
  ].sort((a, b) => a.start - b.start);
  let out = '';
  let end = 0;
  for (const piece of pieces) {
    // Anything between two pieces (blanks, a line comment) becomes one space.
    if (piece.start > end && out !== '') out += ' ';
    out += piece.text;
    end = piece.start + piece.text.length;
  }
  return out;
}

/** A bare word of a statement (a keyword or an unquoted name), upper-cased, with how deep in parentheses. */
interface Word {
  word: string;
  depth: number;
}

/**
 * The tokens of `text`: comments (`--`, `/* *\/`) separate tokens and are dropped, so
 * `IDENTIFIED/**\/BY` is two words, and what is quoted is one token. Blanks are dropped too.
 */
export function sqlTokens(text: string): Token[] {
  return lex(text).tokens;
}

/**
 * The bare words of `tokens`, skipping string literals, quoted identifiers and comments: what a check of the
 * statement's kind must read (`/* INSERT *\/ SELECT 1` is a SELECT; `SELECT 'DROP'` drops nothing).
 */
export function bareWords(tokens: readonly Token[]): Word[] {
  const words: Word[] = [];
  let depth = 0;
  for (const token of tokens) {
    if (token.kind === 'word') words.push({ word: token.text.toUpperCase(), depth });
    else if (token.kind === 'symbol' && token.text === '(') depth++;
    else if (token.kind === 'symbol' && token.text === ')') depth = Math.max(0, depth - 1);
  }
  return words;
}
