// Shapes of the two stored files (cli.md "Config store"). Unknown fields are kept so that a newer
// dlake's additions survive an older dlake's write.
import { z } from 'zod';

export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** How a profile's credentials were obtained; shown by `whoami` and used to pick a renewal. */
export const AUTH_METHODS = ['password', 'pat', 'client-credentials', 'jwt', 'pat-exchange'] as const;

export const ProfileSchema = z.looseObject({
  url: z.string().optional(),
  authUrl: z.string().optional(),
  authMethod: z.enum(AUTH_METHODS).optional(),
  username: z.string().optional(),
  clientId: z.string().optional(),
  output: z.enum(OUTPUT_FORMATS).optional(),
});
export type Profile = z.infer<typeof ProfileSchema>;

export const ConfigFileSchema = z.looseObject({
  version: z.literal(1).default(1),
  currentProfile: z.string().optional(),
  profiles: z.record(z.string(), ProfileSchema).default({}),
});
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

export const StoredTokenSchema = z.looseObject({
  kind: z.enum(['session', 'bearer']),
  token: z.string().min(1),
  /** ISO 8601; absent for a PAT whose expiry is unknown. */
  expiresAt: z.iso.datetime({ offset: true }).optional(),
  obtainedVia: z.enum(AUTH_METHODS),
  refreshToken: z.string().optional(),
  /**
   * The PAT an access token was exchanged from (an addition to cli.md's shape): kept so that the
   * access token can be renewed by a new PAT exchange when it expires.
   */
  pat: z.string().optional(),
  patExpiresAt: z.iso.datetime({ offset: true }).optional(),
  /** Who the token belongs to, when known (login response, PAT verification). */
  username: z.string().optional(),
  /** The service the token was issued for: a token is never sent to another URL. */
  url: z.string().optional(),
});
export type StoredToken = z.infer<typeof StoredTokenSchema>;

export const CredentialsFileSchema = z.looseObject({
  version: z.literal(1).default(1),
  tokens: z.record(z.string(), StoredTokenSchema).default({}),
});
export type CredentialsFile = z.infer<typeof CredentialsFileSchema>;

export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
