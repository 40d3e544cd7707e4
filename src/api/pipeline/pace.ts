// The pace layer: keeps the hosted edition's requests within its published rate limits (api/pacing.ts). Each
// attempt waits for its limit's slot (so it sits inside the retry layer: a retry counts too); a 429 that
// comes anyway holds every request of that limit back until its Retry-After.
import type { Pacer } from '../pacing.js';
import { MAX_RATE_LIMIT_WAIT_MS, retryAfterMs } from './retry.js';
import type { Layer } from './types.js';

/** How long a limit is held after a 429 without Retry-After. */
const HOLD_WITHOUT_RETRY_AFTER_MS = 1_000;

export function pace(pacer: Pacer): Layer {
  return (next) => async (req) => {
    // The token endpoint is the login service's, not the API's: no limit of these counts it.
    if (req.spec.at.scope === 'auth') return next(req);
    const limit = req.spec.at.limit;
    if (req.spec.urgent) pacer.count(limit);
    else await pacer.take(limit, req.spec.signal);
    const raw = await next(req);
    // Bounded like every wait: a server asking for a day holds nothing back for longer than the retry waits.
    if (raw.status === 429)
      pacer.hold(limit, Math.min(retryAfterMs(raw) ?? HOLD_WITHOUT_RETRY_AFTER_MS, MAX_RATE_LIMIT_WAIT_MS));
    return raw;
  };
}
