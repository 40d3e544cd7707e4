// The route layer, outermost: turns a request's target (api/endpoint.ts) into the URL of the edition in force
// (api/roots.ts), refusing before anything is sent what that edition lacks. Where the hosted edition knows a
// resource under several paths (its documented users and roles, and the forms its vendor's own CLI uses), a
// 404 that says "no such path" tries the next form once, and the form that answered is remembered per profile,
// so that the next command goes straight to it (docs/api-facts.md §13.4).
import type { Target } from '../endpoint.js';
import { type Root, routeTarget } from '../roots.js';
import type { Layer, Outgoing, QueryValue, RawResponse } from './types.js';

/** Which hosted form of a resource family answered, kept per profile (config/store.ts). */
export interface RouteMemory {
  /** The form (its index in the target's `cloud` list) that answered last time. */
  recall(family: string): number | undefined;
  remember(family: string, form: number): void | Promise<void>;
}

interface RouteOptions {
  baseUrl: string;
  /** The token endpoint's base. */
  authUrl: string;
  root: Root;
  memory?: RouteMemory;
}

/** Where a target goes: its URLs in the order to try (the remembered form first), each with its form. */
export function routes(
  o: RouteOptions,
  target: Target,
  query?: Record<string, QueryValue>,
): Array<{ url: URL; form: number; lookup: boolean }> {
  const base = target.scope === 'auth' ? o.authUrl : o.baseUrl;
  const forms = routeTarget(o.root, target);
  const known = target.family === undefined ? undefined : o.memory?.recall(target.family);
  const order = forms.map((_, i) => i);
  if (known !== undefined && known > 0 && known < forms.length) order.unshift(...order.splice(known, 1));
  return order.map((form) => {
    const { path, filter } = forms[form]!;
    const url = withQuery(new URL(base + path), filter === undefined ? query : { ...query, filter });
    return { url, form, lookup: filter !== undefined };
  });
}

export function route(o: RouteOptions): Layer {
  return (next) => async (req) => {
    const { at } = req.spec;
    const tries = routes(o, at, req.spec.query);
    for (let i = 0; ; i++) {
      const { url, form, lookup } = tries[i]!;
      const raw = await next(outgoing(req, url));
      if (i === tries.length - 1 || !isMissingPath(raw)) {
        // Only an answer that is not "no such path" proves the form: a 404 of the last one proves nothing.
        if (i > 0 && at.family !== undefined && !isMissingPath(raw))
          await o.memory?.remember(at.family, form);
        return lookup ? foundItem(raw, at) : raw;
      }
    }
  };
}

/**
 * The answer to a lookup (a list filtered by name) as the item itself, as a by-name path answers: the one item
 * of that name, or a 404 that names what is missing (worded by api/errors.ts like any missing entity).
 */
function foundItem(raw: RawResponse, at: Target): RawResponse {
  if (raw.status >= 300) return raw;
  const name = at.key && 'name' in at.key ? at.key.name : undefined;
  let items: unknown[] = [];
  try {
    const data = (JSON.parse(raw.text) as { data?: unknown }).data;
    if (Array.isArray(data)) items = data;
  } catch {
    return raw;
  }
  const item =
    items.find((x) => (x as { name?: unknown })?.name === name) ??
    (items.length === 1 ? items[0] : undefined);
  if (item !== undefined) return { ...raw, text: JSON.stringify(item) };
  return {
    ...raw,
    status: 404,
    text: JSON.stringify({ errorMessage: `${at.resource} ${JSON.stringify(name)} not found` }),
  };
}

function outgoing(req: Outgoing, url: URL): Outgoing {
  return { ...req, url, endpoint: `${req.spec.method} ${url.pathname}` };
}

function withQuery(url: URL, query: Record<string, QueryValue> | undefined): URL {
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const item of v) url.searchParams.append(k, item);
    else url.searchParams.set(k, String(v));
  }
  return url;
}

/**
 * A 404 of a path the server does not have, rather than of a missing entity: an empty or HTML body, or the web
 * framework's generic wording (docs/api-facts.md §1.4). A missing user names the user instead.
 */
function isMissingPath(raw: Pick<RawResponse, 'status' | 'text'>): boolean {
  if (raw.status !== 404) return false;
  const text = raw.text.trim();
  if (text === '' || text.startsWith('<')) return true;
  try {
    const body = JSON.parse(text) as { errorMessage?: unknown; message?: unknown };
    const said = body.errorMessage ?? body.message;
    return said === undefined || said === 'HTTP 404 Not Found' || said === 'Not Found';
  } catch {
    return /^(HTTP 404 )?Not Found$/i.test(text);
  }
}
