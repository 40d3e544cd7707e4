// The redirect layer: follows a 3xx answer only for a GET or HEAD, only within the origin it was sent to (so
// credentials never go elsewhere), at most MAX_REDIRECTS times. Otherwise the answer is an error that names
// where it pointed (exit 7). A redirect is not a failed attempt: it sits inside the retry layer.
import { ServiceError } from '../../errors.js';
import { header, type Layer, type RawResponse } from './types.js';

/** Same-origin redirects of a GET or HEAD followed in one exchange, at most. */
const MAX_REDIRECTS = 5;

export function redirect(trace?: (line: string) => void): Layer {
  return (next) => async (req) => {
    let at = req.url;
    for (let redirects = 0; ; redirects++) {
      const raw = await next({ ...req, url: at });
      if (!isRedirect(raw.status)) return raw;
      at = target(req.spec.method, raw, at, redirects, trace);
    }
  };
}

const isRedirect = (status: number): boolean => status >= 300 && status < 400 && status !== 304;

function target(
  method: string,
  raw: RawResponse,
  from: URL,
  redirects: number,
  trace?: (line: string) => void,
): URL {
  const location = header(raw, 'location');
  const endpoint = raw.endpoint;
  if (!location)
    throw new ServiceError(`the service answered ${endpoint} with a redirect (${raw.status}) to nowhere`);
  let to: URL;
  try {
    to = new URL(location, from);
  } catch {
    throw new ServiceError(`${endpoint} was redirected to ${printable(location)} (${raw.status})`);
  }
  const safe = method === 'GET' || method === 'HEAD';
  if (safe && to.origin === from.origin && redirects < MAX_REDIRECTS) {
    trace?.(`following the redirect (${raw.status}) to ${to.pathname}${to.search}`);
    return to;
  }
  // Userinfo in a Location is a credential of someone's: never printed.
  to.username = '';
  to.password = '';
  const why = redirects >= MAX_REDIRECTS ? `, after ${redirects} redirects` : '';
  throw new ServiceError(`${endpoint} was redirected to ${printable(to.toString())} (${raw.status}${why})`, {
    hint:
      to.origin === from.origin
        ? undefined
        : "dlake follows redirects only within the service URL's origin; if the service has moved, use its new URL",
  });
}

/** Text from a header, safe to print on one line: control characters escaped. */
function printable(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f-\u009f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}
