// The deadline layer: bounds one attempt (docs/cli-contract.md "Retries"). --timeout bounds the whole exchange,
// from the connection to the body's last byte; a results page (at most 500 rows, some of them wide) has
// RESULTS_PAGE_TIMEOUTS × --timeout for its body and RESULTS_PAGE_MAX_BYTES, each pause in it still bounded by
// --timeout (undici's bodyTimeout). The caller's signal aborts the attempt too.
import { getEventListeners, getMaxListeners, setMaxListeners } from 'node:events';
import { formatDuration, timerMs } from '../../util/units.js';
import type { Layer } from './types.js';

const RESULTS_PAGE_MAX_BYTES = 256 * 1024 * 1024;
const RESULTS_PAGE_TIMEOUTS = 4;

export function deadline(timeoutMs: number): Layer {
  return (next) => async (req) => {
    // undici checks its own timeouts on a clock that ticks about once a second, so `--timeout 2s` used to
    // fire up to a second late on every attempt: a timer of our own bounds the exchange to --timeout itself.
    // The caller's signal aborts the same controller through a listener removed once the body is read:
    // AbortSignal.any left a reference in the caller's signal for every request (a 1M-row export makes 2,000).
    const controller = new AbortController();
    const started = performance.now();
    const page = Boolean(req.spec.resultsPage);
    let timer = setTimeout(() => controller.abort(headersTimeout()), timerMs(timeoutMs));
    const outer = req.signal;
    const relay = (): void => controller.abort(outer?.reason);
    if (outer?.aborted) relay();
    else if (outer) listen(outer, relay);
    const onHeaders = (): void => {
      clearTimeout(timer);
      // A download has no bound of its own: --timeout bounds each pause in it (undici's bodyTimeout).
      if (req.spec.bodyInto) return;
      const limitMs = page ? timeoutMs * RESULTS_PAGE_TIMEOUTS : timeoutMs;
      const left = page ? limitMs : timeoutMs - (performance.now() - started);
      timer = setTimeout(() => controller.abort(bodyDeadline(limitMs, page)), timerMs(left));
    };
    try {
      return await next({
        ...req,
        signal: controller.signal,
        onHeaders,
        maxBodyBytes: page ? RESULTS_PAGE_MAX_BYTES : req.maxBodyBytes,
      });
    } catch (err) {
      // undici may reject with its own abort error: the deadline's reason says what happened.
      if (controller.signal.aborted && !outer?.aborted) throw controller.signal.reason;
      throw err;
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', relay);
    }
  };
}

/**
 * `relay` on `signal`'s abort. A command's reads run many at a time on its one signal (`pull` reads 16 at once):
 * Node's leak warning at 11 listeners would be printed on stderr although each is removed when its request ends,
 * so the signal's limit follows the listeners it has.
 */
function listen(signal: AbortSignal, relay: () => void): void {
  const n = getEventListeners(signal, 'abort').length + 1;
  if (n + 10 > getMaxListeners(signal)) setMaxListeners(n + 10, signal);
  signal.addEventListener('abort', relay, { once: true });
}

/** The error of a wait for the answer that outlasted the per-request timeout (treated like undici's own). */
function headersTimeout(): Error {
  return Object.assign(new Error('headers timeout'), { code: 'UND_ERR_HEADERS_TIMEOUT' });
}

/** The error of a body still arriving at the end of its bound (a page's, or --timeout's): retried as a timeout. */
function bodyDeadline(limitMs: number, resultsPage: boolean): Error {
  const bound = resultsPage
    ? `${formatDuration(limitMs)} (${RESULTS_PAGE_TIMEOUTS} × the per-request timeout), a results page's bound`
    : `the per-request timeout of ${formatDuration(limitMs)}`;
  return Object.assign(new Error(`the answer did not arrive whole within ${bound}`), {
    code: 'DLAKE_BODY_DEADLINE',
  });
}
