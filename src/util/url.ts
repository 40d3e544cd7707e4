// Service URLs as the user types them (`HTTPS://Lake.Example.com:443/`) and as dlake uses and compares them
// (`https://lake.example.com`): one spelling per service, so a stored token is recognised whatever the case
// of the scheme, a trailing slash or a spelled-out default port.
import { UsageError } from '../errors.js';
import { redactUrl } from './redact.js';

/**
 * The normalised form of an http(s) base URL: scheme and host lower-case, default port dropped, no trailing
 * slash nor trailing `/api/v3`, no query or fragment. Anything else (no scheme, `ftp://`, no host) is a UsageError naming `what`.
 */
export function normalizeServiceUrl(value: string, what: string): string {
  const text = value.trim();
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    throw new UsageError(`${what} "${redactUrl(value)}" is not an http(s) URL`, {
      hint: 'give the service base URL, e.g. https://lake.example.com',
    });
  }
  if (url.search || url.hash) {
    throw new UsageError(`${what} "${redactUrl(value)}" must not have a query or fragment`, {
      hint: 'give the service base URL, e.g. https://lake.example.com',
    });
  }
  // URL already lower-cases scheme and host and drops the default port; the path keeps its case. The REST
  // API's own prefix, pasted from an API address (`https://lake.example.com/api/v3`), is dlake's to add: it
  // is dropped, so that the login and token endpoints, beside it, are found (docs/cli-contract.md).
  const path = url.pathname.replace(/\/+$/, '').replace(/\/api\/v3$/, '');
  return `${url.protocol}//${url.host}${path}`;
}

/**
 * The normalised URL (which keeps no user name or password), or the text with them masked when it is not a
 * valid URL (for display and comparison).
 */
export function tryNormalizeServiceUrl(value: string): string {
  try {
    return normalizeServiceUrl(value, 'URL');
  } catch {
    return redactUrl(value);
  }
}

/** Whether two base URLs name the same service (normalised spellings compared). */
export function sameServiceUrl(a: string, b: string): boolean {
  return tryNormalizeServiceUrl(a) === tryNormalizeServiceUrl(b);
}
