// How rows and columns are laid out for a person (docs/cli-contract.md "Output bounds"): a borderless table,
// kubectl-style, fitted to the terminal by cutting free text only; or, when even so it does not fit, one record
// per block (`HEADER  value` lines, as psql's expanded mode shows rows). Every cell is measured once and every
// step is a pass over the cells or the columns: the work grows with the cells, never faster.
import type { Theme } from './color.js';
import { terminalSafe } from './safe-text.js';
import { displayWidth, truncate } from './width.js';

/** Cells made terminal-safe and measured, ready to lay out. */
interface Grid {
  headers: string[];
  /** Each row's cells (terminal-safe text), in the order of `headers`. */
  rows: string[][];
  /** The display width of every cell, row after row. */
  widths: Uint32Array;
  /** The width each column needs to show its whole text, header included. */
  natural: number[];
  /** The width below which a column would cut data: its widest cell that is not free text. */
  floor: number[];
}

/** Columns that are pasted back into commands: cutting them would make them useless. */
const WHOLE_COLUMNS = /^(ID|TAG|TID|VERSION|NAME|PATH|STATE|STATUS|TYPE|URL)$/;
/** Narrowest a cut column gets. */
const MIN_CUT_WIDTH = 8;
const GAP = 2;

/**
 * Free text, the only text a table may cut: a string of several words (a description, a message, a body). Not
 * free text, so never cut: numbers, booleans, nested values (JSON), and any string of one word (an id, a
 * number as text, a path, a URL, a hash), a timestamp or a quantity with its unit (`2024-05-01 10:00:00`,
 * `1.5 GiB`, `2m 3s`).
 */
function isFreeText(value: unknown): boolean {
  return typeof value === 'string' && /\s/.test(value) && !SPACED_DATA.test(value);
}

const SPACED_DATA =
  /^(?:\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?: ?(?:Z|UTC|[+-]\d{2}:?\d{2}))?|[-+]?\d[\d.,]*(?:[eE][-+]?\d+)? ?[A-Za-zµ%]{0,5}|(?:\d+(?:\.\d+)? ?[a-zµ]{1,3} ?)+)$/;

/** Measures the cells of `rows` (each a list of values and their text, in the order of `headers`). */
export function gridOf(
  headers: readonly string[],
  values: readonly (readonly unknown[])[],
  text: (v: unknown) => string,
): Grid {
  const cols = headers.length;
  const safeHeaders = headers.map(terminalSafe);
  const natural = safeHeaders.map(displayWidth);
  const whole = headers.map((h) => WHOLE_COLUMNS.test(h));
  const floor = natural.map((w, c) => (whole[c] ? w : Math.min(w, MIN_CUT_WIDTH)));
  const widths = new Uint32Array(values.length * cols);
  const rows = new Array<string[]>(values.length);
  for (let r = 0; r < values.length; r++) {
    const row = values[r]!;
    const cells = new Array<string>(cols);
    for (let c = 0; c < cols; c++) {
      const value = row[c];
      const cell = terminalSafe(text(value));
      const w = displayWidth(cell);
      cells[c] = cell;
      widths[r * cols + c] = w;
      if (w > natural[c]!) natural[c] = w;
      if ((whole[c] || !isFreeText(value)) && w > floor[c]!) floor[c] = w;
    }
    rows[r] = cells;
  }
  // A column is never narrower than it needs to be, nor (if it holds free text) than MIN_CUT_WIDTH.
  for (let c = 0; c < cols; c++) floor[c] = Math.max(floor[c]!, Math.min(natural[c]!, MIN_CUT_WIDTH));
  return { headers: safeHeaders, rows, widths, natural, floor };
}

/**
 * The width of each column in a table no wider than `width` (as gh does it: the widest free-text columns are cut
 * with an ellipsis, level with each other), or undefined when even the narrowest table that cuts no data is wider:
 * the caller then prints records. Without a terminal (`width` undefined) nothing is cut, and the layout is a table
 * unless padding would make it many times its cells (`paddingFits`).
 */
export function columnWidths(grid: Grid, width: number | undefined): number[] | undefined {
  const { natural, floor } = grid;
  const cols = natural.length;
  if (!width || cols === 0) return paddingFits(grid) ? natural : undefined;
  const budget = width - GAP * (cols - 1);
  const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
  if (sum(natural) <= budget) return natural;
  if (sum(floor) > budget) return undefined;
  // Each column at `level`: no wider than its text, no narrower than its floor.
  const at = (c: number, level: number) => Math.min(natural[c]!, Math.max(floor[c]!, level));
  const total = (level: number) => {
    let t = 0;
    for (let c = 0; c < cols; c++) t += at(c, level);
    return t;
  };
  // The highest level that fits (total() grows with the level; at 0 every column is at its floor, which fits).
  let lo = 0;
  let hi = 0;
  for (const w of natural) if (w > hi) hi = w;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (total(mid) <= budget) lo = mid;
    else hi = mid - 1;
  }
  const widths = natural.map((_, c) => at(c, lo));
  // What is left goes one column each to the last columns cut to the level (the first ones are cut deepest).
  let spare = budget - sum(widths);
  for (let c = cols - 1; c >= 0 && spare > 0; c--) {
    if (widths[c] === lo && natural[c]! > lo && floor[c]! <= lo) {
      widths[c] = lo + 1;
      spare--;
    }
  }
  return widths;
}

/** A padded table may take this many times its cells' own columns, and at least this much, before it is records. */
const MAX_PADDING_FACTOR = 4;
const MIN_PADDED_LIMIT = 1 << 20;

/**
 * Whether the table, every column padded to its widest cell, stays within a few times its cells: a cell of
 * megabytes in a column would pad every row to megabytes (a table growing as rows × widest cells, gigabytes from
 * an answer of megabytes), so such a table is printed as records, whose size is its cells'.
 */
function paddingFits(grid: Grid): boolean {
  const cols = grid.natural.length;
  let cells = 0;
  for (const w of grid.widths) cells += w;
  let row = GAP * (cols - 1);
  for (let c = 0; c < cols - 1; c++) row += grid.natural[c]!;
  const padded = (grid.rows.length + 1) * row;
  return padded <= Math.max(MIN_PADDED_LIMIT, MAX_PADDING_FACTOR * cells);
}

/** The table: a bold header line, then a line a row, columns `GAP` apart, no trailing spaces. */
export function tableText(grid: Grid, widths: readonly number[], theme: Theme): string {
  const cols = widths.length;
  const line = (
    cells: readonly string[],
    cellWidth: (c: number) => number,
    style?: (s: string) => string,
  ) => {
    let out = '';
    for (let c = 0; c < cols; c++) {
      let cell = cells[c]!;
      let w = cellWidth(c);
      if (w > widths[c]!) {
        cell = truncate(cell, widths[c]!);
        w = displayWidth(cell);
      }
      out += style ? style(cell) : cell;
      if (c < cols - 1) out += ' '.repeat(widths[c]! - w + GAP);
    }
    return out.trimEnd();
  };
  const headerWidths = grid.headers.map(displayWidth);
  const lines = [line(grid.headers, (c) => headerWidths[c]!, theme.bold)];
  for (let r = 0; r < grid.rows.length; r++)
    lines.push(line(grid.rows[r]!, (c) => grid.widths[r * cols + c]!));
  return `${lines.join('\n')}\n`;
}

/** Each row as a block of `HEADER  value` lines, blocks separated by a blank line: nothing is cut. */
export function recordsText(grid: Grid, theme: Theme): string {
  const headerWidths = grid.headers.map(displayWidth);
  let pad = 0;
  for (const w of headerWidths) if (w > pad) pad = w;
  const labels = grid.headers.map((h, c) => `${theme.bold(h)}${' '.repeat(pad - headerWidths[c]! + GAP)}`);
  const blocks = grid.rows.map((row) => row.map((cell, c) => `${labels[c]}${cell}`.trimEnd()).join('\n'));
  return `${blocks.join('\n\n')}\n`;
}
