// `dlake catalog get REF`: one entity in full; the table form lists what matters for its kind.
import type { Command } from '@commander-js/extra-typings';
import type { CatalogEntity } from '../../api/schemas/catalog.js';
import type { Context } from '../../context.js';
import { getEntity } from '../../ops/catalog.js';
import { type Detail, detail } from '../../output/view.js';
import { formatPath } from '../../util/catalog-ref.js';
import { examples } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { repeatable } from '../options.js';
import { idOption, refOf } from './options.js';
import { entityType } from './views.js';

const declaration = (catalog: Command) =>
  catalog
    .command('get')
    .description('Show a catalog entity in full')
    .argument('<ref>', 'path or id')
    .addOption(idOption())
    .option(
      '--include <attr>',
      'add a non-default attribute, e.g. permissions (repeatable)',
      repeatable('--include', { commas: true }),
    )
    .option(
      '--exclude <attr>',
      'drop an attribute, e.g. children (repeatable)',
      repeatable('--exclude', { commas: true }),
    )
    .addHelpText(
      'after',
      examples(
        'dlake catalog get Sales/reports/q1 -o json',
        "dlake catalog get 'Samples/Q1 report.final.csv' --exclude children",
        'dlake catalog get --id 7f1c2a9e-0d51-4d8e-9a3b-2b7f1f0f6c11',
      ),
    );

export const register = defineCommand(declaration, get);

/** The table form of `get`: what identifies the entity, then what matters for its kind. */
function detailRows(e: CatalogEntity, path: string[]): Detail[] {
  const rows: Detail[] = [
    { key: 'path', value: formatPath(path) },
    { key: 'type', value: entityType(e) },
    { key: 'id', value: e.id },
    { key: 'tag', value: e.tag },
    { key: 'createdAt', value: e.createdAt },
  ];
  if (e.entityType === 'source') {
    rows.push({ key: 'sourceType', value: e.type });
    rows.push({ key: 'state', value: e.state?.status });
    for (const m of e.state?.messages ?? []) rows.push({ key: '', value: `${m.level}: ${m.message}` });
    for (const [k, v] of Object.entries(e.config ?? {})) rows.push({ key: `config.${k}`, value: v });
  }
  if (e.entityType === 'dataset') {
    if (e.sql !== undefined) rows.push({ key: 'sql', value: e.sql });
    if (e.sqlContext) rows.push({ key: 'sqlContext', value: formatPath(e.sqlContext) });
    const format = e.format as { type?: string } | undefined;
    if (format?.type) rows.push({ key: 'format', value: format.type });
    for (const f of e.fields ?? []) rows.push({ key: `field ${f.name}`, value: f.type.name });
  }
  if (e.children) {
    const more = e.nextPageToken ? ' (more: dlake catalog ls lists all)' : '';
    rows.push({ key: 'children', value: `${e.children.length}${more}` });
  }
  return rows;
}

async function get(ctx: Context, refArg: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const ref = refOf(refArg, opts);
  const entity = await getEntity(ctx, ref, { include: opts.include, exclude: opts.exclude });
  const { entityPath } = await import('../../api/catalog.js');
  await ctx.print(detail(entity, detailRows(entity, entityPath(entity))));
}
