// The one way the pipeline waits (pacing, backoff, Retry-After): for at most the given time, and ended by the
// caller's signal with an InterruptedError, so that Ctrl-C or SIGTERM during a wait ends the command with its
// exit code (130, 143) after the clean-up, such as cancelling the job it was waiting for.
import { InterruptedError } from '../../errors.js';
import { timerMs } from '../../util/units.js';

/** Sleeps `ms`; a test's replacement may return at once. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const sleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(interrupted());
    const onAbort = () => {
      clearTimeout(timer);
      reject(interrupted());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, timerMs(ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** Waits with `sleep`, then checks the signal: a replaced sleep that ignores it still ends on it. */
export async function wait(ms: number, signal: AbortSignal | undefined, using: Sleep = sleep): Promise<void> {
  if (signal?.aborted) throw interrupted();
  await using(ms, signal);
  if (signal?.aborted) throw interrupted();
}

function interrupted(): InterruptedError {
  return new InterruptedError('interrupted');
}
