// Pacing below the hosted edition's published rate limits (docs/api-facts.md §13.5).
//
// The hosted edition limits requests per source IP address — job status, results pages and cancels each per
// minute, and every API call together — and publishes no header that says how much is left. So dlake keeps
// its own count of what it sent in the last window and, before a request would cross a limit, waits until the
// oldest request of the window leaves it. It aims at a share of each limit (PACE_SHARE), leaving room for other
// clients behind the same address. A 429 that comes anyway is retried by the HTTP client, after Retry-After.
//
// `DLAKE_RATE_LIMITS` replaces the published numbers (for a deployment with other limits, and for tests
// against an emulator with lowered ones): `results=20,status=5,cancel=5,api=100,per=1s`.
import { UsageError } from '../errors.js';
import { parseDuration } from '../util/units.js';
import type { LimitClass } from './endpoint.js';
import { sleep as abortableSleep, type Sleep, wait } from './pipeline/wait.js';

const LIMIT_NAMES = ['api', 'results', 'status', 'cancel'] as const satisfies readonly LimitClass[];
type LimitName = LimitClass;
const EXAMPLE = 'e.g. DLAKE_RATE_LIMITS=results=20,status=5,cancel=5,api=100,per=1s';

/** Requests per minute per IP address, as published (§13.5). */
const PUBLISHED: Record<LimitName, number> = { api: 1200, results: 1000, status: 100, cancel: 100 };
const MINUTE_MS = 60_000;
/** The share of each limit dlake allows itself. */
const PACE_SHARE = 0.8;

interface PaceLimits {
  limits: Record<LimitName, number>;
  windowMs: number;
}

/** The limits in force: the published ones, or those of DLAKE_RATE_LIMITS. */
export function paceLimits(env: NodeJS.ProcessEnv): PaceLimits {
  const spec = env.DLAKE_RATE_LIMITS?.trim();
  const out: PaceLimits = { limits: { ...PUBLISHED }, windowMs: MINUTE_MS };
  if (!spec) return out;
  for (const part of spec.split(',')) {
    const [key, value] = part.split('=').map((s) => s.trim());
    if (key === 'per' && value) {
      out.windowMs = readWindow(value, part);
    } else if ((LIMIT_NAMES as readonly string[]).includes(key ?? '') && /^\d+$/.test(value ?? '')) {
      // A limit of 0 would make every request of it wait for ever (an export that never ends).
      if (Number(value) === 0) throw unreadable(part, 'a limit must be at least 1 request');
      out.limits[key as LimitName] = Number(value);
    } else {
      throw unreadable(part);
    }
  }
  return out;
}

/** `per=…`: a duration longer than 0 (a window of 0 would turn pacing off without saying so). */
function readWindow(value: string, part: string): number {
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    throw unreadable(part, e.message);
  }
  if (ms <= 0) throw unreadable(part, 'the window must be longer than 0');
  return ms;
}

function unreadable(part: string, why?: string): UsageError {
  return new UsageError(`DLAKE_RATE_LIMITS: cannot read "${part}"${why ? `: ${why}` : ''}`, {
    hint: EXAMPLE,
  });
}

/** The limits a request of class `limit` counts against: every call counts against `api`. */
export function limitsOf(limit: LimitClass): LimitName[] {
  return limit === 'api' ? ['api'] : ['api', limit];
}

/** Says that (and how long) a request waits for a limit; a progress display shows it. */
type PaceListener = (event: { limit: LimitName; waitMs: number } | { done: true }) => void;

export class Pacer {
  private readonly sent = new Map<LimitName, number[]>();
  /** Limits held back after a 429, until these times. */
  private readonly heldUntil = new Map<LimitName, number>();
  private readonly allowed: Record<LimitName, number>;
  private readonly listeners = new Set<PaceListener>();
  /** How long requests waited in total, in ms (shown by --debug, asserted by tests). */
  waitedMs = 0;

  constructor(
    readonly limits: PaceLimits,
    private readonly now: () => number = Date.now,
    private readonly sleep: Sleep = abortableSleep,
  ) {
    this.allowed = Object.fromEntries(
      LIMIT_NAMES.map((n) => [n, Math.max(1, Math.floor(limits.limits[n] * PACE_SHARE))]),
    ) as Record<LimitName, number>;
  }

  /** Listens to waits (the export's progress bar); returns the function that stops listening. */
  onWait(listener: PaceListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Waits until a request of class `limit` stays within every limit it counts against, then counts it.
   * Concurrent callers are served in turn: each takes its slot before the next one looks. The caller's signal
   * ends the wait with an InterruptedError (exit 130/143 after the command's clean-up).
   */
  async take(limit: LimitClass, signal?: AbortSignal): Promise<void> {
    const names = limitsOf(limit);
    let waited = false;
    for (;;) {
      const pause = this.waitFor(names);
      if (!pause) break;
      waited = true;
      this.waitedMs += pause.ms;
      for (const l of this.listeners) l({ limit: pause.limit, waitMs: pause.ms });
      await wait(pause.ms, signal, this.sleep);
    }
    this.count(limit);
    if (waited) for (const l of this.listeners) l({ done: true });
  }

  /** Counts a request of class `limit` sent now, without waiting (an urgent one: a cancel). */
  count(limit: LimitClass): void {
    const t = this.now();
    for (const n of limitsOf(limit)) this.window(n, t).push(t);
  }

  /**
   * A 429 came for a request of class `limit` anyway (another client behind the same address, or limits lower
   * than known): every request of that limit waits `ms` from now (of `api` only if it was `api` alone).
   */
  hold(limit: LimitClass, ms: number): void {
    const until = this.now() + ms;
    this.heldUntil.set(limit, Math.max(this.heldUntil.get(limit) ?? 0, until));
  }

  private waitFor(names: LimitName[]): { limit: LimitName; ms: number } | undefined {
    const t = this.now();
    let worst: { limit: LimitName; ms: number } | undefined;
    for (const n of names) {
      const held = (this.heldUntil.get(n) ?? 0) - t;
      if (held > 0 && (!worst || held > worst.ms)) worst = { limit: n, ms: held };
    }
    for (const n of names) {
      const times = this.window(n, t);
      if (times.length < this.allowed[n]) continue;
      const ms = Math.max(1, times[times.length - this.allowed[n]]! + this.limits.windowMs - t);
      if (!worst || ms > worst.ms) worst = { limit: n, ms };
    }
    return worst;
  }

  /** The request times of the current window (older ones dropped). */
  private window(n: LimitName, t: number): number[] {
    const times = this.sent.get(n) ?? [];
    let drop = 0;
    while (drop < times.length && times[drop]! <= t - this.limits.windowMs) drop++;
    const kept = drop ? times.slice(drop) : times;
    this.sent.set(n, kept);
    return kept;
  }
}

/** Words for a wait, for progress displays: `waiting 12s for the hosted edition's results-page limit`. */
export function describeWait(limit: LimitName, waitMs: number): string {
  const what =
    limit === 'results'
      ? 'results-page'
      : limit === 'status'
        ? 'job-status'
        : limit === 'cancel'
          ? 'cancel'
          : 'request';
  return `waiting ${Math.ceil(waitMs / 1000)}s for the hosted edition's ${what} limit`;
}
