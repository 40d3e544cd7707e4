import { describe, expect, it } from 'vitest';
import { expiryFromNow, expiryText, isExpired, timeLeftMs } from '../../src/auth/expiry.js';

const now = Date.parse('2026-01-01T00:00:00Z');

describe('token expiry', () => {
  it('counts a token with less than 60 s left as expired', () => {
    expect(isExpired(new Date(now + 59_999).toISOString(), now)).toBe(true);
    expect(isExpired(new Date(now + 60_000).toISOString(), now)).toBe(false);
    expect(isExpired(new Date(now - 1).toISOString(), now)).toBe(true);
  });

  it('never expires a token whose expiry is unknown (a PAT)', () => {
    expect(isExpired(undefined, now)).toBe(false);
    expect(timeLeftMs(undefined, now)).toBeUndefined();
  });

  it('computes expiries from lifetimes', () => {
    expect(expiryFromNow(3_600_000, now)).toBe('2026-01-01T01:00:00.000Z');
    expect(timeLeftMs('2026-01-01T01:00:00.000Z', now)).toBe(3_600_000);
  });
});

describe('expiryText: a lifetime beyond any calendar', () => {
  it('is held at the end of time (or its start), never a crash; no time at all is now', () => {
    expect(expiryText(1e21)).toBe('+275760-09-13T00:00:00.000Z');
    expect(expiryText(-1e21)).toBe('-271821-04-20T00:00:00.000Z');
    expect(Date.parse(expiryText(Number.NaN))).toBeLessThanOrEqual(Date.now());
    expect(expiryFromNow(1e21 * 1000)).toBe('+275760-09-13T00:00:00.000Z');
  });
});
