// What the service's edition and settings lack, said in one sentence instead of a raw 404/405/403.
//
// The community edition has no roles, PATs, queues or user deletion: it answers those requests with the
// web framework's generic `HTTP 404 Not Found` (no such path) or `HTTP 405 Method Not Allowed` (the path
// exists with other methods, as `/user/{id}` does), or with an empty body. A missing resource of the
// Enterprise edition names what is missing instead (`Queue [x] not found.`), so the generic text tells the
// two apart. Such answers end with exit code 4 (not found: the feature is not there), whatever the status;
// exit code 3 stays for credentials and permissions, which an edition cannot fix.
import { AuthError, DlakeError, NotFoundError } from '../errors.js';

/** The generic texts of 404/405 for a path or method the server does not have (docs/api-facts.md §1.4). */
const MISSING_ENDPOINT = [
  /^HTTP 404 Not Found$/,
  /^HTTP 405 Method Not Allowed$/,
  // errorFromResponse's wording for the same statuses with an empty or HTML body.
  /^not found \(404\): /,
  /^the service answered 405 at /,
];

function isMissingEndpoint(err: unknown): boolean {
  return err instanceof DlakeError && MISSING_ENDPOINT.some((re) => re.test(err.message));
}

/** An Enterprise feature that this server's edition does not have. */
export class EditionError extends NotFoundError {
  constructor(readonly feature: string) {
    super(`this service's edition does not offer ${feature} (Enterprise only)`);
  }
}

/** Runs a request to an Enterprise endpoint, turning a missing-endpoint answer into the edition sentence. */
export async function enterprise<T>(feature: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (isMissingEndpoint(err)) throw new EditionError(feature);
    throw err;
  }
}

/**
 * PAT endpoints: also the 403 of a service whose PATs are switched off (its real text is unconfirmed, so any
 * 403 that says "disabled"), and a hint on the admin-only 403.
 */
export async function patEndpoint<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await enterprise('personal access tokens', call);
  } catch (err) {
    if (err instanceof AuthError && /disabled/i.test(err.message)) {
      throw new AuthError('personal access tokens are disabled on this service', {
        moreInfo: err.message,
        hint: 'an administrator can enable them (support key auth.personal-access-tokens.enabled)',
      });
    }
    throw adminOnly(err, 'listing and creating personal access tokens');
  }
}

/** A 403 on an admin-only endpoint gets a hint saying so; other errors pass through unchanged. */
export function adminOnly(err: unknown, what: string): unknown {
  if (!(err instanceof AuthError) || !err.message.startsWith('permission denied') || err.hint) return err;
  return new AuthError(err.message, {
    moreInfo: err.moreInfo,
    details: err.details,
    hint: `${what} needs an admin of the service`,
  });
}
