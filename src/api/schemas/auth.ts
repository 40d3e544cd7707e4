// zod schemas of the token answers (the password login, OAuth) (the tolerance policy and its helpers: api/schemas.ts).
import * as z from 'zod/mini';
import '../../util/zod.js';
import { count, epochMs, optional, text } from '../schemas.js';

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
