import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { formatDuration, formatSize, parseDuration, parseSize } from '../../src/util/units.js';

const GiB = 1024 ** 3;

describe('parseSize', () => {
  it.each([
    ['1048576', 1048576],
    ['0', 0],
    ['512MiB', 512 * 1024 ** 2],
    ['8GiB', 8 * GiB],
    ['8GB', 8e9],
    ['512MB', 512e6],
    ['1.5GiB', 1.5 * GiB],
    ['1KiB', 1024],
    ['1KB', 1000],
    ['64k', 64_000],
    ['2Ki', 2048],
    ['8gib', 8 * GiB],
    ['8 GiB', 8 * GiB],
    [' 100 B ', 100],
    ['1.1KB', 1100],
    ['2TiB', 2 * 1024 ** 4],
  ])('reads %s as %d bytes', (input, bytes) => {
    expect(parseSize(input)).toBe(bytes);
  });

  it.each([
    ['-1', /cannot be negative/],
    ['-8GiB', /cannot be negative/],
    ['abc', /not a number/],
    ['NaN', /not a number/],
    ['', /not a number/],
    ['1.5', /not a whole number of bytes/],
    ['1.5B', /not a whole number of bytes/],
    ['1.0001KiB', /not a whole number of bytes/],
    ['8XB', /unknown unit "XB"/],
    ['8 G iB', /not a number/],
    ['1e9', /not a number/],
    ['99999999PiB', /too large/],
  ])('refuses %j', (input, why) => {
    const error = catchError(() => parseSize(input));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toContain(`"${input}"`);
    expect(error.message).toMatch(why);
    expect(error.hint).toMatch(/512MiB/);
  });
});

describe('formatSize', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1 KiB'],
    [512 * 1024 ** 2, '512 MiB'],
    [8 * GiB, '8 GiB'],
    [1.5 * GiB, '1.5 GiB'],
    [8e9, '7.45 GiB'],
    [1024 ** 2 - 1, '1 MiB'],
    [3 * 1024 ** 5, '3 PiB'],
    [-2048, '-2 KiB'],
  ])('prints %d as %s', (bytes, text) => {
    expect(formatSize(bytes)).toBe(text);
  });

  it('prints sizes that parse back exactly when they are whole or half units', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2047 }), fc.integer({ min: 0, max: 5 }), (halves, unit) => {
        const bytes = (halves * 1024 ** unit) / 2;
        fc.pre(Number.isInteger(bytes) && bytes <= Number.MAX_SAFE_INTEGER);
        expect(parseSize(formatSize(bytes).replace(' ', ''))).toBe(bytes);
      }),
    );
  });
});

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['90s', 90_000],
    ['15m', 900_000],
    ['2h', 7_200_000],
    ['30d', 30 * 86_400_000],
    ['1h30m', 5_400_000],
    ['1h 30m', 5_400_000],
    ['1d 2h 3m 4s 5ms', 93_784_005],
    ['1.5h', 5_400_000],
    ['2H', 7_200_000],
    ['10 minutes', 600_000],
    ['0', 0],
  ])('reads %s as %d ms', (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  it('reads a bare number in the default unit', () => {
    expect(parseDuration('30', { defaultUnit: 's' })).toBe(30_000);
    expect(parseDuration('30', { defaultUnit: 'ms' })).toBe(30);
    expect(parseDuration('1.5', { defaultUnit: 's' })).toBe(1500);
    expect(parseDuration('1500', { defaultUnit: 'ms' })).toBe(1500);
    expect(() => parseDuration('1.5', { defaultUnit: 'ms' })).toThrow(/not a whole number of milliseconds/);
  });

  it.each([
    ['-5s', /cannot be negative/],
    ['', /not a number with a unit/],
    ['soon', /not a number with a unit/],
    ['1h30', /not a number with a unit/],
    ['5y', /unknown unit "y"/],
    ['0.5ms', /not a whole number of milliseconds/],
    ['1.5', /give a unit/],
    ['1500', /give a unit/],
    ['15', /give a unit/],
    ['1e3s', /not a number with a unit|unknown unit/],
  ])('refuses %j', (input, why) => {
    const error = catchError(() => parseDuration(input));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toContain(`"${input}"`);
    expect(error.message).toMatch(why);
  });
});

describe('formatDuration', () => {
  it.each([
    [900_000, '15m'],
    [5_400_000, '1h 30m'],
    [2 * 86_400_000, '2d'],
    [90_000, '1m 30s'],
    [500, '500ms'],
    [0, '0s'],
    [93_784_005, '1d 2h 3m 4s 5ms'],
    [-60_000, '-1m'],
  ])('prints %d ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('keeps only the largest parts when asked', () => {
    expect(formatDuration(107_998_123, { largest: 2 })).toBe('1d 5h');
    expect(formatDuration(500, { largest: 2 })).toBe('500ms');
  });

  it('prints every duration in a form that parses back to the same number', () => {
    fc.assert(
      fc.property(fc.nat({ max: Number.MAX_SAFE_INTEGER }), (ms) => {
        expect(parseDuration(formatDuration(ms))).toBe(ms);
      }),
    );
  });
});

function catchError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (error) {
    return error as UsageError;
  }
  throw new Error('expected an error');
}
