// The one reader of SQL text that dlake has: where each comment, string literal, quoted name and statement
// begins and ends, read as the service's SQL parser reads it (docs/api-facts.md §4.5). Statement splitting
// (`dlake sql -f`, the shell), the read-only rule (src/sql/read-only.ts) and the shell's history filter all
// read through it, so that they cannot disagree with each other or with the engine.
//
// It also notes each place where SQL readers disagree (`doubts`): text the engine reads one way and another
// common reader (PostgreSQL-family parsers, editors) another. Splitting ignores them; the read-only rule
// refuses a statement with one, since it cannot be sure which reading the text will meet.

type TokenKind = 'word' | 'string' | 'identifier' | 'symbol';

export interface Token {
  kind: TokenKind;
  /** A word as written; a string's or quoted name's content with doubled quotes undone; a symbol's characters. */
  text: string;
  /** Offsets in the source: [start, end). */
  start: number;
  end: number;
  /** 1-based line of `start`. */
  line: number;
  /** A quoted name's quote (`"` or `` ` ``). */
  quote?: string;
}

/** Where the text ends: inside nothing, or inside an unfinished string, quoted name or block comment. */
export type Inside = 'nothing' | 'string' | 'identifier' | 'comment';

interface Comment {
  start: number;
  end: number;
  /** `--` (or `//`) to the end of the line, or `/* … *\/`. */
  kind: 'line' | 'block';
}

/** A place where the engine's reading is not every reader's. */
interface Doubt {
  at: number;
  /** What it is, for a refusal: "a `//` comment (…)". */
  what: string;
}

export interface Lexed {
  tokens: Token[];
  comments: Comment[];
  inside: Inside;
  doubts: Doubt[];
}

/**
 * The engine's whitespace (space, tab, LF, CR, form feed) and the rest of JavaScript's: those the engine does not
 * know fail its lexer, so they separate nothing that could run.
 */
const SPACE = /\s/;
/** The engine ends a line comment at LF or CR (CRLF is one line end); nothing else ends it. */
const isLineEnd = (c: string | undefined): boolean => c === '\n' || c === '\r';
/** Characters that some readers take for a line end and the engine does not (vertical tab, NEL, U+2028, …). */
const OTHER_LINE_ENDS = /[\v\f\x1c-\x1e\x85\u2028\u2029]/;
/** The engine's letters and digits (its IDENTIFIER token: a letter, then letters and digits); `$` is a letter. */
const LETTER =
  /[$A-Z_a-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff\u0100-\u1fff\u3040-\u318f\u3300-\u337f\u3400-\u3d2d\u4e00-\u9fff\uf900-\ufaff]/;
const LETTER_OR_DIGIT =
  /[$A-Z_a-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff\u0100-\u1fff\u3040-\u318f\u3300-\u337f\u3400-\u3d2d\u4e00-\u9fff\uf900-\ufaff0-9\u0660-\u0669\u06f0-\u06f9\u0966-\u096f\u09e6-\u09ef\u0a66-\u0a6f\u0ae6-\u0aef\u0b66-\u0b6f\u0be7-\u0bef\u0c66-\u0c6f\u0ce6-\u0cef\u0d66-\u0d6f\u0e50-\u0e59\u0ed0-\u0ed9\u1040-\u1049]/;

export function lex(source: string): Lexed {
  const tokens: Token[] = [];
  const comments: Comment[] = [];
  const doubts: Doubt[] = [];
  let inside: Inside = 'nothing';
  let line = 1;
  const n = source.length;
  /** Counts the line ends in [from, to): LF, CR, and CRLF as one. */
  const advanceLines = (from: number, to: number) => {
    for (let k = from; k < to; k++) {
      const c = source.charCodeAt(k);
      if (c === 10 || (c === 13 && source.charCodeAt(k + 1) !== 10)) line++;
    }
  };
  let i = 0;
  while (i < n) {
    const c = source[i]!;
    const next = source[i + 1];
    if (SPACE.test(c)) {
      advanceLines(i, i + 1);
      i++;
      continue;
    }
    // Line comments: `--` and, for the engine, `//` too; to LF or CR, which stays outside the comment.
    if ((c === '-' && next === '-') || (c === '/' && next === '/')) {
      let j = i + 2;
      while (j < n && !isLineEnd(source[j])) j++;
      comments.push({ start: i, end: j, kind: 'line' });
      if (c === '/')
        doubts.push({
          at: i,
          what: 'a `//` comment (the engine reads `//` as a comment, most SQL readers do not)',
        });
      const other = source.slice(i, j).search(OTHER_LINE_ENDS);
      if (other >= 0)
        doubts.push({
          at: i + other,
          what: `a line comment holding U+${source
            .charCodeAt(i + other)
            .toString(16)
            .toUpperCase()
            .padStart(4, '0')}, which some SQL readers take for a line end and the engine does not`,
        });
      i = j;
      continue;
    }
    // Block comments end at the first `*/`: the engine does not nest them (PostgreSQL-family readers do).
    if (c === '/' && next === '*') {
      const close = source.indexOf('*/', i + 2);
      const end = close < 0 ? n : close + 2;
      comments.push({ start: i, end, kind: 'block' });
      // `/*+` opens a hint, which the engine reads as code and other readers as a comment: split as a comment.
      if (source[i + 2] === '+')
        doubts.push({
          at: i,
          what: 'a `/*+` hint (the engine reads it as code, other SQL readers as a comment)',
        });
      const nested = source.indexOf('/*', i + 2);
      if (nested >= 0 && (close < 0 || nested < close))
        doubts.push({
          at: nested,
          what: 'a `/*` inside a block comment (the engine does not nest comments, other SQL readers do)',
        });
      advanceLines(i, end);
      if (close < 0) inside = 'comment';
      i = end;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') {
      const { end, closed } = quotedEnd(source, i);
      const text = source.slice(i + 1, closed ? end - 1 : end).replaceAll(c + c, c);
      const token: Token =
        c === "'"
          ? { kind: 'string', text, start: i, end, line }
          : { kind: 'identifier', text, start: i, end, line, quote: c };
      const before = tokens.at(-1);
      const prefix = before?.end === i && before.kind === 'word' ? before.text.toUpperCase() : '';
      if (c === "'" && prefix === 'E' && text.includes('\\'))
        doubts.push({
          at: i,
          what: "an E'…' string with a backslash (readers differ on whether the backslash escapes a quote)",
        });
      if (c === '`')
        doubts.push({
          at: i,
          what: 'a back-quoted name (the engine quotes names with double quotes; back-quotes only on servers set to)',
        });
      if (c === '"' && /[\n\r]/.test(text))
        doubts.push({
          at: i,
          what: 'a quoted name with a line break (the engine does not read it as a name)',
        });
      if (c === '"' && before?.end === i && before.text === '&' && tokens.at(-2)?.text.toUpperCase() === 'U')
        doubts.push({ at: i, what: 'a U&"…" name (its escapes can spell any name)' });
      tokens.push(token);
      if (!closed) inside = c === "'" ? 'string' : 'identifier';
      advanceLines(i, end);
      i = end;
      continue;
    }
    if (LETTER.test(c)) {
      let j = i + 1;
      while (j < n && LETTER_OR_DIGIT.test(source[j]!)) j++;
      if (c === '$')
        doubts.push({
          at: i,
          what: 'a name starting with `$` (PostgreSQL-family readers quote text with `$…$`)',
        });
      tokens.push({ kind: 'word', text: source.slice(i, j), start: i, end: j, line });
      i = j;
      continue;
    }
    tokens.push({ kind: 'symbol', text: c, start: i, end: i + 1, line });
    i++;
  }
  return { tokens, comments, inside, doubts };
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
