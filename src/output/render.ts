// Renders command results in the four formats of docs/cli-contract.md "Streams and formats", after the
// optional --query (JMESPath) filter. json prints the service's objects as they came; table and csv print the
// view's columns.

import { checkNesting, nestingDepth } from '../api/exact-json.js';
import { ServiceError, UsageError } from '../errors.js';
import type { OutputFormat } from '../global-options.js';
import { asReceived } from '../util/received.js';
import type { Theme } from './color.js';
import { columnWidths, gridOf, recordsText, tableText } from './layout.js';
import { jsonTerminalSafe, stderrSafe } from './safe-text.js';
import { cellText, DETAIL_VIEW, detailRows, genericView, type Renderable, type View } from './view.js';

interface RenderOptions {
  format: OutputFormat;
  query?: string;
  theme: Theme;
  /** The terminal's width, when stdout is one: tables are fitted to it. */
  width?: number;
  /** stdout is a terminal: CSV shows its control characters there (a file or a pipe gets them as they are). */
  terminal?: boolean;
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
    // The writers recurse (JSON.stringify among them): nesting beyond the bound is refused, whatever its source
    // (`dlake api` parses its own bodies), before anything is printed.
    checkNesting(data, 'the answer');
    if (rows && rows !== data) checkNesting(rows, 'the answer');
    return await format(data, rows, view, opts);
  } catch (e) {
    // Should a writer still run out of stack, the answer failed us, not dlake: said as such, never "a bug".
    if (e instanceof RangeError && /call stack/i.test(e.message)) {
      throw new ServiceError(`the answer is nested too deeply to print (${nestingDepth(data)} levels)`, {
        cause: e,
      });
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
    // On a terminal, escaped where JSON allows what a terminal would act on (safe-text.ts jsonTerminalSafe).
    case 'json': {
      const text = `${JSON.stringify(asReceived(data) ?? null, null, 2)}\n`;
      return { stdout: opts.terminal ? jsonTerminalSafe(text) : text };
    }
    case 'ndjson': {
      const sent = asReceived(data);
      const items = Array.isArray(sent) ? sent : [sent];
      const text = items.map((i) => `${JSON.stringify(i ?? null)}\n`).join('');
      return { stdout: opts.terminal ? jsonTerminalSafe(text) : text };
    }
    case 'csv':
    case 'table': {
      if (!rows && data !== null && typeof data !== 'object') return { stdout: `${cellText(data)}\n` };
      const table = tableOf(data, rows, view);
      // CSV to a terminal shows its control characters, as a table does; to a file or a pipe, the bytes as they are.
      if (opts.format === 'csv') {
        const csv = await toCsv(table);
        return { stdout: opts.terminal ? stderrSafe(csv) : csv };
      }
      if (table.values.length === 0) return { stdout: '', note: view?.empty ?? 'No results.' };
      const grid = gridOf(table.headers, table.values, cellText);
      const widths = columnWidths(grid, opts.width);
      return { stdout: widths ? tableText(grid, widths, opts.theme) : recordsText(grid, opts.theme) };
    }
  }
}

interface Table {
  headers: string[];
  /** Each row's values, in the order of `headers`. */
  values: unknown[][];
}

function tableOf(data: unknown, rows: unknown[] | undefined, view: View<unknown> | undefined): Table {
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
    values: rows.map((row) => v.columns.map((c) => c.value(row))),
  };
}

/** `-o csv` of any command: the one CSV field encoder of the exports (docs/cli-contract.md "Streams and formats"). */
async function toCsv(table: Table): Promise<string> {
  const { csvLine } = await import('../util/csv-field.js');
  let out = `${csvLine(table.headers)}\n`;
  for (const row of table.values) out += `${csvLine(row.map(cellText))}\n`;
  return out;
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
