// zod schemas of catalog entities, their tags and wiki (the tolerance policy and its helpers: api/schemas.ts).
import * as z from 'zod/mini';
import '../../util/zod.js';
import { echoedVersion, FieldSchemaSchema, optional, text, time } from '../schemas.js';

/**
 * Catalog paths. File-system sources wrap the names of their files and folders in literal double quotes (the
 * component `"nyctaxi"`, quotes included) while the same folder read on its own has the path
 * `["adls", "nyctaxi"]`, and by-path lookups take the bare name. Those wrapping quotes are dropped, so paths
 * print as the user types them (`adls/nyctaxi`, not `adls/"""nyctaxi"""`) and resolve when pasted back.
 * Names with quotes inside are kept, and so is the name of a view (a view may be called `"x"`, quotes
 * included; views never live in file-system sources, and containers cannot have quotes in their names).
 */
function unwrapFileSystemQuotes<T extends { path?: string[] }>(entity: T, isView: boolean): T {
  const path = entity.path;
  if (!path) return entity;
  const last = path.length - 1;
  entity.path = path.map((c, i) => (/^"[^"]+"$/.test(c) && !(isView && i === last) ? c.slice(1, -1) : c));
  return entity;
}

// ── Catalog ─────────────────────────────────────────────────────────────────────────────────────────

export const CatalogSummarySchema = z.pipe(
  z.looseObject({
    id: text,
    path: z.array(z.string()),
    tag: optional(text),
    type: z.string(),
    datasetType: optional(z.string()),
    containerType: optional(z.string()),
    createdAt: optional(time),
  }),
  z.transform((e) => unwrapFileSystemQuotes(e, e.datasetType === 'VIRTUAL')),
);
export type CatalogSummary = z.infer<typeof CatalogSummarySchema>;

export const CatalogListSchema = z.looseObject({ data: z.array(CatalogSummarySchema) });

const SourceStateSchema = z.looseObject({
  status: optional(z.string()),
  messages: optional(z.array(z.looseObject({ level: optional(z.string()), message: optional(z.string()) }))),
});

export const CatalogEntitySchema = z.pipe(
  z.looseObject({
    entityType: z.string(),
    id: text,
    tag: optional(text),
    path: optional(z.array(z.string())),
    name: optional(z.string()),
    type: optional(z.string()),
    createdAt: optional(time),
    children: optional(z.array(CatalogSummarySchema)),
    nextPageToken: optional(z.string()),
    config: optional(z.record(z.string(), z.unknown())),
    state: optional(SourceStateSchema),
    fields: optional(z.array(FieldSchemaSchema)),
    sql: optional(z.string()),
    sqlContext: optional(z.array(z.string())),
    accessControlList: optional(
      z.looseObject({
        version: optional(echoedVersion),
        users: optional(z.array(z.unknown())),
      }),
    ),
  }),
  z.transform((e) => unwrapFileSystemQuotes(e, e.type === 'VIRTUAL_DATASET')),
);
export type CatalogEntity = z.infer<typeof CatalogEntitySchema>;

export const TagsSchema = z.looseObject({
  tags: z.array(z.string()),
  version: optional(echoedVersion),
});
export type Tags = z.infer<typeof TagsSchema>;

export const WikiSchema = z.looseObject({
  text: z.pipe(
    optional(z.string()),
    z.transform((t) => t ?? ''),
  ),
  version: optional(echoedVersion),
});
export type Wiki = z.infer<typeof WikiSchema>;
