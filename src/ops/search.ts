// Catalog search as data, in the form this server has (docs/cli-contract.md "Operations insight"): the newest
// form first, the next on 404/405, detected once per profile and service URL and remembered in it (detected
// again when the URL changes, or when the remembered form answers 404/405: the server changed); pages followed to
// the limit (at most ⌈limit/page⌉ requests) as every listing follows them (api/paging.ts: an empty page ends it,
// a repeated token or page is exit 7), filtered by kind. `search` and the agents' `search_catalog` read it.
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
  const { PageTokens } = await import('../api/paging.js');
  const remembered = hosted ? 'unified' : rememberedForm(ctx, client.baseUrl);
  const forms: SearchForm[] = remembered
    ? [remembered, ...FORMS.filter((f) => f !== remembered && !hosted)]
    : [...FORMS];
  for (const form of forms) {
    try {
      const hits: SearchHit[] = [];
      if (form === 'catalog') {
        hits.push(...(await api.catalogSearch(client, { query: text, kinds }, signal)).slice(0, limit));
      } else {
        const tokens = new PageTokens(`POST ${API_SEARCH}`);
        let token: string | undefined;
        do {
          const page = await api.unifiedSearch(
            client,
            { query: text, kinds, maxResults: Math.min(SEARCH_PAGE, limit - hits.length), pageToken: token },
            signal,
          );
          hits.push(...page.hits.slice(0, limit - hits.length));
          token = tokens.next(page.next, page.hits);
        } while (token && hits.length < limit);
      }
      if (form !== remembered && !hosted) await remember(ctx, form, client.baseUrl);
      return hits;
    } catch (e) {
      // A form the server lacks (the remembered one included: the server changed) is tried no further.
      if (hosted || !api.isMissingEndpoint(e)) throw e;
    }
  }
  throw new ServiceError(
    'this server answered no form of catalog search (POST /api/v3/search, GET /api/v3/catalog/search)',
  );
}

/** The forms of search, newest first. */
const FORMS: readonly SearchForm[] = ['unified', 'catalog'];
const API_SEARCH = '/api/v3/search';

/** The form remembered for this profile and the service at `url` (another URL's form is no answer). */
function rememberedForm(ctx: Context, url: string): SearchForm | undefined {
  const name = ctx.settings().profileName.value;
  const profile = ctx.snapshot().config.profiles[name] as Record<string, unknown> | undefined;
  const form = profile?.searchForm;
  if (profile?.searchFormUrl !== url) return undefined;
  return form === 'unified' || form === 'catalog' ? form : undefined;
}

/**
 * Stores the detected form, and the service it was found at, in the profile when there is one stored (settings
 * from the environment alone: none).
 */
async function remember(ctx: Context, form: SearchForm, url: string): Promise<void> {
  const name = ctx.settings().profileName.value;
  if (!Object.hasOwn(ctx.snapshot().config.profiles, name)) return;
  try {
    await ctx.store.update((s) => {
      const p = s.config.profiles[name] as Record<string, unknown> | undefined;
      if (!p) return;
      p.searchForm = form;
      p.searchFormUrl = url;
    });
  } catch {
    // Not remembering costs one more request next time, nothing else.
  }
}
