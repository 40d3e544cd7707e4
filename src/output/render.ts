// Renders command results in the four formats of docs/cli-contract.md "Streams and formats", after the
// optional --query (JMESPath) filter. json prints the service's objects as they came; table and csv print the
// view's columns.

import { ServiceError, UsageError } from '../errors.js';
import type { OutputFormat } from '../global-options.js';
import { asReceived } from '../util/received.js';
import type { Theme } from './color.js';
import { terminalSafe } from './safe-text.js';
import { cellText, DETAIL_VIEW, detailRows, genericView, type Renderable, type View } from './view.js';
import { truncate } from './width.js';

interface RenderOptions {
  format: OutputFormat;
  query?: string;
  theme: Theme;
  /** The terminal's width, when stdout is one: tables are fitted to it. */
  width?: number;
}

interface Rendered {
  stdout: string;
  /** A note for stderr (e.g. "No results."). */
  note?: string;
}

export async function render<T>(r: Renderable<T>, opts: RenderOptions): Promise<Rendered> {
  let { data, rows, view } = r as Renderable<unknown>;
  try {
    if (opts.query) {
      // --query filters what -o json would print: the service's objects as they came.
      data = await applyQuery(asReceived(data), opts.query);
      rows = undefined;
      view = undefined;
    }
    return await format(data, rows, view, opts);
  } catch (e) {
    // JSON.stringify recurses: an answer nested thousands of levels deep (valid JSON, which JSON.parse
    // reads without trouble) overflows the stack. That is the service's answer failing us, not a bug here.
    if (e instanceof RangeError && /call stack/i.test(e.message)) {
      throw new ServiceError('cannot print the answer: it is nested too deeply', { cause: e });
    }
    throw e;
  }
}

async function format(
  data: unknown,
  rows: unknown[] | undefined,
  view: View<unknown> | undefined,
  opts: RenderOptions,
): Promise<Rendered> {
  switch (opts.format) {
    case 'json':
      return { stdout: `${JSON.stringify(asReceived(data) ?? null, null, 2)}\n` };
    case 'ndjson': {
      const sent = asReceived(data);
      const items = Array.isArray(sent) ? sent : [sent];
      return { stdout: items.map((i) => `${JSON.stringify(i ?? null)}\n`).join('') };
    }
    case 'csv':
    case 'table': {
      if (!rows && data !== null && typeof data !== 'object') return { stdout: `${cellText(data)}\n` };
      const table = tableOf(data, rows, view);
      if (opts.format === 'csv') return { stdout: await toCsv(table) };
      if (table.rows.length === 0) return { stdout: '', note: view?.empty ?? 'No results.' };
      const fitted = fitToWidth(table, opts.width);
      return { stdout: fitted ? await toTable(fitted, opts.theme) : toRecords(table, opts.theme) };
    }
  }
}

interface Grid {
  headers: string[];
  rows: string[][];
}

function tableOf(data: unknown, rows: unknown[] | undefined, view: View<unknown> | undefined): Grid {
  if (!rows) {
    if (Array.isArray(data)) rows = data;
    else if (data && typeof data === 'object') {
      rows = detailRows(data as Record<string, unknown>);
      view = view ?? (DETAIL_VIEW as View<unknown>);
    } else rows = [];
  }
  const v = view ?? genericView(rows);
  return {
    headers: v.columns.map((c) => c.header),
    rows: rows.map((row) => v.columns.map((c) => cellText(c.value(row)))),
  };
}

/** `-o csv` of any command: the one CSV field encoder of the exports (docs/cli-contract.md "Streams and formats"). */
async function toCsv(grid: Grid): Promise<string> {
  const { csvLine } = await import('../export/csv-field.js');
  return [grid.headers, ...grid.rows].map((r) => `${csvLine(r)}\n`).join('');
}

/** Columns that are pasted back into commands: cutting them would make them useless. */
const WHOLE_COLUMNS = /^(ID|TAG|TID|VERSION|NAME|PATH|STATE|STATUS|TYPE|URL)$/;
/** Narrowest a cut column gets; a table that does not fit even so is printed whole. */
const MIN_CUT_WIDTH = 8;
const GAP = 2;

/**
 * A table no wider than the terminal, as gh does it: the widest free-text columns (descriptions, messages,
 * bodies) are cut with an ellipsis; ids, tags, names and paths are never cut, so they can be pasted back.
 * Without a terminal (`width` undefined) nothing is cut. Undefined when even that does not fit: the caller
 * then prints one record per block (as psql's expanded mode does), so no value is cut and no row wraps.
 */
function fitToWidth(grid: Grid, width: number | undefined): Grid | undefined {
  if (!width) return grid;
  const len = (s: string) => [...s].length;
  // A loop, not Math.max(...rows): spread arguments overflow the stack past ~120,000 rows.
  const widths = grid.headers.map((h, c) => grid.rows.reduce((w, r) => Math.max(w, len(r[c] ?? '')), len(h)));
  let excess = widths.reduce((a, b) => a + b, 0) + GAP * (widths.length - 1) - width;
  if (excess <= 0) return grid;
  const cuttable = grid.headers.map((h) => !WHOLE_COLUMNS.test(h));
  while (excess > 0) {
    let widest = -1;
    for (let c = 0; c < widths.length; c++) {
      if (cuttable[c] && widths[c]! > MIN_CUT_WIDTH && (widest < 0 || widths[c]! > widths[widest]!))
        widest = c;
    }
    if (widest < 0) return undefined;
    widths[widest]!--;
    excess--;
  }
  const cut = (row: string[]) => row.map((cell, c) => (cuttable[c] ? truncate(cell, widths[c]!) : cell));
  return { headers: cut(grid.headers), rows: grid.rows.map(cut) };
}

/** Each row as a block of `HEADER  value` lines, blocks separated by a blank line. */
function toRecords(grid: Grid, theme: Theme): string {
  const pad = grid.headers.reduce((w, h) => Math.max(w, [...h].length), 0);
  const blocks = grid.rows.map((row) =>
    grid.headers
      .map((h, c) =>
        `${theme.bold(terminalSafe(h))}${' '.repeat(pad - [...h].length + GAP)}${terminalSafe(row[c] ?? '')}`.trimEnd(),
      )
      .join('\n'),
  );
  return `${blocks.join('\n\n')}\n`;
}

async function toTable(grid: Grid, theme: Theme): Promise<string> {
  const { default: Table } = await import('cli-table3');
  // Borderless, kubectl-style: easy to read and to grep.
  const table = new Table({
    head: grid.headers.map((h) => theme.bold(terminalSafe(h))),
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '  ',
    },
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
  for (const row of grid.rows) table.push(row.map(terminalSafe));
  return `${table
    .toString()
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')}\n`;
}

async function applyQuery(data: unknown, query: string): Promise<unknown> {
  // CommonJS module: its exports object is the default export, bundled or not.
  const { default: jmespath } = await import('jmespath');
  try {
    return jmespath.search(data as Parameters<typeof jmespath.search>[0], query);
  } catch (e) {
    throw new UsageError(`invalid --query "${query}": ${(e as Error).message}`, {
      hint: 'the query is a JMESPath expression, e.g. --query "[].name" (see jmespath.org)',
    });
  }
}
