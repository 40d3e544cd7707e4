// `dlake sql "QUERY"`: submit a query, wait for it with a spinner, then print its rows or stream them to a
// file. With --no-wait, print the job id alone.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { readStdin } from '../output/prompt.js';
import type { Runtime } from '../runtime.js';
import { parsePath } from '../util/catalog-ref.js';
import { readTextFile } from '../util/files.js';
import { examples } from './common.js';
import {
  countRows,
  exportToFile,
  formatOption,
  pageConcurrencyOption,
  printRows,
  TABLE_ROWS,
  waitTimeoutOption,
} from './job-output.js';
import { waitWithFeedback } from './job-wait.js';
import { wholeNumber } from './options.js';

interface SqlOptions {
  file?: string;
  context?: string;
  wait: boolean;
  maxRows?: number;
  out?: string;
  format?: 'csv' | 'json' | 'ndjson';
  concurrency?: number;
  waitTimeout?: number;
  yes?: boolean;
}

export function register(program: Command, rt: Runtime): void {
  program
    .command('sql')
    .description('Run a SQL query, wait for it, and print its rows (or stream them to a file with --out)')
    .argument('[query]', 'the SQL text; - reads it from standard input')
    .option('-f, --file <path>', 'read the SQL from a file (- for standard input)')
    .option('--context <path>', 'catalog path that unqualified names resolve in, e.g. Sales/curated')
    .option('--no-wait', 'print the job id and return without waiting')
    .option(
      '--max-rows <n>',
      `print at most N rows (default: ${TABLE_ROWS} in a table, all rows in json, ndjson and csv)`,
      wholeNumber('--max-rows'),
    )
    .option('--out <file>', 'stream every row to FILE (- for standard output) instead of printing them')
    .addOption(formatOption())
    .addOption(pageConcurrencyOption())
    .addOption(waitTimeoutOption())
    .option('-y, --yes', 'on Ctrl-C while waiting, cancel the job without asking')
    .addHelpText(
      'after',
      examples(
        'dlake sql "SELECT COUNT(*) AS n FROM Sales.orders"',
        'dlake sql --file report.sql --out report.csv',
        'echo "SELECT * FROM big" | dlake sql - -o ndjson --max-rows 1000',
        'dlake sql "SELECT * FROM orders" --context Sales --no-wait',
      ),
    )
    .action(rt.action(sql));
}

async function sql(ctx: Context, query: string | undefined, opts: SqlOptions) {
  const text = await readSql(ctx, query, opts.file);
  const context = opts.context === undefined ? undefined : parsePath(opts.context);
  if (!opts.wait && (opts.out || opts.maxRows !== undefined))
    throw new UsageError(`--no-wait cannot be combined with ${opts.out ? '--out' : '--max-rows'}`);
  if (opts.out && opts.out !== '-') {
    // Said before the query runs, not after.
    const { checkWritable } = await import('../export/target.js');
    await checkWritable(opts.out);
  }
  const client = await ctx.client();
  const { submitSql, requireCompleted } = await import('../api/jobs.js');
  const id = await submitSql(client, text, context);
  if (!opts.wait) {
    const json = ctx.format === 'json' || ctx.format === 'ndjson';
    return ctx.print(json ? { data: { id } } : { data: id });
  }
  if (!ctx.ui.motion) ctx.ui.notice(`job ${id} submitted`);
  const status = await waitWithFeedback(ctx, client, id, {
    timeoutMs: opts.waitTimeout,
    yes: opts.yes,
  });
  requireCompleted(status, id);
  if (opts.out) {
    const { formatFromFileName } = await import('../export/writers.js');
    const format = opts.format ?? formatFromFileName(opts.out) ?? 'csv';
    return exportToFile(ctx, { client, id, out: opts.out, format, concurrency: opts.concurrency });
  }
  const maxRows = opts.maxRows ?? (ctx.format === 'table' ? TABLE_ROWS : undefined);
  const printed = await printRows(ctx, { client, id, maxRows, concurrency: opts.concurrency });
  if (printed.rows < printed.total) {
    ctx.ui.notice(
      `showing the first ${countRows(printed.rows)} of ${printed.total.toLocaleString('en-US')}; ` +
        'use --max-rows N, or --out FILE for all of them',
    );
  }
}

/** The query: the argument, `-` (standard input) or --file; exactly one of them. */
async function readSql(ctx: Context, query: string | undefined, file: string | undefined): Promise<string> {
  if (query !== undefined && file !== undefined)
    throw new UsageError('give the query either as an argument or with --file, not both');
  let text: string;
  if (query === '-' || file === '-') text = await readStdin(ctx.streams.stdin);
  else if (file !== undefined) {
    text = readTextFile(file);
  } else if (query !== undefined) text = query;
  else {
    throw new UsageError('no query given', {
      hint: 'pass it as an argument (dlake sql "SELECT 1"), with --file FILE, or - to read standard input',
    });
  }
  if (!text.trim()) throw new UsageError('the query is empty');
  return text;
}
