// `dlake catalog lineage REF`: a dataset's parents, children and sources as a small tree (Enterprise).
import type { Command } from '@commander-js/extra-typings';
import type { LineageItem } from '../../api/grants.js';
import type { Context } from '../../context.js';
import { getLineage } from '../../ops/catalog.js';
import { stderrSafe } from '../../output/safe-text.js';
import { formatPath } from '../../util/catalog-ref.js';
import { examples } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { idOption, refOf } from './options.js';

const declaration = (catalog: Command) =>
  catalog
    .command('lineage')
    .description(
      'Show the datasets a dataset reads (parents), those that read it (children), and their sources',
    )
    .argument('<ref>', 'dataset path or id')
    .addOption(idOption())
    .addHelpText(
      'after',
      examples('dlake catalog lineage Sales/orders_by_region', 'dlake catalog lineage Sales/orders -o json'),
    );

export const register = defineCommand(declaration, lineage);

async function lineage(ctx: Context, ref: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const { entity, lineage: graph } = await getLineage(ctx, refOf(ref, opts));
  if (ctx.format !== 'table' || ctx.opts.query) {
    // json and ndjson: the service's object; csv: one row per relation.
    const rows = (['parents', 'children', 'sources'] as const).flatMap((relation) =>
      graph[relation].map((i) => ({
        relation: relation.replace(/s$/, ''),
        path: label(i),
        id: i.id,
        type: kind(i),
      })),
    );
    return ctx.print({ data: graph, rows });
  }
  const lines = [entity.path ? formatPath(entity.path) : ref];
  const groups = (['parents', 'children', 'sources'] as const).filter((g) => graph[g].length > 0);
  groups.forEach((g, gi) => {
    const lastGroup = gi === groups.length - 1;
    lines.push(`${lastGroup ? '└─' : '├─'} ${g}`);
    graph[g].forEach((item, i) => {
      const lastItem = i === graph[g].length - 1;
      lines.push(
        `${lastGroup ? '   ' : '│  '}${lastItem ? '└─' : '├─'} ${label(item)}${kind(item) ? ` (${kind(item)})` : ''}`,
      );
    });
  });
  if (groups.length === 0) ctx.ui.notice(`${lines[0]} has no parents, children or sources.`);
  // Names as the service stores them: control and invisible characters shown, never sent raw to the terminal.
  ctx.streams.stdout.write(`${stderrSafe(lines.join('\n'))}\n`);
}

const label = (i: LineageItem): string => (i.path ? formatPath(i.path) : i.id);
const kind = (i: LineageItem): string => i.datasetType ?? i.containerType ?? i.type ?? '';
