// `\dt [PATTERN]` and `\d NAME` of the SQL shell: the tables and views a pattern matches, and one dataset's
// columns. Names are written the SQL way (`Samples.sales."2024.csv"`); a pattern's unquoted components match
// case-insensitively with `*` (any text) and `?` (any one character), its quoted ones exactly, as psql's do.
// Every listing goes through the session's catalog cache, so a container is listed once however often it is
// asked for (by Tab or by \dt).
import { mapConcurrent } from '../api/catalog.js';
import type { ApiClient } from '../api/http.js';
import type { CatalogSummary } from '../api/schemas/catalog.js';
import type { Context } from '../context.js';
import { NotFoundError, UsageError } from '../errors.js';
import { render } from '../output/render.js';
import { terminalWidth } from '../output/width.js';
import { type CatalogRef, isUuid, parseRef, toSqlIdentifier } from '../util/catalog-ref.js';
import type { CatalogCache, Field } from './catalog-cache.js';
import { dottedComponents } from './complete.js';
import type { KeyRouter } from './keys.js';
import { pageOrPrint } from './pager.js';

/** Containers listed at once while a pattern is followed down. */
const LISTING_CONCURRENCY = 8;

interface Relation {
  schema: string;
  name: string;
  type: 'table' | 'view';
}

interface PatternPart {
  text: string;
  quoted: boolean;
}

/** The components of a pattern, each marked quoted or not (`Sales."Q1*".x` → Sales, "Q1*" exact, x). */
export function patternParts(pattern: string): PatternPart[] {
  const parts: PatternPart[] = [];
  let current = '';
  let quoted = false;
  let inQuotes = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (inQuotes) {
      if (c === '"' && pattern[i + 1] === '"') {
        current += '"';
        i++;
      } else if (c === '"') inQuotes = false;
      else current += c;
    } else if (c === '"') {
      inQuotes = true;
      quoted = true;
    } else if (c === '.') {
      parts.push({ text: current, quoted });
      current = '';
      quoted = false;
    } else current += c;
  }
  parts.push({ text: current, quoted });
  return parts;
}

/** Whether `name` matches one component of a pattern. */
export function matches(part: PatternPart, name: string): boolean {
  if (part.quoted) return part.text === name;
  const re = part.text
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${re}$`, 'is').test(name);
}

/**
 * The tables and views a pattern names. A one-component pattern (or none: `*`) looks in the context
 * (--context), else at the top level; a longer one starts at the top level. Each component but the last picks
 * containers to look into, the last one picks datasets.
 */
export async function findRelations(
  cache: CatalogCache,
  pattern: string,
  context: readonly string[] = [],
): Promise<Relation[]> {
  const parts = patternParts(pattern || '*');
  let containers: string[][] = [parts.length === 1 ? [...context] : []];
  for (const part of parts.slice(0, -1)) {
    const next = await mapConcurrent(containers, LISTING_CONCURRENCY, async (path) =>
      (await childrenOrNone(cache, path))
        .filter((c) => c.type === 'CONTAINER' && matches(part, last(c)))
        .map((c) => [...path, last(c)]),
    );
    containers = next.flat();
  }
  const final = parts.at(-1)!;
  const found = await mapConcurrent(containers, LISTING_CONCURRENCY, async (path) =>
    (await childrenOrNone(cache, path))
      .filter((c) => c.type === 'DATASET' && matches(final, last(c)))
      .map(
        (c): Relation => ({
          schema: toSqlIdentifier(path),
          name: toSqlIdentifier([last(c)]),
          type: c.datasetType === 'VIRTUAL' ? 'view' : 'table',
        }),
      ),
  );
  return found.flat().sort((a, b) => a.schema.localeCompare(b.schema) || a.name.localeCompare(b.name));
}

const last = (c: CatalogSummary): string => c.path.at(-1) ?? '';

/** A container that cannot be listed (gone, not a container, no permission) holds nothing a pattern finds. */
async function childrenOrNone(cache: CatalogCache, path: readonly string[]): Promise<CatalogSummary[]> {
  try {
    return await cache.children(path);
  } catch {
    return [];
  }
}

/** Whether `\d`'s argument is a pattern (then it lists, as psql's `\d` of a pattern shows every match). */
export function isPattern(text: string): boolean {
  return patternParts(text).some((p) => !p.quoted && /[*?]/.test(p.text));
}

/**
 * What `\d` describes: a `<ref>` as `catalog get` takes it (a path with `/`, or an id), or a name written the
 * SQL way, as it is typed in statements and completed by Tab (`Samples.sales."2024.csv"`).
 */
export function describedRef(text: string): CatalogRef {
  if (text.includes('/') || isUuid(text)) return parseRef(text);
  const { parents, last } = dottedComponents(text);
  return { kind: 'path', path: [...parents, last] };
}

/** psql's title line: `Table "Samples.sales.2024.csv"` or `View "…"`. */
function describedTitle(entity: { type?: string; path?: string[]; name?: string }): string {
  const kind = entity.type === 'VIRTUAL_DATASET' ? 'View' : 'Table';
  const path = entity.path ?? (entity.name ? [entity.name] : []);
  return `${kind} "${toSqlIdentifier(path)}"`;
}

/** What the shell lends `\dt` and `\d`. */
interface DescribeHost {
  ctx: Context;
  keys: KeyRouter;
  catalog: CatalogCache;
  client: () => Promise<ApiClient>;
  /** --context: where bare names are looked for first. */
  context?: readonly string[];
}

/** What psql calls each listing's things: `\dt` tables, `\dv` views, `\d` relations (both). */
const LISTED = {
  table: ['table', 'tables'],
  view: ['view', 'views'],
  both: ['relation', 'relations'],
} as const;

/** `\dt`, `\dv` and `\d` alone or with a pattern: the tables, views, or both that it matches. */
export async function showRelations(
  host: DescribeHost,
  pattern: string,
  kind: keyof typeof LISTED = 'both',
): Promise<void> {
  const { ctx } = host;
  const found = (await findRelations(host.catalog, pattern, host.context)).filter(
    (r) => kind === 'both' || r.type === kind,
  );
  if (found.length === 0) {
    const [one, many] = LISTED[kind];
    ctx.ui.notice(
      pattern
        ? `Did not find any ${one} named "${pattern}".`
        : `Did not find any ${many}.${host.context ? '' : ' Name a container: \\d Samples.*'}`,
    );
    return;
  }
  const out = await render(
    {
      data: found,
      rows: found,
      view: {
        columns: [
          { header: 'SCHEMA', value: (r: Relation) => r.schema },
          { header: 'NAME', value: (r: Relation) => r.name },
          { header: 'TYPE', value: (r: Relation) => r.type },
        ],
      },
    },
    { format: 'table', theme: ctx.theme, width: terminalWidth(ctx.streams.stdout, ctx.env) },
  );
  await pageOrPrint(ctx, out.stdout, host.keys);
}

/** `\d NAME`: a table's or view's title, then its columns and their types. Read afresh each time. */
export async function describeRelation(host: DescribeHost, ref: string): Promise<void> {
  const { ctx } = host;
  const client = await host.client();
  const { resolveRef } = await import('../api/catalog.js');
  const target = describedRef(ref);
  const context = host.context;
  // A bare name is looked for in the context first, as the service resolves it in a statement.
  const inContext =
    target.kind === 'path' && target.path.length === 1 && context?.length
      ? await resolveRef(
          client,
          { kind: 'path', path: [...context, ...target.path] },
          { exclude: ['children'] },
        ).catch((err: unknown) => {
          if (err instanceof NotFoundError) return undefined;
          throw err;
        })
      : undefined;
  const entity =
    inContext ??
    (await resolveRef(client, target, { exclude: ['children'] }).catch(async (err: unknown) => {
      if (!(err instanceof NotFoundError) || target.kind !== 'path') throw err;
      // Not in the catalog, but a statement may still read it (a system table, the emulator's `big`): the
      // columns are those the query engine gives it.
      const fields = await engineFields(host, target.path);
      if (!fields) throw err;
      return { entityType: 'dataset', type: 'PHYSICAL_DATASET', path: target.path, fields };
    }));
  if (!entity.fields) {
    throw new UsageError(`${ref} is a ${entity.entityType}: it has no columns`, {
      hint: 'describe a table or a view; \\dt lists them',
    });
  }
  const out = await render(
    {
      data: entity.fields,
      rows: entity.fields,
      view: {
        columns: [
          { header: 'COLUMN', value: (f: Field) => f.name },
          { header: 'TYPE', value: (f: Field) => typeText(f.type) },
        ],
        empty: 'No columns.',
      },
    },
    { format: 'table', theme: ctx.theme, width: terminalWidth(ctx.streams.stdout, ctx.env) },
  );
  await pageOrPrint(ctx, `${describedTitle(entity)}\n${out.stdout}`, host.keys);
  if (out.note) ctx.ui.notice(out.note);
}

/**
 * The columns of what a statement names `path`, as the query engine reads it (`SELECT * … LIMIT 0`, in the
 * session's context), or undefined when the engine does not know it either. Ctrl-C cancels the query.
 */
async function engineFields(host: DescribeHost, path: readonly string[]): Promise<Field[] | undefined> {
  const { runStatement } = await import('../export/statement.js');
  const { readRows } = await import('../export/held-rows.js');
  const controller = new AbortController();
  host.keys.running(() => controller.abort());
  try {
    const ran = await runStatement(host.ctx, {
      sql: `SELECT * FROM ${toSqlIdentifier(path)} LIMIT 0`,
      context: host.context ? [...host.context] : undefined,
      transport: 'rest',
      yes: true,
      signal: controller.signal,
    });
    if (ran.delivered) return undefined;
    const held = await readRows({ client: ran.client, id: ran.id, maxRows: 1, signal: controller.signal });
    return held.schema.map((f) => ({ name: f.name, type: f.type })) as Field[];
  } catch (err) {
    if (controller.signal.aborted) throw err;
    return undefined;
  } finally {
    host.keys.editing();
  }
}

/** A column's type as `\d` shows it: `VARCHAR`, `DECIMAL(38,2)`. */
function typeText(type: Field['type']): string {
  const t = type as { name: string; precision?: unknown; scale?: unknown };
  if (typeof t.precision === 'number' && typeof t.scale === 'number')
    return `${t.name}(${t.precision},${t.scale})`;
  return t.name;
}
