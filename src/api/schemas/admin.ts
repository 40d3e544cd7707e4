// zod schemas of users, roles, PATs and workload queues (the tolerance policy and its helpers: api/schemas.ts).
import * as z from 'zod/mini';
import '../../util/zod.js';
import { count, optional, text, time } from '../schemas.js';

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
