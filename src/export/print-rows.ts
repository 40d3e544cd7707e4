// Printing a job's result rows to stdout in the output format, as `dlake sql`, `dlake job results` and the SQL
// shell show them: json, ndjson and csv streamed page by page through the export writers, a table (or anything
// filtered with --query) held in memory.
import { JsonNumber } from '../api/exact-json.js';
import type { ResultField, ResultRow } from '../api/jobs.js';
import type { Context } from '../context.js';
import type { View } from '../output/view.js';
import type { RowsSource } from './page-fetcher.js';
import type { Sink } from './sink.js';

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
    const stdout = stdoutSink(ctx.streams.stdout);
    const out = await exportRows({
      fetchPage: pageFetcher(src.client, src.id),
      format,
      // CSV carries text as it is; on a terminal its control characters are shown, as a table's are.
      target: format === 'csv' && ctx.streams.stdout.isTTY ? await shownOnTerminal(stdout) : stdout,
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

/**
 * `sink` with every chunk made terminal-safe (safe-text.ts: line feeds and tabs kept). Each chunk is whole
 * UTF-8 (a head, a page of rows or a tail), so it is decoded on its own.
 */
async function shownOnTerminal(sink: Sink): Promise<Sink> {
  const { stderrSafe } = await import('../output/safe-text.js');
  const text = (chunk: string | Uint8Array) =>
    typeof chunk === 'string'
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString();
  return {
    name: sink.name,
    isFile: sink.isFile,
    partial: sink.partial,
    resumed: sink.resumed,
    write: (chunk, signal) => sink.write(stderrSafe(text(chunk)), signal),
    checkpoint: (rows, state) => sink.checkpoint(rows, state),
    commit: () => sink.commit(),
    discard: () => sink.discard(),
    suspend: () => sink.suspend(),
  };
}
