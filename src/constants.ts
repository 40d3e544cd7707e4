// Protocol constants of the service, in one place (docs/api-facts.md §1.2, §2.5, §4.3, §6.1).

/** Prefix of the legacy session-token Authorization header: `_service<token>`, no space. */
export const SESSION_AUTH_PREFIX = '_service';
/** Placeholder the service returns for stored secrets; sending it back keeps the secret. */
export const EXISTING_SECRET_VALUE = '$SERVICE_EXISTING_VALUE$';
/** The self-hosted REST API's root; each endpoint's paths are built in api/endpoint.ts. */
export const API_PREFIX = '/api/v3';
export const LOGIN_PATH = '/apiv2/login';
export const TOKEN_PATH = '/oauth/token';
export const OAUTH_SCOPE = 'service.all';
export const GRANT_CLIENT_CREDENTIALS = 'client_credentials';
export const GRANT_REFRESH_TOKEN = 'refresh_token';
export const GRANT_TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const TOKEN_TYPE_JWT = 'urn:ietf:params:oauth:token-type:jwt';
export const TOKEN_TYPE_PAT = 'urn:ietf:params:oauth:token-type:service:personal-access-token';
/** CPU tiers of workload queues. */
export const CPU_TIERS = ['BACKGROUND', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
/** The service refuses job-result pages above this many rows. */
export const MAX_RESULTS_PAGE = 500;
/** A token with less than this left counts as expired. */
export const EXPIRY_MARGIN_MS = 60_000;
/** Job states after which a job never changes again. `CANCELLED` and `INVALID_STATE` are seen on real servers. */
export const FINAL_JOB_STATES: ReadonlySet<string> = new Set([
  'COMPLETED',
  'FAILED',
  'CANCELED',
  'CANCELLED',
  'INVALID_STATE',
]);
