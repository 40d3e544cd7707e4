// Printing a job's result rows to stdout in the output format, as `dlake sql`, `dlake job results` and the SQL
// shell show them: json, ndjson and csv streamed page by page through the export writers, a table (or anything
// filtered with --query) held in memory.
import { JsonNumber } from '../api/exact-json.js';
import type { ResultField, ResultRow } from '../api/jobs.js';
import type { Context } from '../context.js';
import type { View } from '../output/view.js';
import type { RowsSource } from './page-fetcher.js';

/** Rows a table shows unless --max-rows says otherwise. */
export const TABLE_ROWS = 100;

interface Printed {
  /** Rows printed. */
  rows: number;
  /** Rows the job holds from the start offset. */
  total: number;
  /** Rows the job holds (its rowCount). */
  rowCount: number;
}

/**
 * Prints result rows to stdout in the output format. json, ndjson and csv stream page by page (the same
 * writers as `job export`); a table, and anything filtered with --query, is built in memory.
 */
export async function printRows(ctx: Context, src: RowsSource): Promise<Printed> {
  const format = ctx.format;
  ctx.interruptible = true;
  const signal = src.signal ?? ctx.interrupt.signal;
  if (format !== 'table' && !ctx.opts.query) {
    const [{ exportRows }, { stdoutSink }, { pageFetcher }] = await Promise.all([
      import('./export.js'),
      import('./target.js'),
      import('./page-fetcher.js'),
    ]);
    const out = await exportRows({
      fetchPage: pageFetcher(src.client, src.id),
      format,
      // On a terminal, CSV's control characters are shown and JSON's escaped, as a table's are (stdout-sink.ts).
      target: stdoutSink(ctx.streams.stdout, format),
      pageSize: src.pageSize ?? 500,
      concurrency: src.concurrency,
      startOffset: src.startOffset,
      maxRows: src.maxRows,
      signal,
      pretty: true,
    });
    return {
      rows: out.rows,
      total: Math.max(0, out.rowCount - (src.startOffset ?? 0)),
      rowCount: out.rowCount,
    };
  }
  const { readRows } = await import('./held-rows.js');
  const held = await readRows({ ...src, signal });
  // JMESPath compares plain values: exact numbers become the nearest double there.
  const data = held.exact && ctx.opts.query ? JSON.parse(JSON.stringify(held.rows)) : held.rows;
  await ctx.print({ data, rows: held.rows, view: resultView(held.schema) });
  return {
    rows: held.rows.length,
    total: Math.max(0, held.rowCount - (src.startOffset ?? 0)),
    rowCount: held.rowCount,
  };
}

/** Table columns of a result: the schema's names, as they are (SQL names are case-sensitive). */
export function resultView(schema: readonly ResultField[]): View<ResultRow> {
  return {
    columns: schema.map((f) => ({
      header: f.name,
      value: (r: ResultRow) => {
        const v = r[f.name];
        return v instanceof JsonNumber ? v.text : v;
      },
    })),
    empty: 'No rows.',
  };
}
