// Turns the service's error answers into the CLI's typed errors. Real servers answer 401 with an empty
// body, a malformed request with a text/plain 400, OAuth errors in the RFC 6749 shape, and add
// `stackTrace`, `context` or `validationErrorMessages` to the usual {errorMessage, moreInfo} body.
import {
  type Advice,
  AuthError,
  ConflictError,
  type DlakeError,
  type ErrorDetails,
  NotFoundError,
  ServiceError,
  UsageError,
} from '../errors.js';

interface ErrorResponse {
  status: number;
  method: string;
  /** The request path (no host), to name the endpoint. */
  path: string;
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
    return { message: firstLine(text), details };
  }
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { message: firstLine(text), details };
  }
  if (typeof body !== 'object' || body === null) return { message: firstLine(text), details };
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
  const endpoint = `${r.method} ${r.path}`;
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
        advice: tokenEndpointAdvice(parsed.oauthError, message) ?? { kind: 'log-in-again' },
      });
    case 403:
      return new AuthError(
        message ? `permission denied: ${message}` : `permission denied (403) at ${endpoint}`,
        opts,
      );
    case 404:
      return new NotFoundError(message ?? `not found (404): ${endpoint}`, opts);
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

function firstLine(text: string): string {
  const line = text.trim().split(/\r?\n/)[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
