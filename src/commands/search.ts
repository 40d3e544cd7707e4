// `dlake search TEXT`: catalog search in the form this server has (docs/cli-contract.md "Operations
// insight"): the newest form first, the next on 404/405, detected once per profile and remembered in it; pages
// followed to --limit (at most ⌈limit/page⌉ requests), --type filtering by kind.
import type { Command } from '@commander-js/extra-typings';
import { SEARCH_KINDS as KINDS, type SearchForm, type SearchHit, type SearchKind } from '../api/search.js';
import type { Context } from '../context.js';
import { ServiceError } from '../errors.js';
import { formatPath } from '../util/catalog-ref.js';
import { examples } from './common.js';
import { defineCommand, type OptionsOf } from './define.js';
import { choose, repeatable, wholeNumber } from './options.js';

/** Results asked for per page of the unified form. */
const SEARCH_PAGE = 50;
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

/** Up to `limit` hits of the form this server has (the agents' `search_catalog` calls the same). */
export async function searchCatalog(
  ctx: Context,
  text: string,
  kinds: SearchKind[],
  limit: number,
): Promise<SearchHit[]> {
  const api = await import('../api/search.js');
  const client = await ctx.client();
  const signal = ctx.interrupt.signal;
  const hosted = ctx.root().edition === 'cloud';
  const remembered = hosted ? 'unified' : rememberedForm(ctx);
  const forms: SearchForm[] = remembered ? [remembered] : ['unified', 'catalog'];
  for (const form of forms) {
    try {
      const hits: SearchHit[] = [];
      if (form === 'catalog') {
        hits.push(...(await api.catalogSearch(client, { query: text, kinds }, signal)).slice(0, limit));
      } else {
        let token: string | undefined;
        do {
          const page = await api.unifiedSearch(
            client,
            { query: text, kinds, maxResults: Math.min(SEARCH_PAGE, limit - hits.length), pageToken: token },
            signal,
          );
          hits.push(...page.hits.slice(0, limit - hits.length));
          token = page.next;
        } while (token && hits.length < limit);
      }
      if (!remembered && !hosted) await remember(ctx, form);
      return hits;
    } catch (e) {
      // Only while detecting: a form the server lacks is tried no further.
      if (remembered || !api.isMissingEndpoint(e)) throw e;
    }
  }
  throw new ServiceError(
    'this server answered no form of catalog search (POST /api/v3/search, GET /api/v3/catalog/search)',
  );
}

function rememberedForm(ctx: Context): SearchForm | undefined {
  const name = ctx.settings().profileName.value;
  const profile = ctx.snapshot().config.profiles[name] as Record<string, unknown> | undefined;
  const form = profile?.searchForm;
  return form === 'unified' || form === 'catalog' ? form : undefined;
}

/** Stores the detected form in the profile, when there is one stored (settings from the environment alone: none). */
async function remember(ctx: Context, form: SearchForm): Promise<void> {
  const name = ctx.settings().profileName.value;
  if (!Object.hasOwn(ctx.snapshot().config.profiles, name)) return;
  try {
    await ctx.store.update((s) => {
      const p = s.config.profiles[name] as Record<string, unknown> | undefined;
      if (p) p.searchForm = form;
    });
  } catch {
    // Not remembering costs one more request next time, nothing else.
  }
}
