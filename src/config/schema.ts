// Shapes of the two stored files (docs/cli-contract.md "Config store"). Unknown fields are kept so that a
// newer dlake's additions survive an older dlake's write. zod/mini (tree-shaken, ~4 ms to load instead of ~17
// ms for classic zod) because every command that talks to the service reads these files first.
import * as z from 'zod/mini';
import { EDITIONS, OUTPUT_FORMATS } from '../global-options.js';
import '../util/zod.js';

/** How a profile's credentials were obtained; shown by `whoami` and used to pick a renewal. */
const AUTH_METHODS = ['password', 'pat', 'client-credentials', 'jwt', 'pat-exchange'] as const;

const ProfileSchema = z.looseObject({
  url: z.optional(z.string()),
  authUrl: z.optional(z.string()),
  authMethod: z.optional(z.enum(AUTH_METHODS)),
  username: z.optional(z.string()),
  clientId: z.optional(z.string()),
  output: z.optional(z.enum(OUTPUT_FORMATS)),
  /** `software` or `cloud`, and the hosted edition's project (docs/cli-contract.md "The hosted edition"). */
  edition: z.optional(z.enum(EDITIONS)),
  projectId: z.optional(z.string()),
  /** The Arrow Flight endpoint exports use (`login --flight-url`): grpc://HOST:PORT or grpc+tls://HOST:PORT. */
  flightUrl: z.optional(z.string()),
  /**
   * Which of the hosted edition's forms of a resource answered (`{"users": 1}`: the second), so that the next
   * command goes straight to it (docs/api-facts.md §13.4). Written by dlake, never by hand.
   */
  routes: z.optional(z.record(z.string(), z.number())),
});
export type Profile = z.infer<typeof ProfileSchema>;

export const ConfigFileSchema = z.looseObject({
  version: z._default(z.literal(1), 1),
  currentProfile: z.optional(z.string()),
  profiles: z._default(z.record(z.string(), ProfileSchema), {}),
});
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

const StoredTokenSchema = z
  .looseObject({
    kind: z.enum(['session', 'bearer']),
    // A token no HTTP header can carry (a control character: a hand-edited file) makes the file not valid.
    // Absent when the token's secrets are in the credential store (`keyring`).
    token: z.optional(z.string().check(z.minLength(1), z.regex(/^[\x21-\x7e]+$/, 'not printable ASCII'))),
    /**
     * Where the token's secrets are when not in this file: the credential store's items of service `dlake`
     * named `PROFILE:KIND:ID`, one per kind listed (docs/cli-contract.md "Credential storage").
     */
    keyring: z.optional(
      z.looseObject({
        id: z.string().check(z.regex(/^[0-9a-f]{8}$/)),
        items: z.array(z.enum(['token', 'refresh-token', 'pat', 'flight-token'])),
      }),
    ),
    /** ISO 8601; absent for a PAT whose expiry is unknown. */
    expiresAt: z.optional(z.iso.datetime({ offset: true })),
    obtainedVia: z.enum(AUTH_METHODS),
    refreshToken: z.optional(z.string()),
    /**
     * The PAT an access token was exchanged from (an addition to the shape of docs/cli-contract.md "Config
     * store"): kept so that the access token can be renewed by a new PAT exchange when it expires.
     */
    pat: z.optional(z.string()),
    patExpiresAt: z.optional(z.iso.datetime({ offset: true })),
    /**
     * Who the token belongs to, when known (login response, or the service asked after an exchange or a PAT
     * login). A token is used only by the identity that obtained it (docs/cli-contract.md "Identity").
     */
    username: z.optional(z.string()),
    /** The client id a client-credentials token was obtained with (absent in files from older dlake). */
    clientId: z.optional(z.string()),
    /** The service the token was issued for: a token is never sent to another URL. */
    url: z.optional(z.string()),
    /** The edition and hosted project it was issued for: never used on another (docs/cli-contract.md "Identity"). */
    edition: z.optional(z.enum(EDITIONS)),
    projectId: z.optional(z.string()),
    /**
     * The token endpoint in force when the token was stored (the service URL when none was set apart): its
     * refresh token or PAT is never sent to another (docs/cli-contract.md "Identity").
     */
    authUrl: z.optional(z.string()),
    /**
     * Of a password login: the bearer token the Flight handshake answered, for the Flight endpoint `url`. Kept
     * beside the session it was obtained with, so it goes when the session does (docs/cli-contract.md "Export
     * over Arrow Flight").
     */
    flight: z.optional(
      z.looseObject({ token: z.optional(z.string().check(z.minLength(1))), url: z.string() }),
    ),
  })
  .check(
    z.refine((t) => t.token !== undefined || Boolean(t.keyring?.items.includes('token')), {
      message: 'no token, and none in the credential store',
    }),
  );
export type StoredToken = z.infer<typeof StoredTokenSchema>;

export const CredentialsFileSchema = z.looseObject({
  version: z._default(z.literal(1), 1),
  tokens: z._default(z.record(z.string(), StoredTokenSchema), {}),
  /** When a move of the secrets into the credential store last found none, and why: tried again a day later. */
  storeAbsent: z.optional(z.looseObject({ why: z.string(), at: z.iso.datetime({ offset: true }) })),
});
export type CredentialsFile = z.infer<typeof CredentialsFileSchema>;

export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const PROFILE_NAME_HINT =
  'use letters, digits, ".", "_" and "-" (at most 64), starting with a letter or digit';
