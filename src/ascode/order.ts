// The order of writes: containers before their contents, a view after the views, datasets and sources its SQL
// reads. References are extracted from the SQL text; what cannot be known from it is left to apply's retry
// rounds.

const IDENT = String.raw`(?:"(?:[^"]|"")*"|[A-Za-z_@$][\w$@]*)`;
const NAME = new RegExp(String.raw`\b(?:FROM|JOIN)\s+(${IDENT}(?:\s*\.\s*${IDENT})*)`, 'gi');
const CTE = new RegExp(String.raw`(?:\bWITH|,)\s*(${IDENT})\s+AS\s*\(`, 'gi');

function components(name: string): string[] {
  const out: string[] = [];
  const re = new RegExp(IDENT, 'g');
  for (const m of name.matchAll(re)) {
    const c = m[0];
    out.push(c.startsWith('"') ? c.slice(1, -1).replace(/""/g, '"') : c);
  }
  return out;
}

/** The dataset names a query reads (after FROM and JOIN, sub-queries included), less its CTE names. */
export function sqlReferences(sql: string): string[][] {
  // Comments and string literals are no references.
  const text = sql.replace(/--[^\n]*|\/\*[\s\S]*?\*\/|'(?:[^']|'')*'/g, ' ');
  const ctes = new Set([...text.matchAll(CTE)].map((m) => components(m[1]!)[0]!.toLowerCase()));
  const refs: string[][] = [];
  for (const m of text.matchAll(NAME)) {
    const path = components(m[1]!);
    if (path.length === 1 && ctes.has(path[0]!.toLowerCase())) continue;
    refs.push(path);
  }
  return refs;
}

/** A catalog path as the order matches it (case-insensitive, as the catalog). */
export const catalogKey = (path: readonly string[]) => JSON.stringify(path.map((c) => c.toLowerCase()));

interface Orderable {
  path: string[];
  sql?: string;
  sqlContext?: string[];
  /** Not a catalog entity (an admin kind): its own key, and the keys it comes after. */
  key?: string;
  after?: string[];
}

/** For each of `items`, the indexes of the others it comes after: its containers, and what its SQL reads. */
export function dependencies(items: readonly Orderable[]): Set<number>[] {
  const index = new Map(items.map((it, i) => [it.key ?? catalogKey(it.path), i]));
  return items.map((it, i) => {
    const out = new Set<number>();
    if (it.key !== undefined) {
      for (const k of it.after ?? []) {
        const dep = index.get(k);
        if (dep !== undefined) out.add(dep);
      }
      return out;
    }
    for (let n = 1; n < it.path.length; n++) {
      const parent = index.get(catalogKey(it.path.slice(0, n)));
      if (parent !== undefined) out.add(parent);
    }
    if (it.sql) {
      for (const ref of sqlReferences(it.sql)) {
        for (const candidate of [[...(it.sqlContext ?? []), ...ref], ref]) {
          // A reference to a dataset inside a promoted folder or a source names its container too.
          for (let n = candidate.length; n >= 1; n--) {
            const dep = index.get(catalogKey(candidate.slice(0, n)));
            if (dep !== undefined) {
              out.add(dep);
              break;
            }
          }
        }
      }
    }
    out.delete(i);
    return out;
  });
}

/**
 * Runs `fn` for every node of a dependency graph (`deps[n]`: the nodes n comes after), at most `max` at once,
 * each as soon as what it comes after has finished (failed or not), rather than in waves that wait for their
 * slowest member. When only nodes waiting on a cycle are left, the first of them starts anyway. Results come in
 * the order the nodes started.
 */
export function runGraph<R>(
  deps: ReadonlyArray<ReadonlySet<number>>,
  max: number,
  fn: (node: number) => Promise<R>,
): Promise<R[]> {
  const dependents = deps.map(() => [] as number[]);
  const blocked = deps.map((d, n) => {
    for (const m of d) dependents[m]!.push(n);
    return d.size;
  });
  const queued = deps.map((d) => d.size === 0);
  const ready = deps.flatMap((d, n) => (d.size === 0 ? [n] : []));
  const results: R[] = [];
  let running = 0;
  return new Promise((resolve, reject) => {
    const pump = () => {
      if (ready.length === 0 && running === 0) {
        // Nothing can run: what is left waits on a cycle. Its first node starts, which unblocks the rest.
        const next = queued.indexOf(false);
        if (next === -1) return resolve(results);
        queued[next] = true;
        ready.push(next);
      }
      while (running < max && ready.length) {
        const n = ready.shift()!;
        const slot = results.length;
        results.length++;
        running++;
        fn(n).then((r) => {
          results[slot] = r;
          running--;
          for (const m of dependents[n]!) {
            if (--blocked[m]! === 0 && !queued[m]) {
              queued[m] = true;
              ready.push(m);
            }
          }
          pump();
        }, reject);
      }
    };
    pump();
  });
}
