// `dlake sql "QUERY"`: submit a query, wait for it with a spinner, then print its rows or stream them to a
// file. With --no-wait, print the job id alone. `-f FILE` runs a script of statements; no query on a
// terminal opens the SQL shell.
import { type Command, Option } from '@commander-js/extra-typings';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { printRows, TABLE_ROWS } from '../export/print-rows.js';
import { runStatement } from '../export/statement.js';
import { readStdin } from '../output/prompt.js';
import { formatPath, parsePath, toSqlIdentifier } from '../util/catalog-ref.js';
import { readTextFile } from '../util/files.js';
import { countRows } from '../util/units.js';
import { examples } from './common.js';
import { defineCommand, type OptionsOf } from './define.js';
import {
  formatOption,
  noClobberOption,
  pageConcurrencyOption,
  transportOption,
  waitTimeoutOption,
} from './job-options.js';
import { wholeNumber } from './options.js';

const declaration = (sql: Command) =>
  sql
    .description(
      'Run a SQL query or script, wait, and print the rows (or stream them to a file with --out); on a terminal, with no query, open the SQL shell',
    )
    .argument('[query]', 'the SQL text; - reads it from standard input')
    .option('-c, --command <sql>', "the SQL text, as psql's -c takes it (instead of the argument)")
    .option('-f, --file <path>', 'run the statements of a script, separated by ; (- for standard input)')
    .option(
      '--continue-on-error',
      "with several statements: run every one, then exit with the first failure's code",
    )
    .option('--context <path>', 'catalog path that unqualified names resolve in, e.g. Sales/curated')
    .addOption(
      new Option('--no-wait', 'print the job id and return without waiting').conflicts(['out', 'maxRows']),
    )
    .option(
      '--max-rows <n>',
      `print at most N rows (default: ${TABLE_ROWS} in a table, all rows in json, ndjson and csv)`,
      wholeNumber('--max-rows'),
    )
    .option('--out <file>', 'stream every row to FILE (- for standard output) instead of printing them')
    .addOption(
      new Option(
        '--read-only',
        'run only statements that read, judged as dlake mcp judges them; any other is refused before anything is sent',
      ).conflicts(['into']),
    )
    .addOption(
      new Option(
        '--into <ref>',
        'write the result on the service as a new table REF (CREATE TABLE REF AS QUERY), e.g. Lake/exports/orders',
      ).conflicts(['out', 'maxRows']),
    )
    .addOption(formatOption())
    .addOption(noClobberOption())
    .addOption(pageConcurrencyOption())
    .addOption(transportOption())
    .addOption(waitTimeoutOption())
    .option('-y, --yes', 'on Ctrl-C while waiting, cancel the job without asking')
    .addHelpText(
      'after',
      examples(
        'dlake sql "SELECT COUNT(*) AS n FROM Sales.orders"',
        'dlake sql -c "SELECT 1"                    # as psql -c',
        'dlake sql --file report.sql --out report.csv',
        'dlake sql -f nightly.sql --continue-on-error -o ndjson',
        'dlake sql "SELECT 1 AS x; SELECT 2 AS y"   # two statements, two results',
        'dlake sql                       # on a terminal: the SQL shell (\\q or Ctrl-D to leave)',
        'echo "SELECT * FROM big" | dlake sql - -o ndjson --max-rows 1000',
        'dlake sql "SELECT * FROM orders" --context Sales --no-wait',
        'dlake sql --read-only -f from-a-colleague.sql   # refused unless every statement only reads',
        'dlake sql "SELECT * FROM Sales.orders" --into Lake/exports/orders_2025',
        'dlake --flight-url grpc://lake:32010 sql "SELECT * FROM big" --out big.parquet --transport flight',
      ),
    );

export const register = defineCommand(declaration, runSql);

/** The options of `dlake sql`, as its declaration types them. */
type SqlFlags = OptionsOf<typeof declaration>;

/** The read-only rule as `dlake sql --read-only` words it (src/sql/read-only.ts). */
const READ_ONLY_RULE = {
  when: 'with --read-only',
  hint: 'without --read-only, dlake sql runs any statement',
};

/** With --read-only, a usage error unless every statement of `text` reads: checked before any is sent. */
async function checkReadOnly(text: string, opts: SqlFlags): Promise<void> {
  if (opts.readOnly) (await import('../sql/read-only.js')).requireReading(text, READ_ONLY_RULE);
}

async function runSql(ctx: Context, argument: string | undefined, opts: SqlFlags): Promise<void> {
  if (argument !== undefined && opts.command !== undefined)
    throw new UsageError('give the query either as an argument or with -c, not both');
  const query = argument ?? opts.command;
  if (opts.file !== undefined) {
    if (query !== undefined)
      throw new UsageError(
        `give the query either ${opts.command === undefined ? 'as an argument' : 'with -c'} or with --file, not both`,
      );
    const { runScript } = await import('./sql-script.js');
    const script = await readScript(ctx, opts.file);
    await checkReadOnly(script.text, opts);
    return runScript(ctx, script, opts, (text) => runQuery(ctx, text, opts));
  }
  if (query === undefined && ctx.ui.interactive && !opts.continueOnError) {
    const { runShell } = await import('../shell/shell.js');
    return runShell(ctx, {
      context: opts.context === undefined ? undefined : parsePath(opts.context),
      readOnly: opts.readOnly === true,
    });
  }
  const text = await readQuery(ctx, query);
  await checkReadOnly(text, opts);
  // Several statements in one argument (or on standard input) run one after the other, as a script does;
  // one statement is sent as it was given (docs/cli-contract.md "SQL").
  const { splitSql } = await import('../sql/split.js');
  const split = splitSql(text);
  if (split.statements.length + (split.rest ? 1 : 0) > 1) {
    const { runScript } = await import('./sql-script.js');
    const script = { name: query === '-' ? 'standard input' : 'the query', text };
    return runScript(ctx, script, opts, (statement) => runQuery(ctx, statement, opts));
  }
  if (opts.continueOnError)
    throw new UsageError('--continue-on-error applies to a script of several statements');
  await runQuery(ctx, text, opts);
}

/** Runs one query (export/statement.ts), then prints its rows, unless they went to --out. */
async function runQuery(ctx: Context, text: string, opts: SqlFlags): Promise<void> {
  const context = opts.context === undefined ? undefined : parsePath(opts.context);
  // --no-wait and --into go with neither --out nor --max-rows: commander refuses them (`.conflicts`).
  const into = opts.into === undefined ? undefined : parsePath(opts.into);
  if (into && into.length < 2)
    throw new UsageError(
      `--into needs a table inside a source, e.g. Lake/exports/orders, not "${opts.into}"`,
    );
  // Said before the query runs, not after.
  const spec = opts.out
    ? (await import('../export/formats.js')).exportSpec(opts.out, opts.format, !opts.clobber)
    : undefined;
  if (opts.out && opts.out !== '-') {
    const { checkWritable } = await import('../export/target.js');
    await checkWritable(opts.out, { noClobber: !opts.clobber });
  } else if (opts.out && spec)
    (await import('../export/target.js')).checkStdout(ctx.streams.stdout, spec.format);
  if (opts.transport === 'flight' && !(opts.out && opts.wait && !into))
    throw new UsageError('--transport flight applies to an export: give --out FILE');
  const ctas = into ? await import('../api/ctas.js') : undefined;
  const ran = await runStatement(ctx, {
    sql: text,
    submit: into && ctas ? ctas.ctasStatement(toSqlIdentifier(into), text) : undefined,
    context,
    out: opts.out && spec ? { file: opts.out, spec } : undefined,
    transport: opts.transport ?? 'auto',
    concurrency: opts.concurrency,
    noWait: !opts.wait,
    waitTimeoutMs: opts.waitTimeout,
    yes: opts.yes,
  });
  if (ran.delivered) return;
  const { client, id } = ran;
  if (!opts.wait) {
    const json = ctx.format === 'json' || ctx.format === 'ndjson';
    return ctx.print(json ? { data: { id } } : { data: id });
  }
  if (into && ctas) {
    const rows = await ctas.ctasRowsWritten(client, id, ctx.interrupt.signal);
    const data = { path: into, rows, jobId: id };
    return ctx.print({
      data,
      rows: [data],
      view: {
        columns: [
          { header: 'PATH', value: () => formatPath(into) },
          { header: 'ROWS', value: () => rows },
          { header: 'JOB', value: () => id },
        ],
      },
    });
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

/** The query: the argument, or `-` for standard input. */
async function readQuery(ctx: Context, query: string | undefined): Promise<string> {
  if (query === undefined) {
    throw new UsageError('no query given', {
      hint: 'pass it as an argument (dlake sql "SELECT 1"), a script with --file FILE, or - to read standard input; on a terminal, `dlake sql` alone opens the SQL shell',
    });
  }
  const text = query === '-' ? await readStdin(ctx.streams.stdin) : query;
  if (!text.trim()) throw new UsageError('the query is empty');
  return text;
}

/** The text of --file FILE (- for standard input). */
async function readScript(ctx: Context, file: string): Promise<{ name: string; text: string }> {
  if (file === '-') return { name: 'standard input', text: await readStdin(ctx.streams.stdin) };
  return { name: file, text: readTextFile(file) };
}
