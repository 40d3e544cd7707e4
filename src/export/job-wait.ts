// Waiting on a job from a command (`sql`, `job wait`, `job export`): a spinner with the state and the
// elapsed time on a terminal, state changes with -v elsewhere, and Ctrl-C that offers to cancel the job
// (asks on a terminal, and cancels at once with --yes or without a terminal); SIGTERM and SIGHUP cancel it at once.
import type { ApiClient } from '../api/http.js';
import type { JobStatus } from '../api/jobs.js';
import type { Context } from '../context.js';
import { InterruptedError } from '../errors.js';
import type { Spinner } from '../output/ui.js';
import { formatDuration } from '../util/units.js';

interface WaitFlags {
  timeoutMs?: number;
  /** Ctrl-C cancels the job without asking. */
  yes?: boolean;
  /** What interrupts the wait (default: the command's Ctrl-C); the SQL shell gives one per statement. */
  signal?: AbortSignal;
}

/** Waits until the job settles and returns its final status (which may be FAILED or CANCELED). */
export async function waitWithFeedback(
  ctx: Context,
  client: ApiClient,
  id: string,
  flags: WaitFlags,
): Promise<JobStatus> {
  const { waitForJob } = await import('../api/jobs.js');
  const signal = flags.signal ?? ctx.interrupt.signal;
  ctx.interruptible = true;
  // Named if dlake is stopped for good before the job is known to have ended or to be cancelled.
  ctx.jobInFlight = id;
  let since = Date.now();
  let state = 'WAITING';
  const line = (): string => `${state}  ${elapsedText(Date.now() - since)}  job ${id}`;
  // Created before the first poll (a job that has already ended only flashes it): no race with its end.
  let spinner: Spinner | undefined = await ctx.ui.spinner(line());
  const ticker = ctx.ui.motion ? setInterval(() => spinner?.update(line()), 200) : undefined;
  try {
    return await waitForJob(client, id, {
      timeoutMs: flags.timeoutMs,
      signal,
      onPoll: (s) => {
        // The job's own start, when known: `job wait` on an older job shows its real age.
        const started = s.startedAt ? Date.parse(s.startedAt) : Number.NaN;
        if (Number.isFinite(started) && started <= Date.now()) since = started;
        if (s.jobState !== state) {
          state = s.jobState;
          if (!ctx.ui.motion && ctx.ui.verbose) ctx.ui.notice(`job ${id}: ${state}`);
        }
        spinner?.update(line());
      },
    });
  } catch (err) {
    stop();
    if (err instanceof InterruptedError && signal.aborted) {
      const cancelled = await offerCancel(ctx, client, id, flags.yes);
      throw new InterruptedError(`interrupted while waiting for job ${id}`, {
        hint: cancelled ? undefined : stillRunning(id),
      });
    }
    throw err;
  } finally {
    stop();
    // What comes next (printing, an export) listens to Ctrl-C only if it says so.
    ctx.interruptible = false;
    ctx.jobInFlight = undefined;
  }

  function stop(): void {
    clearInterval(ticker);
    spinner?.stop();
    spinner = undefined;
  }
}

/**
 * After Ctrl-C, SIGTERM or SIGHUP while waiting. Only Ctrl-C on a terminal asks; with --yes, without a
 * terminal (no one to ask), or after SIGTERM/SIGHUP (the process is being stopped, or its terminal is
 * gone) the job is cancelled at once: a job nobody waits for any more must not run on.
 */
async function offerCancel(
  ctx: Context,
  client: ApiClient,
  id: string,
  yes: boolean | undefined,
): Promise<boolean> {
  const canAsk = ctx.ui.interactive && (ctx.interruptedBy ?? 'SIGINT') === 'SIGINT';
  let cancel = Boolean(yes) || !canAsk;
  if (!cancel) {
    const { confirm } = await import('../output/prompt.js');
    ctx.streams.stderr.write('\n');
    // A second Ctrl-C at the prompt means "just stop".
    cancel = await confirm(ctx.streams, `Cancel job ${id} on the service?`).catch(() => false);
  }
  if (!cancel) return false;
  const { cancelJob } = await import('../api/jobs.js');
  // A process being stopped must end soon (`docker stop` kills after 10 s): the cancel request gets a few
  // seconds, not the whole per-request timeout (docs/cli-contract.md "Jobs, results and export").
  const bound = AbortSignal.timeout(Math.min(CANCEL_BOUND_MS, ctx.timeoutMs()));
  try {
    const outcome = await cancelJob(client, id, bound);
    ctx.ui.notice(
      outcome.requested
        ? `cancellation of job ${id} requested`
        : `job ${id} had already ended (${outcome.status.jobState})`,
    );
    return true;
  } catch (e) {
    // Bounded by dlake, not refused by the service: the words say which.
    const why = bound.aborted
      ? `the cancel request did not complete within ${formatDuration(Math.min(CANCEL_BOUND_MS, ctx.timeoutMs()))}`
      : (e as Error).message;
    ctx.ui.warn(`could not cancel job ${id}: ${why}`);
    return false;
  }
}

/** How long the cancel request of a stopped wait may take before dlake ends anyway. */
const CANCEL_BOUND_MS = 5_000;

/** What to say of a job that nobody waits for any more and that may not have been cancelled. */
function stillRunning(id: string): string {
  return `job ${id} may still be running on the service; cancel it with \`dlake job cancel ${id}\``;
}

/** `4.2s` under a minute, then `3m 12s`. */
function elapsedText(ms: number): string {
  const t = Math.max(0, ms);
  return t < 60_000
    ? `${(t / 1000).toFixed(1)}s`
    : formatDuration(Math.floor(t / 1000) * 1000, { largest: 2 });
}
