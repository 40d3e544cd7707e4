// Text from the service or the user on its way to a terminal (docs/cli-contract.md "Errors"): control
// characters become visible symbols, so that no message, notice or label can ring the bell, restyle the
// terminal, move its cursor or rewrite a line already shown. Tables do the same to every cell (render.ts).

/** The visible symbol of one control character: ␀ … ␟ for C0 (tab is ␉), ␡ for DEL, � for the C1 controls. */
function symbolOf(c: string): string {
  const code = c.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  return code === 0x7f ? '␡' : '\ufffd';
}

/** A cell as one line: line breaks (CR, LF, CRLF) shown as ⏎, other control characters as symbols. */
export function terminalSafe(text: string): string {
  return text.replace(/\r\n|\p{Cc}/gu, (c) => (c === '\r\n' || c === '\r' || c === '\n' ? '⏎' : symbolOf(c)));
}

/**
 * Lines for stderr: line feeds and tabs are kept (a message may span lines), every other control character
 * (ESC, BEL, CR, backspace, the C1 controls) is shown as a symbol.
 */
export function stderrSafe(text: string): string {
  return text.replace(/[^\P{Cc}\n\t]/gu, symbolOf);
}

/** How much of an error or warning is shown without -v: a service can send a page of text as a message. */
const MESSAGE_LIMIT = 2000;

/** `text` cut at `limit` characters, saying how much more -v shows; whole with `verbose`. */
export function bounded(text: string, verbose: boolean, limit = MESSAGE_LIMIT): string {
  if (verbose || text.length <= limit) return text;
  return `${text.slice(0, limit)}… (${text.length - limit} more characters; -v shows all)`;
}
