// The retry layer (docs/cli-contract.md "Retries"): sends a request again after a transient failure, with
// exponential backoff and full jitter, honouring Retry-After in both its forms (seconds, or an HTTP date).
// Only what may repeat is repeated: GET and HEAD, a write the caller marks as safe, anything that never reached
// the server, and a 429 of the hosted edition's rate limits (refused before it ran). Every wait is bounded
// and ends on the caller's signal (api/pipeline/wait.ts).
import { DlakeError, InterruptedError, ServiceError } from '../../errors.js';
import { formatDuration } from '../../util/units.js';
import { describeNetworkError, errorCode, isTransient, NEVER_SENT, networkAdvice } from './network-errors.js';
import { header, type Layer, type RawResponse } from './types.js';
import { type Sleep, wait } from './wait.js';

export interface RetryPolicy {
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 3, baseDelayMs: 250, maxDelayMs: 8_000 };
/** A server asking for a longer wait than this is not waited for: the error is reported instead. */
const MAX_RETRY_AFTER_MS = 30_000;
/** The longest Retry-After of a 429 waited for under the hosted edition's per-minute limits. */
export const MAX_RATE_LIMIT_WAIT_MS = 90_000;
/** Attempts after a 429 of the hosted edition's limits (api/pacing.ts). */
const RATE_LIMIT_RETRIES = 8;
const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);

interface RetryOptions {
  policy: RetryPolicy;
  /** Requests are paced under the hosted edition's limits: a 429 gets more attempts and longer waits. */
  paced: boolean;
  timeoutMs: number;
  sleep?: Sleep;
  trace?: (line: string) => void;
}

export function retry(o: RetryOptions): Layer {
  const { policy } = o;
  const backoff = async (attempt: number, floorMs: number | undefined, why: string, signal?: AbortSignal) => {
    const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
    // Full jitter spreads the retries of concurrent page fetches; Retry-After is a floor.
    const delay = Math.max(floorMs ?? 0, Math.round(exp / 2 + (Math.random() * exp) / 2));
    o.trace?.(`retrying in ${delay} ms after ${why} (attempt ${attempt + 2} of ${policy.retries + 1})`);
    await wait(delay, signal, o.sleep);
  };
  return (next) => async (req) => {
    const { spec } = req;
    const signal = spec.signal;
    const idempotent = spec.idempotent ?? (spec.method === 'GET' || spec.method === 'HEAD');
    for (let attempt = 0; ; attempt++) {
      let raw: RawResponse;
      try {
        raw = { ...(await next(req)), attempts: attempt + 1 };
      } catch (err) {
        if (err instanceof DlakeError) throw err;
        // The caller stopped the request (Ctrl-C, a cancelled tool call): not the network's failure.
        if (signal?.aborted) throw new InterruptedError('interrupted');
        const retryable = idempotent || NEVER_SENT.has(errorCode(err) ?? '');
        if (retryable && attempt < policy.retries && isTransient(err)) {
          await backoff(attempt, undefined, describeNetworkError(err, o.timeoutMs), signal);
          continue;
        }
        throw networkError(req.url, err, attempt + 1, o.timeoutMs);
      }
      // The hosted edition's limits count per minute, so its waits may be longer (docs/api-facts.md §13.5), and
      // a limit's 429s get more attempts than other failures: a long export must not be throttled into failure.
      const limited = raw.status === 429 && o.paced;
      const retries = limited ? Math.max(policy.retries, RATE_LIMIT_RETRIES) : policy.retries;
      if (!(idempotent || limited) || !RETRYABLE_STATUS.has(raw.status) || attempt >= retries) return raw;
      const asked = retryAfterMs(raw);
      const longest = limited ? MAX_RATE_LIMIT_WAIT_MS : MAX_RETRY_AFTER_MS;
      if (asked !== undefined && asked > longest)
        return { ...raw, waitRefused: { askedMs: asked, longestMs: longest } };
      await backoff(attempt, asked, `${raw.status}`, signal);
    }
  };
}

/**
 * The wait a Retry-After asks for, in ms: delay-seconds, or an HTTP date (RFC 9110 §10.2.3), counted from the
 * answer's own Date header where it has one, so that a clock that differs from the server's does not matter.
 */
export function retryAfterMs(raw: Pick<RawResponse, 'headers'>, now = Date.now()): number | undefined {
  const value = header(raw, 'retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  const served = Date.parse(header(raw, 'date') ?? '');
  return Math.max(0, at - (Number.isNaN(served) ? now : served));
}

/** What a Retry-After beyond the bound asked for, said after the error (docs/cli-contract.md "Retries"). */
export function refusedWaitText(w: { askedMs: number; longestMs: number }): string {
  return `the service asked to retry after ${formatDuration(w.askedMs)} (Retry-After), longer than dlake waits (${formatDuration(w.longestMs)})`;
}

/** The error of a request that could not be exchanged (exit 7), or the interruption that stopped it (130). */
function networkError(url: URL, err: unknown, attempts: number, timeoutMs: number): DlakeError {
  if ((err as Error)?.name === 'AbortError' || errorCode(err) === 'UND_ERR_ABORTED')
    return new InterruptedError('interrupted');
  const where = new URL(url);
  where.search = '';
  const tries = attempts > 1 ? `; gave up after ${attempts} attempts` : '';
  return new ServiceError(`cannot reach ${where}: ${describeNetworkError(err, timeoutMs)}${tries}`, {
    cause: err,
    hint: networkAdvice(errorCode(err), err),
  });
}
