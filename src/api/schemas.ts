// zod schemas of every resource of the service. They follow one policy, written down in docs/api-facts.md
// ("Response schemas: the tolerance policy"): validate only what dlake uses; a field the spec does not promise
// in every answer is optional; unknown fields pass through (every object is loose); and the type variants real
// servers send are normalised here, by the helpers below, never in a command. `-o json` prints what the
// service sent, not these parsed objects (see util/received.ts). Types are inferred, never written twice.
import * as z from 'zod/mini';
import '../util/zod.js';

export { CPU_TIERS } from '../constants.js';

// ── Tolerance: the one place where type variants are normalised ─────────────────────────────────────

/** Ids, tags, names of versions, ports: strings in the spec, numbers on some servers (queue tag `0`). */
export const text = z.pipe(z.union([z.string(), z.number()]), z.transform(String));

/** A version that is sent back on the next write: kept in the type the service used, compared as text. */
const echoedVersion = z.union([z.string(), z.number()]);

/** Times: ISO 8601 strings in the spec, epoch milliseconds on some servers; always an ISO string here. */
const time = z.pipe(
  z.union([z.string(), z.number()]),
  z.transform((v) => {
    if (typeof v === 'string') return v;
    const d = new Date(v);
    return Number.isNaN(d.getTime()) ? String(v) : d.toISOString();
  }),
);

/** Epoch milliseconds (login `expires`): a number in the spec; an ISO string is turned into one. */
const epochMs = z.pipe(
  z.union([z.number(), z.string()]),
  z.transform((v, ctx) => {
    const ms = typeof v === 'number' ? v : /^\d+$/.test(v) ? Number(v) : Date.parse(v);
    if (Number.isNaN(ms)) {
      ctx.issues.push({
        code: 'custom',
        message: 'expected epoch milliseconds or an ISO 8601 time',
        input: v,
      });
      return z.NEVER;
    }
    return ms;
  }),
);

/** Counts: numbers, or numbers written as strings. */
export const count = z.pipe(z.union([z.number(), z.string().check(z.regex(/^\d+$/))]), z.transform(Number));

/**
 * A field the spec does not promise in every answer: it may be missing, and `null` (which servers send where
 * the spec shows a value) counts as missing.
 */
export function optional<T extends z.ZodMiniType>(schema: T) {
  return z.optional(
    z.pipe(
      z.nullish(schema),
      z.transform((v) => v ?? undefined),
    ),
  );
}

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

/** A column's type: `{name: "VARCHAR", …}` in the spec, a bare `"VARCHAR"` on some servers. */
const columnType = z.union([
  z.pipe(
    z.string(),
    z.transform((name) => ({ name })),
  ),
  z.looseObject({ name: z.string() }),
]);

// ── Auth ────────────────────────────────────────────────────────────────────────────────────────────

export const LoginResponseSchema = z.looseObject({
  token: z.string().check(z.minLength(1)),
  userName: z.string(),
  firstName: optional(z.string()),
  lastName: optional(z.string()),
  email: optional(z.string()),
  /** Epoch milliseconds. */
  expires: epochMs,
  userId: optional(text),
  admin: optional(z.boolean()),
  clusterId: optional(text),
  clusterCreatedAt: optional(epochMs),
  userCreatedAt: optional(epochMs),
  version: optional(text),
  permissions: optional(z.record(z.string(), z.unknown())),
});

export const OAuthTokenSchema = z.looseObject({
  access_token: z.string().check(z.minLength(1)),
  expires_in: z.pipe(
    optional(count),
    z.transform((v) => v ?? 3600),
  ),
  token_type: optional(z.string()),
  issued_token_type: optional(z.string()),
  scope: optional(z.string()),
  refresh_token: optional(z.string()),
});
export type OAuthToken = z.infer<typeof OAuthTokenSchema>;

// ── Users, roles, PATs ──────────────────────────────────────────────────────────────────────────────

export const RoleRefSchema = z.looseObject({
  id: optional(text),
  name: z.string(),
  type: optional(z.string()),
});
export type RoleRef = z.infer<typeof RoleRefSchema>;

export const UserSchema = z.looseObject({
  '@type': optional(z.string()),
  id: text,
  name: z.string(),
  firstName: optional(z.string()),
  lastName: optional(z.string()),
  email: optional(z.string()),
  /** Missing on service users and on users of the hosted edition. */
  tag: optional(text),
  roles: optional(z.array(RoleRefSchema)),
  source: optional(z.string()),
  active: optional(z.boolean()),
});
export type User = z.infer<typeof UserSchema>;

export const RoleSchema = z.looseObject({ id: text, name: z.string(), type: optional(z.string()) });

export const PatSchema = z.looseObject({
  tid: text,
  uid: optional(text),
  label: optional(z.string()),
  createdAt: optional(time),
  expiresAt: optional(time),
});
export type Pat = z.infer<typeof PatSchema>;
export const PatListSchema = z.looseObject({ data: z.array(PatSchema) });

// ── Catalog ─────────────────────────────────────────────────────────────────────────────────────────

export const FieldSchemaSchema = z.looseObject({ name: z.string(), type: columnType });

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

// ── Jobs ────────────────────────────────────────────────────────────────────────────────────────────

export const SubmittedJobSchema = z.looseObject({ id: z.pipe(text, z.string().check(z.minLength(1))) });

const ReflectionRelationshipSchema = z.looseObject({
  reflectionId: text,
  datasetId: optional(text),
  relationship: z.string(),
});

export const JobStatusSchema = z.looseObject({
  /** Any string: real servers report more states than the spec lists (docs/api-facts.md §4.2). */
  jobState: z.string(),
  queryType: optional(z.string()),
  startedAt: optional(time),
  endedAt: optional(time),
  // A count of rows below 0 breaks the contract (exit 7), whatever a later page would say.
  rowCount: optional(z.pipe(count, z.number().check(z.nonnegative()))),
  acceleration: optional(
    z.looseObject({ reflectionRelationships: optional(z.array(ReflectionRelationshipSchema)) }),
  ),
  errorMessage: optional(z.string()),
  queueName: optional(z.string()),
  queueId: optional(text),
  resourceSchedulingStartedAt: optional(time),
  resourceSchedulingEndedAt: optional(time),
  cancellationReason: optional(z.string()),
});
export type JobStatus = z.infer<typeof JobStatusSchema>;

// ── Queues and reflections ──────────────────────────────────────────────────────────────────────────

export const QueueSchema = z.looseObject({
  id: text,
  tag: optional(text),
  name: z.string(),
  maxQueryMemoryPerNodeBytes: optional(count),
  maxMemoryPerNodeBytes: optional(count),
  cpuTier: optional(z.string()),
  maxAllowedRunningJobs: optional(count),
  maxStartTimeoutMs: optional(count),
  maxRunTimeoutMs: optional(count),
});
export type Queue = z.infer<typeof QueueSchema>;
export const QueueListSchema = z.looseObject({ data: z.array(QueueSchema) });

const ReflectionSummarySchema = z.looseObject({
  id: text,
  name: optional(z.string()),
  reflectionType: optional(z.string()),
  datasetPath: optional(z.array(z.string())),
  isEnabled: optional(z.boolean()),
  status: optional(z.looseObject({})),
});
export const ReflectionSummaryPageSchema = z.looseObject({
  data: z.array(ReflectionSummarySchema),
  nextPageToken: optional(z.string()),
});
