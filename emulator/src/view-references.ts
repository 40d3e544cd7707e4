// The datasets a view's SQL reads, checked when the view is created or changed, as the service does when it
// validates a view: a reference to nothing is a 400. Names after FROM and JOIN, quoted or not, are looked up as
// given and relative to the view's sqlContext; CTE names and the system schemas are not datasets.
import type { CatalogStore } from './catalog-store.js';

const IDENT = String.raw`(?:"(?:[^"]|"")*"|[A-Za-z_@$][\w$@]*)`;
const NAME = new RegExp(String.raw`\b(?:FROM|JOIN)\s+(${IDENT}(?:\s*\.\s*${IDENT})*)`, 'gi');
const CTE = new RegExp(String.raw`(?:\bWITH|,)\s*(${IDENT})\s+AS\s*\(`, 'gi');
const SYSTEM = new Set(['sys', 'information_schema', 'information_schema_catalog_name']);

function components(name: string): string[] {
  return [...name.matchAll(new RegExp(IDENT, 'g'))].map((m) =>
    m[0].startsWith('"') ? m[0].slice(1, -1).replace(/""/g, '"') : m[0],
  );
}

/** The first reference of `sql` that names nothing in the catalog, or undefined. */
export function missingReference(
  store: CatalogStore,
  sql: string,
  sqlContext: readonly string[] | undefined,
): string[] | undefined {
  const text = sql.replace(/--[^\n]*|\/\*[\s\S]*?\*\/|'(?:[^']|'')*'/g, ' ');
  const ctes = new Set([...text.matchAll(CTE)].map((m) => components(m[1]!)[0]!.toLowerCase()));
  for (const m of text.matchAll(NAME)) {
    const ref = components(m[1]!);
    const first = ref[0]!.toLowerCase();
    if ((ref.length === 1 && ctes.has(first)) || SYSTEM.has(first)) continue;
    const found = [[...(sqlContext ?? []), ...ref], ref].some((p) => store.resolvePath(p) !== undefined);
    if (!found) return ref;
  }
  return undefined;
}
