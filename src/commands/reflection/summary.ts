// `dlake reflection summary`: every reflection's type, dataset, status and use, all pages.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Runtime } from '../../runtime.js';
import { formatPath } from '../../util/catalog-ref.js';
import { formatSize } from '../../util/units.js';
import { examples } from '../common.js';
import { choiceOption, repeatable, wholeNumber } from '../options.js';

/** The service's order fields (docs/api-facts.md §10.3), ascending or, with `-`, descending. */
const ORDER_FIELDS = ['reflectionName', 'datasetName', 'reflectionType'];
const ORDER_CHOICES = [...ORDER_FIELDS, ...ORDER_FIELDS.map((f) => `-${f}`)];

interface SummaryOptions {
  filter?: string[];
  orderBy?: string;
  limit?: number;
}

export function register(reflection: Command, rt: Runtime): void {
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
    )
    .action(rt.action(summary));
}

type Summary = import('../../api/reflections.js').ReflectionSummary;

async function summary(ctx: Context, opts: SummaryOptions): Promise<void> {
  const { checkSummaryOrder, reflectionSummaries } = await import('../../api/reflections.js');
  const filter = buildSummaryFilter(opts.filter ?? []);
  const orderBy = opts.orderBy === undefined ? undefined : checkSummaryOrder(opts.orderBy);
  const client = await ctx.client();
  const items: Summary[] = [];
  for await (const s of reflectionSummaries(client, { filter, orderBy, limit: opts.limit })) items.push(s);
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

/** The filter's keys that take lists, and all its keys (docs/api-facts.md §10.3). */
const SUMMARY_FILTER_ARRAY_KEYS = [
  'reflectionType',
  'refreshStatus',
  'availabilityStatus',
  'configStatus',
  'reflectionIds',
];
/** The values the service knows for the closed-set filter keys; a typo would silently match nothing. */
const SUMMARY_FILTER_VALUES: Record<string, readonly string[]> = {
  reflectionType: ['RAW', 'AGGREGATION'],
  refreshStatus: ['GIVEN_UP', 'MANUAL', 'RUNNING', 'SCHEDULED', 'ON_DATA_CHANGES'],
  availabilityStatus: ['NONE', 'EXPIRED', 'AVAILABLE'],
  configStatus: ['OK', 'INVALID'],
};
const SUMMARY_FILTER_KEYS = [...SUMMARY_FILTER_ARRAY_KEYS, 'enabledFlag', 'reflectionNameOrDatasetPath'];

/**
 * The filter object from `--filter` values: a JSON object, or `key=value` pairs (lists comma-separated),
 * e.g. `reflectionType=RAW,AGGREGATION`, `enabledFlag=true`, `reflectionNameOrDatasetPath=orders`.
 */
export function buildSummaryFilter(values: readonly string[]): Record<string, unknown> | undefined {
  if (values.length === 0) return undefined;
  const filter: Record<string, unknown> = {};
  for (const raw of values) {
    const text = raw.trim();
    if (text.startsWith('{')) {
      let obj: unknown;
      try {
        obj = JSON.parse(text);
      } catch (e) {
        throw new UsageError(`--filter is not valid JSON: ${(e as Error).message}`);
      }
      if (!obj || typeof obj !== 'object' || Array.isArray(obj))
        throw new UsageError('--filter JSON must be an object');
      for (const [key, value] of Object.entries(obj)) {
        filter[key] =
          Array.isArray(value) && SUMMARY_FILTER_VALUES[key]
            ? value.map((v) => knownFilterValue(key, v))
            : value;
      }
      continue;
    }
    const eq = text.indexOf('=');
    const key = eq > 0 ? text.slice(0, eq).trim() : '';
    if (!SUMMARY_FILTER_KEYS.includes(key)) {
      throw new UsageError(
        eq > 0 ? `unknown --filter attribute "${key}"` : `--filter "${raw}" is not key=value or JSON`,
        { hint: `use one of: ${SUMMARY_FILTER_KEYS.join(', ')} (e.g. --filter reflectionType=RAW)` },
      );
    }
    const value = text.slice(eq + 1).trim();
    if (SUMMARY_FILTER_ARRAY_KEYS.includes(key)) {
      const items = value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean)
        .map((v) => (SUMMARY_FILTER_VALUES[key] ? knownFilterValue(key, v) : v));
      filter[key] = [...((filter[key] as string[] | undefined) ?? []), ...items];
    } else if (key === 'enabledFlag') {
      if (!/^(true|false)$/i.test(value)) throw new UsageError('--filter enabledFlag takes true or false');
      filter[key] = value.toLowerCase() === 'true';
    } else {
      filter[key] = value;
    }
  }
  return filter;
}

/** A closed-set filter value in the service's spelling (case-insensitive), or a UsageError listing them. */
function knownFilterValue(key: string, value: unknown): string {
  const values = SUMMARY_FILTER_VALUES[key] ?? [];
  const found = values.find((v) => typeof value === 'string' && v === value.toUpperCase());
  if (found === undefined) {
    throw new UsageError(`--filter ${key} "${String(value)}" is not one of: ${values.join(', ')}`);
  }
  return found;
}
