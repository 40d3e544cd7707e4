// `dlake job results ID`: a page of a completed job's rows, or all of them with --all.
import { type Command, Option } from '@commander-js/extra-typings';
import { MAX_RESULTS_PAGE } from '../../constants.js';
import type { Context } from '../../context.js';
import { printRows } from '../../export/print-rows.js';
import { countRows } from '../../util/units.js';
import { examples } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { pageConcurrencyOption } from '../job-options.js';
import { wholeNumber } from '../options.js';

const declaration = (job: Command) =>
  job
    .command('results')
    .description(
      `Print a page of a completed job's rows (at most ${MAX_RESULTS_PAGE}), or all of them with --all`,
    )
    .argument('<id>', 'job id')
    .option('--offset <n>', 'first row to print (default 0)', wholeNumber('--offset'))
    .option(
      '--limit <n>',
      `rows to print (default 100, at most ${MAX_RESULTS_PAGE})`,
      wholeNumber('--limit', { max: MAX_RESULTS_PAGE, why: " (the service's page limit)" }),
    )
    .addOption(
      new Option('--all', 'print every row, fetching page after page').conflicts(['offset', 'limit']),
    )
    .addOption(pageConcurrencyOption('pages fetched with --all'))
    .addHelpText(
      'after',
      examples(
        'dlake job results ID',
        'dlake job results ID --offset 500 --limit 500 -o csv',
        'dlake job results ID --all -o ndjson | jq .name',
      ),
    );

export const register = defineCommand(declaration, results);

async function results(ctx: Context, id: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const client = await ctx.client();
  if (opts.all) {
    await printRows(ctx, { client, id, concurrency: opts.concurrency });
    return;
  }
  const offset = opts.offset ?? 0;
  const limit = opts.limit ?? 100;
  // One request: a page of `limit` rows.
  const printed = await printRows(ctx, { client, id, startOffset: offset, maxRows: limit, pageSize: limit });
  const end = offset + printed.rows;
  if (printed.rows > 0 && end < printed.rowCount) {
    ctx.ui.notice(
      `rows ${offset + 1}–${end} of ${printed.rowCount.toLocaleString('en-US')}; next page: --offset ${end}`,
    );
  } else if (printed.rows === 0 && offset > 0 && offset >= printed.rowCount) {
    ctx.ui.notice(`no rows at offset ${offset}: the job has ${countRows(printed.rowCount)}`);
  }
}
