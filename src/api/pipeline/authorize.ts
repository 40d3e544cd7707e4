// The authorize layer: puts the credentials' Authorization header on a request that wants it, and after a 401
// renews them once (where the means are at hand) and sends the request again: a 401 means it was refused
// before it ran, so even a POST may be repeated.
import type { Layer } from './types.js';

export interface AuthProvider {
  /** The Authorization header value to send. */
  header(): Promise<string>;
  /** Called once after a 401: renew the credentials if the means are at hand; true to retry. */
  renew?(): Promise<boolean>;
}

export function authorize(auth: AuthProvider | undefined): Layer {
  return (next) => async (req) => {
    if (!auth || req.spec.auth === false) return next(req);
    const send = async () =>
      next({ ...req, headers: { ...req.headers, authorization: await auth.header() } });
    const raw = await send();
    if (raw.status !== 401 || !auth.renew) return raw;
    if (!(await auth.renew())) return raw;
    return send();
  };
}
