// Widths on a terminal: the width that output is fitted to (COLUMNS when set, as ls, git and gh honour it,
// else the terminal's own, else undefined: not a terminal, nothing is cut), and the columns a text takes there.

export function terminalWidth(
  stream: { isTTY?: boolean; columns?: number },
  env: NodeJS.ProcessEnv,
): number | undefined {
  if (!stream.isTTY) return undefined;
  const fromEnv = env.COLUMNS?.trim();
  if (fromEnv && /^\d+$/.test(fromEnv) && Number(fromEnv) > 0) return Number(fromEnv);
  return stream.columns && stream.columns > 0 ? stream.columns : undefined;
}

/** Printable ASCII only: one column a character (nearly every cell, measured without a look at each). */
const PLAIN_ASCII = /^[\x20-\x7e]*$/;
/** Characters that take no column of their own: combining marks, and the joiner inside an emoji sequence. */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\u200c\u200d]$/u;
/**
 * Characters that take two columns: East Asian wide and fullwidth forms (Hangul, CJK, kana, fullwidth
 * Latin) and emoji shown as pictures, as terminals draw them (the ranges of wcwidth).
 */
const DOUBLE_WIDTH =
  /^(?:[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{2fffd}\u{30000}-\u{3fffd}]|\p{Emoji_Presentation})$/u;

function charWidth(c: string): number {
  if (ZERO_WIDTH.test(c)) return 0;
  return DOUBLE_WIDTH.test(c) ? 2 : 1;
}

/**
 * The columns `text` takes on a terminal: the one measure of tables, records and cut text, so that what is
 * fitted is what is drawn. Text made terminal-safe first (safe-text.ts): control characters are symbols.
 */
export function displayWidth(text: string): number {
  if (PLAIN_ASCII.test(text)) return text.length;
  let width = 0;
  for (const c of text) width += charWidth(c);
  return width;
}

/** `text` cut to `width` columns, the last one an ellipsis when something was cut. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 1) return '…'.slice(0, Math.max(0, width));
  let kept = '';
  let used = 0;
  for (const c of text) {
    const w = charWidth(c);
    if (used + w > width - 1) break;
    kept += c;
    used += w;
  }
  return `${kept}…`;
}

/**
 * `text` in lines of at most `width` columns, broken at spaces (a word longer than that stands alone): help-like
 * text on a terminal (the SQL shell's `\\?`, doctor's findings).
 */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && displayWidth(line) + 1 + displayWidth(word) > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines;
}
