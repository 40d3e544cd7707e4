// `dlake reflection summary`: every reflection's type, dataset, status and use, all pages.
import type { Command } from '@commander-js/extra-typings';
import { checkSummaryOrder, SUMMARY_ORDER_FIELDS, summaryFilter } from '../../api/reflection-filter.js';
import type { Context } from '../../context.js';
import { reflectionSummaryList } from '../../ops/reflections.js';
import { formatPath } from '../../util/catalog-ref.js';
import { formatSize } from '../../util/units.js';
import { examples } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { choiceOption, repeatable, wholeNumber } from '../options.js';

/** The service's order fields, ascending or, with `-`, descending. */
const ORDER_CHOICES = [...SUMMARY_ORDER_FIELDS, ...SUMMARY_ORDER_FIELDS.map((f) => `-${f}`)];

const declaration = (reflection: Command) =>
  reflection
    .command('summary')
    .description(
      'List reflections with their dataset, status and how often queries chose, matched or considered them',
    )
    .option(
      '--filter <filter>',
      'key=value (lists comma-separated) or a JSON object; repeatable. Keys: reflectionType, refreshStatus, ' +
        'availabilityStatus, configStatus, enabledFlag, reflectionNameOrDatasetPath, reflectionIds',
      repeatable('--filter'),
    )
    .addOption(
      choiceOption(
        '--order-by <field>',
        'reflectionName, datasetName or reflectionType; prefix - for descending',
        ORDER_CHOICES,
      ),
    )
    .option('--limit <n>', 'show at most N reflections (default: all)', wholeNumber('--limit', { min: 1 }))
    .addHelpText(
      'after',
      examples(
        'dlake reflection summary',
        'dlake reflection summary --filter reflectionType=RAW --filter enabledFlag=true --order-by -reflectionName',
        'dlake reflection summary --filter \'{"availabilityStatus":["EXPIRED"]}\' -o json',
      ),
    );

export const register = defineCommand(declaration, summary);

type Summary = import('../../api/reflections.js').ReflectionSummary;

async function summary(ctx: Context, opts: OptionsOf<typeof declaration>): Promise<void> {
  const filter = summaryFilter(opts.filter ?? [], '--filter');
  const orderBy = opts.orderBy === undefined ? undefined : checkSummaryOrder(opts.orderBy);
  const items = await reflectionSummaryList(ctx, { filter, orderBy, limit: opts.limit });
  const status = (s: Summary) => (s.status as Record<string, unknown> | undefined) ?? {};
  await ctx.print<Summary>({
    data: items,
    rows: items,
    view: {
      empty: 'No reflections.',
      columns: [
        { header: 'NAME', value: (s) => s.name },
        { header: 'TYPE', value: (s) => s.reflectionType },
        { header: 'DATASET', value: (s) => (s.datasetPath ? formatPath(s.datasetPath) : s.datasetId) },
        { header: 'STATUS', value: (s) => status(s).combinedStatus },
        { header: 'ENABLED', value: (s) => s.isEnabled },
        { header: 'CHOSEN', value: (s) => s.chosenCount },
        { header: 'MATCHED', value: (s) => s.matchedCount },
        { header: 'CONSIDERED', value: (s) => s.consideredCount },
        {
          header: 'SIZE',
          value: (s) => (typeof s.currentSizeBytes === 'number' ? formatSize(s.currentSizeBytes) : ''),
        },
        { header: 'LAST REFRESH', value: (s) => status(s).lastDataFetchAt },
      ],
    },
  });
}
