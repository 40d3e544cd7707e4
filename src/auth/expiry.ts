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
  return new Date(now + ms).toISOString();
}
