// `dlake catalog tree [REF]`: containers and datasets as a tree, containers listed concurrently.
import { type Command, Option } from '@commander-js/extra-typings';
import type { TreeNode } from '../../api/catalog.js';
import type { Context } from '../../context.js';
import { formatPath } from '../../util/catalog-ref.js';
import { examples } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { concurrencyOption, wholeNumber } from '../options.js';
import { idOption, pageSizeOption, refOf } from './options.js';
import { entityType, summaryType } from './views.js';

const DEFAULT_CONCURRENCY = 8;

const declaration = (catalog: Command) =>
  catalog
    .command('tree')
    .description('Show containers and datasets as a tree, listing containers concurrently')
    .argument('[ref]', 'path or id of the container to start from (default: the top level)')
    .addOption(idOption())
    .addOption(
      new Option('--depth <n>', 'levels to show (default: all)').argParser(
        wholeNumber('--depth', { min: 1 }),
      ),
    )
    .addOption(concurrencyOption('listing requests', DEFAULT_CONCURRENCY))
    .addOption(pageSizeOption())
    .addHelpText(
      'after',
      examples(
        'dlake catalog tree',
        'dlake catalog tree Samples --depth 2',
        'dlake catalog tree Sales -o json',
      ),
    );

export const register = defineCommand(declaration, tree);

interface TreeRow {
  level: number;
  path: string[];
  type: string;
  id: string;
}

async function tree(
  ctx: Context,
  refArg: string | undefined,
  opts: OptionsOf<typeof declaration>,
): Promise<void> {
  const ref = refArg === undefined ? undefined : refOf(refArg, opts);
  const api = await import('../../api/catalog.js');
  const client = await ctx.client();
  const spinner = ctx.format === 'table' ? await ctx.ui.spinner('Listing the catalog…') : undefined;
  const walk = {
    depth: opts.depth,
    concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY,
    pageSize: opts.pageSize,
    onListed: (n: number) => spinner?.update(`Listing the catalog… ${n} containers`),
  };
  const rows: TreeRow[] = [];
  const flatten = (nodes: TreeNode[], level: number) => {
    for (const n of nodes) {
      rows.push({ level, path: n.path, type: summaryType(n), id: n.id });
      if (n.children) flatten(n.children, level + 1);
    }
  };
  let data: unknown;
  try {
    if (ref) {
      const root = await api.resolveRef(client, ref, { exclude: ['children'] });
      const nodes = api.isContainerEntity(root) ? await api.walkTree(client, { id: root.id }, walk) : [];
      const { nextPageToken: _, ...rootFields } = root;
      data = api.isContainerEntity(root) ? { ...rootFields, children: nodes } : rootFields;
      rows.push({ level: 0, path: api.entityPath(root), type: entityType(root), id: root.id });
      flatten(nodes, 1);
    } else {
      const nodes = await api.walkTree(client, { roots: await api.listTopLevel(client) }, walk);
      data = nodes;
      flatten(nodes, 0);
    }
  } finally {
    spinner?.stop();
  }
  // The table indents each path under its parent; csv keeps plain paths and says the level instead.
  const indent = ctx.format === 'table';
  await ctx.print({
    data,
    rows,
    view: {
      empty: 'The catalog is empty.',
      columns: [
        { header: 'PATH', value: (r: TreeRow) => (indent ? '  '.repeat(r.level) : '') + formatPath(r.path) },
        { header: 'TYPE', value: (r: TreeRow) => r.type },
        { header: 'ID', value: (r: TreeRow) => r.id },
        ...(indent ? [] : [{ header: 'LEVEL', value: (r: TreeRow) => r.level }]),
      ],
    },
  });
}
