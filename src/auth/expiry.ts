// Expiry rules of stored tokens (docs/cli-contract.md "Config store"): less than 60 s left counts as expired.
import { EXPIRY_MARGIN_MS } from '../constants.js';

/** True when the token must not be used any more. An unknown expiry (a PAT) never expires here. */
export function isExpired(expiresAt: string | undefined, now: number = Date.now()): boolean {
  if (!expiresAt) return false;
  return Date.parse(expiresAt) - now < EXPIRY_MARGIN_MS;
}

/** Milliseconds left, or undefined when the expiry is unknown. */
export function timeLeftMs(expiresAt: string | undefined, now: number = Date.now()): number | undefined {
  return expiresAt ? Date.parse(expiresAt) - now : undefined;
}

export function expiryFromNow(ms: number, now: number = Date.now()): string {
  return expiryText(now + ms);
}

/** The latest (and, negated, the earliest) time a Date holds. */
const MAX_TIME_MS = 8.64e15;

/**
 * An expiry as ISO 8601, held within the times a Date holds: a service that answers a lifetime beyond any
 * calendar (`expires_in: 1e21`) gets a token that expires at the end of time, not a crash. No time at all is
 * now: the token is renewed before its next use.
 */
export function expiryText(ms: number): string {
  const at = Number.isFinite(ms) ? Math.max(-MAX_TIME_MS, Math.min(MAX_TIME_MS, ms)) : Date.now();
  return new Date(at).toISOString();
}
