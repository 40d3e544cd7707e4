// Splits SQL text into statements on `;`, the way the service's parser sees the text: a `;` inside a
// string literal ('it''s'), a quoted identifier ("a;b", `a;b`), a line comment (-- …) or a block comment
// (/* … */) separates nothing. Used by `dlake sql -f` and by the shell to know when a statement is complete.

interface Statement {
  /** The statement's text without its `;`, trimmed; comments inside it are kept (the service ignores them). */
  text: string;
  /** 1-based line of the statement's first character that is neither blank nor comment. */
  line: number;
}

/** Where the scanner stands at the end of the text: inside nothing, or inside an unfinished token. */
type Inside = 'nothing' | 'string' | 'identifier' | 'comment';

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

const QUOTES: Record<string, Inside> = { "'": 'string', '"': 'identifier', '`': 'identifier' };

export function splitSql(source: string): Split {
  const statements: Statement[] = [];
  let start = 0; // where the current statement's text starts
  let firstCodeLine = 0; // its first line with code, 0 while it has none
  let line = 1;
  let inside: Inside = 'nothing';
  let i = 0;
  const n = source.length;
  const finish = (end: number): Statement | undefined => {
    const text = source.slice(start, end).trim();
    return firstCodeLine ? { text, line: firstCodeLine } : undefined;
  };
  while (i < n) {
    const c = source[i]!;
    if (c === '\n') {
      line++;
      i++;
      continue;
    }
    if (c === '-' && source[i + 1] === '-') {
      while (i < n && source[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && source[i + 1] === '*') {
      const close = source.indexOf('*/', i + 2);
      const end = close < 0 ? n : close + 2;
      line += countNewlines(source, i, end);
      i = end;
      if (close < 0) inside = 'comment';
      continue;
    }
    if (QUOTES[c]) {
      if (!firstCodeLine) firstCodeLine = line;
      const { end: j, closed } = quotedEnd(source, i);
      if (!closed) inside = QUOTES[c]!;
      line += countNewlines(source, i, j);
      i = j;
      continue;
    }
    if (c === ';') {
      const s = finish(i);
      if (s) statements.push(s);
      start = i + 1;
      firstCodeLine = 0;
      i++;
      continue;
    }
    if (!firstCodeLine && !/\s/.test(c)) firstCodeLine = line;
    i++;
  }
  const rest = finish(n);
  return { statements, ...(rest ? { rest } : {}), inside, tail: source.slice(start) };
}

/** The end of the quoted token opening at `from` (a doubled quote inside it is the quote itself). */
function quotedEnd(text: string, from: number): { end: number; closed: boolean } {
  const quote = text[from]!;
  let j = from + 1;
  for (;;) {
    const close = text.indexOf(quote, j);
    if (close < 0) return { end: text.length, closed: false };
    if (text[close + 1] !== quote) return { end: close + 1, closed: true };
    j = close + 2;
  }
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let k = from; k < to; k++) if (text.charCodeAt(k) === 10) count++;
  return count;
}

/**
 * The statement on one line, for the shell's history: line comments dropped (joined lines would turn the
 * rest into comment), line breaks outside quotes become spaces.
 */
export function oneLine(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '-' && text[i + 1] === '-') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      const j = close < 0 ? text.length : close + 2;
      out += text.slice(i, j).replace(/\s+/g, ' ');
      i = j;
      continue;
    }
    if (QUOTES[c]) {
      const j = quotedEnd(text, i).end;
      out += text.slice(i, j);
      i = j;
      continue;
    }
    // Runs of blanks outside quotes become one space.
    if (/\s/.test(c)) {
      if (!out.endsWith(' ')) out += ' ';
    } else out += c;
    i++;
  }
  return out.trim();
}

/** A bare word of a statement (a keyword or an unquoted name), upper-cased, with how deep in parentheses. */
export interface Word {
  word: string;
  depth: number;
}

/**
 * A token of a statement, comments left out: a bare word (keyword or unquoted name), a string literal or a
 * quoted identifier (`text` is its content, doubled quotes undone), or any other character (`symbol`).
 */
export interface Token {
  kind: 'word' | 'string' | 'identifier' | 'symbol';
  text: string;
}

/**
 * The tokens of `text`, scanned as splitSql scans it: comments (`--`, `/* *\/`) separate tokens and are
 * dropped, so `IDENTIFIED/**\/BY` is two words, and what is quoted is one token. Blanks are dropped too.
 */
export function sqlTokens(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '-' && text[i + 1] === '-') {
      while (i < n && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      i = close < 0 ? n : close + 2;
    } else if (QUOTES[c]) {
      const { end, closed } = quotedEnd(text, i);
      const inner = text.slice(i + 1, closed ? end - 1 : end).replaceAll(c + c, c);
      tokens.push({ kind: c === "'" ? 'string' : 'identifier', text: inner });
      i = end;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_$]/.test(text[j]!)) j++;
      tokens.push({ kind: 'word', text: text.slice(i, j) });
      i = j;
    } else {
      if (!/\s/.test(c)) tokens.push({ kind: 'symbol', text: c });
      i++;
    }
  }
  return tokens;
}

/**
 * The bare words of `text`, skipping string literals, quoted identifiers and comments as splitSql does: what
 * a check of the statement's kind must read (`/* INSERT *\/ SELECT 1` is a SELECT; `SELECT 'DROP'` drops
 * nothing).
 */
export function bareWords(text: string): Word[] {
  const words: Word[] = [];
  let depth = 0;
  for (const token of sqlTokens(text)) {
    if (token.kind === 'word') words.push({ word: token.text.toUpperCase(), depth });
    else if (token.kind === 'symbol' && token.text === '(') depth++;
    else if (token.kind === 'symbol' && token.text === ')') depth = Math.max(0, depth - 1);
  }
  return words;
}
