// Text from the service or the user on its way to a terminal (docs/cli-contract.md "Errors" and "Output
// bounds"): control characters become visible symbols, so that no message, notice or label can ring the bell,
// restyle the terminal, move its cursor or rewrite a line already shown; characters that are invisible or that
// reorder the line (zero-width spaces and joiners, bidirectional overrides and isolates, the rest of Unicode's
// format characters, line and paragraph separators) become `<U+XXXX>`, so that `Sales/zero<U+200B>width` cannot
// pass for `Sales/zerowidth` and a right-to-left override cannot reverse what follows it. Tables do the same to
// every cell (render.ts), and so does CSV written to a terminal.

/** The visible symbol of one control character: ␀ … ␟ for C0 (tab is ␉), ␡ for DEL, � for the C1 controls. */
function symbolOf(c: string): string {
  const code = c.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  return code === 0x7f ? '␡' : '\ufffd';
}

/** Unicode's format characters (Cf: zero-width, bidirectional, tags, …) and the line and paragraph separators. */
const INVISIBLE = '\\p{Cf}\\u2028\\u2029';
const ZWNJ = 0x200c;
const ZWJ = 0x200d;

/** An invisible character as `<U+XXXX>`. */
function codeOf(c: string): string {
  return `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/**
 * Whether the character at `at` is a joiner doing its job: ZWJ and ZWNJ between two characters beyond ASCII
 * shape emoji sequences (👩‍💻) and Persian and Indic words. Between ASCII characters they only hide a difference.
 */
function joining(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  if (code !== ZWJ && code !== ZWNJ) return false;
  return at > 0 && text.charCodeAt(at - 1) > 0x7f && text.charCodeAt(at + 1) > 0x7f;
}

const CELL_UNSAFE = new RegExp(`\\r\\n|\\p{Cc}|[${INVISIBLE}]`, 'gu');
const LINES_UNSAFE = new RegExp(`[^\\P{Cc}\\n\\t]|[${INVISIBLE}]`, 'gu');

function visible(c: string, at: number, text: string): string {
  if (c.length > 1 || c.charCodeAt(0) >= 0xa0) return joining(text, at) ? c : codeOf(c);
  return symbolOf(c);
}

/** A cell as one line: line breaks (CR, LF, CRLF) shown as ⏎, other control and invisible characters visibly. */
export function terminalSafe(text: string): string {
  return text.replace(CELL_UNSAFE, (c, at: number, all: string) =>
    c === '\r\n' || c === '\r' || c === '\n' ? '⏎' : visible(c, at, all),
  );
}

/**
 * Lines for a terminal (stderr, CSV on a TTY): line feeds and tabs are kept (a message may span lines), every
 * other control character (ESC, BEL, CR, backspace, the C1 controls) is shown as a symbol, every invisible one
 * as `<U+XXXX>`.
 */
export function stderrSafe(text: string): string {
  return text.replace(LINES_UNSAFE, visible).replace(OWN_LABEL, '\n  ');
}

/** A line that text from elsewhere starts with one of dlake's own labels: indented, so it cannot pass for one. */
const OWN_LABEL = /\n(?=(?:error|warning|hint|usage|debug):)/g;

/**
 * A labelled line's text (`error:`, `warning:`, `hint:`, a detail) for stderr: made safe as `stderrSafe` does,
 * its own line breaks (a service's multi-line message) kept but each following line indented, so that no line
 * of the service's text can pass for one of dlake's own (`error: …`, `hint: …`).
 */
export function labelSafe(text: string): string {
  return stderrSafe(text).replace(/\n(?!$)/g, '\n  ');
}

const JSON_UNSAFE = new RegExp(`[\\u0080-\\u009f${INVISIBLE}]`, 'gu');

/**
 * JSON text for a terminal: the same JSON (the same values), with the C1 controls and the invisible and
 * reordering characters that JSON.stringify leaves as they are written as `\uXXXX` escapes, so that a value
 * cannot restyle the terminal or reverse what follows it. Only strings can hold them, where an escape is the
 * same character to every JSON reader.
 */
export function jsonTerminalSafe(text: string): string {
  return text.replace(JSON_UNSAFE, (c, at: number, all: string) =>
    joining(all, at)
      ? c
      : [...Array(c.length).keys()]
          .map((i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`)
          .join(''),
  );
}

/** How much of an error or warning is shown without -v: a service can send a page of text as a message. */
const MESSAGE_LIMIT = 2000;

/** `text` cut at `limit` characters, saying how much more -v shows; whole with `verbose`. */
export function bounded(text: string, verbose: boolean, limit = MESSAGE_LIMIT): string {
  if (verbose || text.length <= limit) return text;
  return `${text.slice(0, limit)}… (${text.length - limit} more characters; -v shows all)`;
}
