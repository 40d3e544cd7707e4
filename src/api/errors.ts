// Turns the service's error answers into the CLI's typed errors. Real servers answer 401 with an empty
// body, a malformed request with a text/plain 400, OAuth errors in the RFC 6749 shape, and add
// `stackTrace`, `context` or `validationErrorMessages` to the usual {errorMessage, moreInfo} body.
import {
  type Advice,
  AuthError,
  ConflictError,
  type DlakeError,
  type EntityList,
  type ErrorDetails,
  NotFoundError,
  ServiceError,
  UsageError,
} from '../errors.js';
import { formatPath } from '../util/catalog-ref.js';
import { firstLine } from '../util/first-line.js';
import type { Target } from './endpoint.js';

interface ErrorResponse {
  status: number;
  /** `METHOD /path` as sent, to name the endpoint. */
  endpoint: string;
  /** What the request was about: a 404 of an entity's target names the entity, on either edition. */
  target?: Target;
  contentType: string;
  text: string;
}

interface ParsedErrorBody {
  message?: string;
  /** The RFC 6749 error code of a token-endpoint answer (`invalid_client`, `invalid_grant`, …). */
  oauthError?: string;
  moreInfo?: string;
  details: string[];
}

function parseErrorBody(contentType: string, text: string): ParsedErrorBody {
  const details: string[] = [];
  if (!text.trim()) return { details };
  if (!/json/i.test(contentType) && !text.trim().startsWith('{')) {
    // text/plain 400s carry the parser's message; HTML error pages carry nothing worth a line.
    if (/html/i.test(contentType) || /^\s*</.test(text)) return { details };
    return { message: firstLine(text, 300), details };
  }
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { message: firstLine(text, 300), details };
  }
  if (typeof body !== 'object' || body === null) return { message: firstLine(text, 300), details };
  const validation = body.validationErrorMessages as
    | { fieldErrorMessages?: Record<string, string[]>; globalErrorMessages?: string[] }
    | undefined;
  for (const [field, msgs] of Object.entries(validation?.fieldErrorMessages ?? {})) {
    for (const m of msgs ?? []) details.push(`${field}: ${m}`);
  }
  for (const m of validation?.globalErrorMessages ?? []) details.push(m);
  const full = str(body.errorMessage) ?? str(body.error_description) ?? str(body.error) ?? str(body.message);
  // Bean-validation failures come as "Invalid input \n<field>: <message>" beside the same field map: the
  // error is the first line, and each further line is a detail, listed once.
  const [first, ...rest] = (full ?? '').split(/\r?\n/).map((l) => l.trim());
  const message = full === undefined ? undefined : first || undefined;
  for (const line of rest) if (line && !details.includes(line)) details.push(line);
  const oauthError =
    str(body.error_description) || /^[a-z_]+$/.test(str(body.error) ?? '') ? str(body.error) : undefined;
  return { message, moreInfo: str(body.moreInfo), details, oauthError };
}

export function errorFromResponse(r: ErrorResponse): DlakeError {
  const parsed = parseErrorBody(r.contentType, r.text);
  const endpoint = r.endpoint;
  const opts: ErrorDetails = {
    moreInfo: parsed.moreInfo && parsed.moreInfo !== parsed.message ? parsed.moreInfo : undefined,
    details: parsed.details,
  };
  const message = parsed.message;
  switch (r.status) {
    case 400:
      return new UsageError(message ?? `the service rejected the request (400) at ${endpoint}`, opts);
    case 401:
      return new AuthError(message || 'the service refused the credentials (401)', {
        ...opts,
        hint: tokenEndpointAdvice(parsed.oauthError, message) ?? { kind: 'log-in-again' },
      });
    case 403:
      return new AuthError(
        message ? `permission denied: ${message}` : `permission denied (403) at ${endpoint}`,
        opts,
      );
    case 404: {
      // A missing entity reads alike whatever the command and the server's wording (docs/cli-contract.md
      // "Errors"): `not found: user "bob"`; the service's own words are its moreInfo.
      // Only where the service named what is missing: a bare `HTTP 404 Not Found` or an empty body is an
      // endpoint this server lacks (api/editions.ts tells editions apart by it).
      // And only where its words say something is missing: real servers also answer 404 to a change they
      // refuse (`Space name is immutable.`), which must keep its own words.
      const named =
        message !== undefined &&
        !/^HTTP 404 Not Found$/.test(message) &&
        /not found|could not find|cannot find|can't find|does not exist|doesn't exist|no such|unknown/i.test(
          message,
        );
      const missing = named && r.target ? missingEntity(r.target) : undefined;
      if (!missing) return new NotFoundError(message ?? `not found (404): ${endpoint}`, opts);
      return new NotFoundError(`not found: ${missing.what}`, {
        ...opts,
        moreInfo: message ?? opts.moreInfo,
        ...(missing.advice ? { hint: missing.advice } : {}),
      });
    }
    case 409:
      return new ConflictError(message ?? `conflict (409) at ${endpoint}`, opts);
    default:
      if (r.status >= 500 || r.status === 429) {
        return new ServiceError(
          message
            ? `the service failed (${r.status}): ${message}`
            : `the service failed (${r.status}) at ${endpoint}`,
          opts,
        );
      }
      return new UsageError(message ?? `the service answered ${r.status} at ${endpoint}`, opts);
  }
}

/** The entity a request's target names (user "bob"), and where its kind is listed. */
function missingEntity(t: Target): { what: string; advice?: Advice } | undefined {
  const key = t.key;
  if (!key) return undefined;
  if ('path' in key) {
    return {
      what: formatPath(key.path),
      advice: { kind: 'list-entities', list: 'catalog', parent: key.path.slice(0, -1) },
    };
  }
  const named = (kind: string, list?: EntityList) => ({
    what: 'name' in key ? `${kind} "${key.name}"` : `${kind} ${key.id}`,
    ...(list ? { advice: { kind: 'list-entities', list } as Advice } : {}),
  });
  switch (t.resource) {
    case 'catalog':
      return { ...named('catalog entity'), advice: { kind: 'list-entities', list: 'catalog', parent: [] } };
    case 'dataset':
      return { ...named('dataset'), advice: { kind: 'list-entities', list: 'catalog', parent: [] } };
    case 'user':
    case 'role':
    case 'reflection':
    case 'queue':
      return named(t.resource, t.resource);
    case 'job':
      return named('job');
    case 'pat':
      return named('personal access token');
    default:
      return undefined;
  }
}

/**
 * What to do about a refused token request, by the RFC 6749 code and the service's description: a wrong
 * client secret, an expired JWT and a service with no external token provider need different fixes.
 */
function tokenEndpointAdvice(code: string | undefined, description = ''): Advice | undefined {
  if (code === 'invalid_client') return { kind: 'wrong-client-secret' };
  if (code !== 'invalid_grant') return undefined;
  if (/external token provider/i.test(description)) return { kind: 'no-external-token-provider' };
  if (/\bexp\b|expired/i.test(description) && /jwt/i.test(description)) return { kind: 'jwt-expired' };
  if (/jwt/i.test(description)) return { kind: 'jwt-not-accepted' };
  if (/personal access token|\bpat\b/i.test(description)) return { kind: 'pat-refused' };
  return undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
}
