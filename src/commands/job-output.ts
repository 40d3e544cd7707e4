// Job result rows on their way out of a command: printed in the output format (streamed for json, ndjson and
// csv; a table is held in memory, capped). Also the options that `sql` and `job` share. Reading the pages and
// writing files is src/export's.
import { Option } from '@commander-js/extra-typings';
import { JsonNumber } from '../api/exact-json.js';
import type { ResultField, ResultRow } from '../api/jobs.js';
import type { Context } from '../context.js';
import type { RowsSource } from '../export/page-fetcher.js';
import { PAGE_CONCURRENCY } from '../export/pages.js';
import type { View } from '../output/view.js';
import { choiceOption, concurrencyOption, duration } from './options.js';

/** Rows a table shows unless --max-rows says otherwise. */
export const TABLE_ROWS = 100;

/** `--format` of an export: a closed set, so that completions offer it. */
export function formatOption() {
  return choiceOption(
    '--format <format>',
    'csv, json, ndjson or parquet (default: from the file name, else csv; a further .gz gzips)',
    ['csv', 'json', 'ndjson', 'parquet'] as const,
  );
}

/** `--transport` of an export: Arrow Flight, REST, or Flight when an endpoint answers (export/flight/transport.ts). */
export function transportOption() {
  return choiceOption(
    '--transport <how>',
    'auto (Arrow Flight when an endpoint is configured and answers, else REST), flight or rest',
    ['auto', 'flight', 'rest'] as const,
  );
}

/** `--concurrency` of the commands that page through results. */
export function pageConcurrencyOption(what = 'results pages fetched') {
  return concurrencyOption(what, PAGE_CONCURRENCY);
}

/** `--wait-timeout` of the commands that wait for a job before reading it (`--timeout` is per request). */
export function waitTimeoutOption() {
  return new Option(
    '--wait-timeout <duration>',
    'stop waiting for the job after this long, e.g. 10m (exit 7; the job keeps running)',
  ).argParser(duration('--wait-timeout'));
}

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
    const [{ exportRows }, { stdoutTarget }, { pageFetcher }] = await Promise.all([
      import('../export/export.js'),
      import('../export/target.js'),
      import('../export/page-fetcher.js'),
    ]);
    const out = await exportRows({
      fetchPage: pageFetcher(src.client, src.id),
      format,
      target: stdoutTarget(ctx.streams.stdout),
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
  const { readRows } = await import('../export/held-rows.js');
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
