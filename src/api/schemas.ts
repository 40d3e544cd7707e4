// zod schemas of every resource of the service (the specification; what it leaves out: docs/api-facts.md).
// Every object is loose: the service adds fields over time and `-o json` must show them. Types are inferred,
// never written twice.
import { z } from 'zod';

export { CPU_TIERS } from '../constants.js';

/** Tags are strings in the spec, but some servers send numbers (queue tag `0`): accept both. */
const tag = z.union([z.string(), z.number()]).transform(String);

// ── Auth ────────────────────────────────────────────────────────────────────────────────────────────

export const LoginResponseSchema = z.looseObject({
  token: z.string().min(1),
  userName: z.string(),
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  email: z.string().optional(),
  /** Epoch milliseconds. */
  expires: z.number(),
  userId: z.string().optional(),
  admin: z.boolean().optional(),
  clusterId: z.string().optional(),
  clusterCreatedAt: z.number().optional(),
  userCreatedAt: z.number().optional(),
  version: z.string().optional(),
  permissions: z.record(z.string(), z.boolean()).optional(),
});

export const OAuthTokenSchema = z.looseObject({
  access_token: z.string().min(1),
  expires_in: z.number().int().nonnegative().default(3600),
  token_type: z.string(),
  issued_token_type: z.string().optional(),
  scope: z.string().optional(),
  refresh_token: z.string().optional(),
});
export type OAuthToken = z.infer<typeof OAuthTokenSchema>;

export const ServerInfoSchema = z.looseObject({ version: z.string().optional() });

// ── Users, roles, PATs ──────────────────────────────────────────────────────────────────────────────

const RoleRefSchema = z.looseObject({
  id: z.string().optional(),
  name: z.string(),
  type: z.string().optional(),
});
export type RoleRef = z.infer<typeof RoleRefSchema>;

export const UserSchema = z.looseObject({
  '@type': z.string().optional(),
  id: z.string(),
  name: z.string(),
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  email: z.string().optional(),
  tag: tag,
  roles: z.array(RoleRefSchema).optional(),
  source: z.string().optional(),
  active: z.boolean().optional(),
});
export type User = z.infer<typeof UserSchema>;

export const RoleSchema = z.looseObject({ id: z.string(), name: z.string(), type: z.string().optional() });

const PatSchema = z.looseObject({
  tid: z.string(),
  uid: z.string(),
  label: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
});
export type Pat = z.infer<typeof PatSchema>;
export const PatListSchema = z.looseObject({ data: z.array(PatSchema) });

// ── Catalog ─────────────────────────────────────────────────────────────────────────────────────────

export const FieldSchemaSchema: z.ZodType<{ name: string; type: { name: string } }> = z.looseObject({
  name: z.string(),
  type: z.looseObject({ name: z.string() }),
});

const CatalogSummarySchema = z.looseObject({
  id: z.string(),
  path: z.array(z.string()),
  tag: tag.optional(),
  type: z.string(),
  datasetType: z.string().optional(),
  containerType: z.string().optional(),
  createdAt: z.string().optional(),
});
export type CatalogSummary = z.infer<typeof CatalogSummarySchema>;

export const CatalogListSchema = z.looseObject({ data: z.array(CatalogSummarySchema) });

const SourceStateSchema = z.looseObject({
  status: z.string(),
  messages: z.array(z.looseObject({ level: z.string(), message: z.string() })).optional(),
});

export const CatalogEntitySchema = z.looseObject({
  entityType: z.string(),
  id: z.string(),
  tag: tag.optional(),
  path: z.array(z.string()).optional(),
  name: z.string().optional(),
  type: z.string().optional(),
  createdAt: z.string().optional(),
  children: z.array(CatalogSummarySchema).optional(),
  nextPageToken: z.string().optional(),
  config: z.record(z.string(), z.unknown()).optional(),
  state: SourceStateSchema.optional(),
  fields: z.array(FieldSchemaSchema).optional(),
  sql: z.string().optional(),
  sqlContext: z.array(z.string()).optional(),
  accessControlList: z
    .looseObject({
      version: z.union([z.string(), z.number()]).optional(),
      users: z.array(z.unknown()).optional(),
    })
    .optional(),
});
export type CatalogEntity = z.infer<typeof CatalogEntitySchema>;

export const TagsSchema = z.looseObject({
  tags: z.array(z.string()),
  version: z.union([z.string(), z.number()]).optional(),
});
export type Tags = z.infer<typeof TagsSchema>;

export const WikiSchema = z.looseObject({ text: z.string(), version: z.number().optional() });
export type Wiki = z.infer<typeof WikiSchema>;

// ── Jobs ────────────────────────────────────────────────────────────────────────────────────────────

export const SubmittedJobSchema = z.looseObject({ id: z.string().min(1) });

const ReflectionRelationshipSchema = z.looseObject({
  reflectionId: z.string(),
  datasetId: z.string(),
  relationship: z.string(),
});

export const JobStatusSchema = z.looseObject({
  /** Any string: real servers report more states than the spec lists (docs/api-facts.md §4.2). */
  jobState: z.string(),
  queryType: z.string().optional(),
  startedAt: z.string().optional(),
  endedAt: z.string().optional(),
  rowCount: z.number().optional(),
  acceleration: z
    .looseObject({ reflectionRelationships: z.array(ReflectionRelationshipSchema).optional() })
    .optional(),
  errorMessage: z.string().optional(),
  queueName: z.string().optional(),
  queueId: z.string().optional(),
  resourceSchedulingStartedAt: z.string().optional(),
  resourceSchedulingEndedAt: z.string().optional(),
  cancellationReason: z.string().optional(),
});
export type JobStatus = z.infer<typeof JobStatusSchema>;

// ── Queues and reflections ──────────────────────────────────────────────────────────────────────────

export const QueueSchema = z.looseObject({
  id: z.string(),
  tag: tag,
  name: z.string(),
  maxQueryMemoryPerNodeBytes: z.number().optional(),
  maxMemoryPerNodeBytes: z.number().optional(),
  cpuTier: z.string().optional(),
  maxAllowedRunningJobs: z.number().optional(),
  maxStartTimeoutMs: z.number().optional(),
  maxRunTimeoutMs: z.number().optional(),
});
export type Queue = z.infer<typeof QueueSchema>;
export const QueueListSchema = z.looseObject({ data: z.array(QueueSchema) });

const ReflectionSummarySchema = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  reflectionType: z.string().optional(),
  datasetPath: z.array(z.string()).optional(),
  isEnabled: z.boolean().optional(),
  status: z.looseObject({}).optional(),
});
export const ReflectionSummaryPageSchema = z.looseObject({
  data: z.array(ReflectionSummarySchema),
  nextPageToken: z.string().optional(),
});
