// What the reflection verbs share: the field options of create and update, and how a reflection prints.
import { type Command, Option } from '@commander-js/extra-typings';
import type { Reflection } from '../../api/reflections.js';
import type { Context } from '../../context.js';
import { formatSize } from '../../util/units.js';
import { repeatable } from '../options.js';

/** --name, the six field lists (comma-separated, repeatable) and --dry-run. */
export function addDefinitionOptions<A extends unknown[], O extends Record<string, unknown>>(
  cmd: Command<A, O>,
) {
  return cmd
    .option('--name <name>', 'the reflection name')
    .addOption(
      new Option('--display <fields>', 'display fields F,… (raw reflections)').argParser(
        repeatable('--display', { commas: true }),
      ),
    )
    .addOption(
      new Option('--dimension <fields>', 'dimensions F[:DATE],… (aggregation)').argParser(
        repeatable('--dimension', { commas: true }),
      ),
    )
    .addOption(
      new Option(
        '--measure <fields>',
        'measures F[:SUM|COUNT|MIN|MAX|APPROX_COUNT_DISTINCT],… (aggregation)',
      ).argParser(repeatable('--measure', { commas: true })),
    )
    .addOption(
      new Option('--partition <fields>', 'partition fields F,…').argParser(
        repeatable('--partition', { commas: true }),
      ),
    )
    .addOption(
      new Option('--sort <fields>', 'sort fields F,…').argParser(repeatable('--sort', { commas: true })),
    )
    .addOption(
      new Option('--distribution <fields>', 'distribution fields F,…').argParser(
        repeatable('--distribution', { commas: true }),
      ),
    )
    .option('--dry-run', 'print the request instead of sending it (the dataset is still read)');
}

const names = (list: Array<{ name: string }> | undefined): string =>
  (list ?? []).map((f) => f.name).join(', ');

/** json: the service's object; table/csv: the fields that matter, lists as names, the size in human units. */
export function printReflection(ctx: Context, r: Reflection): Promise<void> {
  const rows: Array<{ key: string; value: unknown }> = [
    { key: 'id', value: r.id },
    { key: 'name', value: r.name },
    { key: 'type', value: r.type },
    { key: 'datasetId', value: r.datasetId },
    { key: 'enabled', value: r.enabled },
    { key: 'status', value: r.status?.combinedStatus },
    {
      key: 'size',
      value: typeof r.currentSizeBytes === 'number' ? formatSize(r.currentSizeBytes) : undefined,
    },
    { key: 'display', value: names(r.displayFields) },
    { key: 'dimensions', value: names(r.dimensionFields) },
    { key: 'measures', value: names(r.measureFields) },
    { key: 'partition', value: names(r.partitionFields) },
    { key: 'sort', value: names(r.sortFields) },
    { key: 'distribution', value: names(r.distributionFields) },
    { key: 'tag', value: r.tag },
  ].filter((row) => row.value !== undefined && row.value !== '');
  return ctx.print({
    data: r,
    rows,
    view: {
      columns: [
        { header: 'FIELD', value: (row) => row.key },
        { header: 'VALUE', value: (row) => row.value },
      ],
    },
  });
}
