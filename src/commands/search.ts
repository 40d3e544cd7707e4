// `dlake search TEXT`: catalog search in the form this server has (docs/cli-contract.md "Operations
// insight"): the newest form first, the next on 404/405, detected once per profile and remembered in it; pages
// followed to --limit (at most ⌈limit/page⌉ requests), --type filtering by kind.
import type { Command } from '@commander-js/extra-typings';
import { SEARCH_KINDS as KINDS, type SearchHit, type SearchKind } from '../api/search.js';
import type { Context } from '../context.js';
import { searchCatalog } from '../ops/search.js';
import { formatPath } from '../util/catalog-ref.js';
import { examples } from './common.js';
import { defineCommand, type OptionsOf } from './define.js';
import { choose, repeatable, wholeNumber } from './options.js';

const MAX_LIMIT = 10_000;

const declaration = (search: Command) =>
  search
    .description('Search the catalog (and, where the server can, jobs and reflections) for TEXT')
    .argument('<text>', 'what to look for')
    .option(
      '--type <kind>',
      `only results of this kind (${KINDS.join(', ')}); repeatable or comma-separated`,
      repeatable('--type', { commas: true }),
    )
    .option(
      '--limit <n>',
      `results to show (default 50, at most ${MAX_LIMIT})`,
      wholeNumber('--limit', { min: 1, max: MAX_LIMIT }),
    )
    .addHelpText(
      'after',
      examples(
        'dlake search orders',
        'dlake search orders --type table,view',
        'dlake search "daily revenue" --limit 200 -o json',
      ),
    );

export const register = defineCommand(declaration, search);

async function search(ctx: Context, text: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const kinds = (opts.type ?? []).map((t) => choose('--type', t, KINDS)) as SearchKind[];
  const limit = opts.limit ?? 50;
  const hits = await searchCatalog(ctx, text, kinds, limit);
  await ctx.print({
    data: hits,
    rows: hits,
    view: {
      columns: [
        { header: 'KIND', value: (h: SearchHit) => h.kind.toUpperCase() },
        { header: 'PATH', value: (h: SearchHit) => (h.path ? formatPath(h.path) : (h.jobId ?? '')) },
        { header: 'ID', value: (h: SearchHit) => h.id ?? '' },
      ],
      empty: 'No results.',
    },
  });
}
