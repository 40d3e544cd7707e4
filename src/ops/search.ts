// Catalog search as data, in the form this server has (docs/cli-contract.md "Operations insight"): the newest
// form first, the next on 404/405, detected once per profile and remembered in it; pages followed to the limit
// (at most ⌈limit/page⌉ requests), filtered by kind. `search` and the agents' `search_catalog` read it.
import type { SearchForm, SearchHit, SearchKind } from '../api/search.js';
import type { Context } from '../context.js';
import { ServiceError } from '../errors.js';

/** Results asked for per page of the unified form. */
const SEARCH_PAGE = 50;

/** Up to `limit` hits of the form this server has. */
export async function searchCatalog(
  ctx: Context,
  text: string,
  kinds: SearchKind[],
  limit: number,
  signal = ctx.interrupt.signal,
): Promise<SearchHit[]> {
  const api = await import('../api/search.js');
  const client = (await ctx.client()).withSignal(signal);
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
