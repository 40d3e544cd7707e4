// Human units for sizes (bytes) and durations (milliseconds), as docs/cli-contract.md "Human units" promises:
// `512MiB`, `8GB`, `90s`, `1h30m`.
//
// Hand-written rather than `bytes`/`ms`/`parse-duration`: `bytes` reads `KB` as 1024 and knows no `KiB`, `ms`
// takes no compound `1h30m`, and `parse-duration` accepts far more than we want (months, negatives, fractions
// of a millisecond). Decimals are parsed exactly (BigInt), so `1.1KB` is 1100 and not 1100.0000000000002.
import { UsageError } from '../errors.js';

const KIB = 1024;

/**
 * Size units, lower-cased. `B`, `KB`, `MB`… and the single letters are decimal (SI, as Kubernetes reads `8G`);
 * `KiB`, `MiB`… and `Ki`, `Mi`… are binary (IEC).
 */
const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  byte: 1,
  bytes: 1,
  ...prefixed(['k', 'm', 'g', 't', 'p']),
};

function prefixed(letters: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  letters.forEach((letter, i) => {
    const decimal = 1000 ** (i + 1);
    const binary = KIB ** (i + 1);
    Object.assign(out, {
      [letter]: decimal,
      [`${letter}b`]: decimal,
      [`${letter}i`]: binary,
      [`${letter}ib`]: binary,
    });
  });
  return out;
}

const IEC_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'] as const;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Duration units, lower-cased, with the spellings people type. */
const DURATION_UNITS: Record<string, number> = {
  ...aliases(1, ['ms', 'msec', 'msecs', 'millisecond', 'milliseconds']),
  ...aliases(SECOND, ['s', 'sec', 'secs', 'second', 'seconds']),
  ...aliases(MINUTE, ['m', 'min', 'mins', 'minute', 'minutes']),
  ...aliases(HOUR, ['h', 'hr', 'hrs', 'hour', 'hours']),
  ...aliases(DAY, ['d', 'day', 'days']),
};

function aliases(value: number, names: string[]): Record<string, number> {
  return Object.fromEntries(names.map((name) => [name, value]));
}

/** Largest first, for formatting. */
const DURATION_PARTS: ReadonlyArray<readonly [string, number]> = [
  ['d', DAY],
  ['h', HOUR],
  ['m', MINUTE],
  ['s', SECOND],
  ['ms', 1],
];

const NUMBER = String.raw`(\d+(?:\.\d+)?)`;
const SIZE_RE = new RegExp(String.raw`^${NUMBER}\s*([a-z]*)$`, 'i');
const DURATION_PART_RE = new RegExp(String.raw`${NUMBER}\s*([a-z]+)\s*`, 'giy');
const PLAIN_NUMBER_RE = new RegExp(`^${NUMBER}$`);

/**
 * `digits` (a decimal such as `1.5`) times `unit`, exactly; undefined when the product is not a whole number
 * or is too large to be a safe integer.
 */
function scaleExactly(digits: string, unit: number): number | undefined {
  const [whole = '0', fraction = ''] = digits.split('.');
  const scaled = BigInt(whole + fraction) * BigInt(unit);
  const divisor = 10n ** BigInt(fraction.length);
  if (scaled % divisor !== 0n) return undefined;
  const result = scaled / divisor;
  return result <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(result) : undefined;
}

function sizeError(input: string, why: string): UsageError {
  return new UsageError(`invalid size "${input}": ${why}`, {
    hint: 'give bytes or a number with a unit, e.g. 1048576, 512MiB, 8GiB, 8GB, 1.5GiB',
  });
}

/**
 * Bytes from `1048576`, `512MiB`, `8GiB`, `8GB` (10^9), `1.5GiB`, `64k`, `2 TiB`. Units are case-insensitive;
 * a space may separate number and unit. Throws a UsageError for negatives, unknown units and fractions of a byte.
 */
export function parseSize(input: string): number {
  const text = input.trim();
  if (text.startsWith('-')) throw sizeError(input, 'a size cannot be negative');
  const match = SIZE_RE.exec(text);
  if (!match) throw sizeError(input, 'not a number with an optional unit');
  const [, digits = '', unitName = ''] = match;
  const unit = SIZE_UNITS[unitName.toLowerCase()];
  if (unit === undefined) throw sizeError(input, `unknown unit "${unitName}"`);
  const bytes = scaleExactly(digits, unit);
  if (bytes === undefined) {
    const why = Number(digits) * unit > Number.MAX_SAFE_INTEGER ? 'too large' : 'not a whole number of bytes';
    throw sizeError(input, why);
  }
  return bytes;
}

/** `8 GiB`, `1.5 GiB`, `512 MiB`, `0 B`: the largest IEC unit that keeps the number ≥ 1, at most two decimals. */
export function formatSize(bytes: number): string {
  if (!Number.isFinite(bytes)) return String(bytes);
  if (bytes < 0) return `-${formatSize(-bytes)}`;
  let index = 0;
  while (index < IEC_UNITS.length - 1 && bytes >= KIB ** (index + 1)) index++;
  let value = round2(bytes / KIB ** index);
  // 1023.999 KiB rounds to 1024 KiB: say 1 MiB instead.
  if (value >= KIB && index < IEC_UNITS.length - 1) {
    index++;
    value = round2(bytes / KIB ** index);
  }
  return `${value} ${IEC_UNITS[index]}`;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

interface ParseDurationOptions {
  /**
   * The unit of a bare number (`ms` for a field whose name says it counts milliseconds). Without it a bare
   * number other than 0 is refused: `--timeout 1` would otherwise silently mean one millisecond.
   */
  defaultUnit?: 'ms' | 's';
}

function durationError(input: string, why: string): UsageError {
  return new UsageError(`invalid duration "${input}": ${why}`, {
    hint: 'use a number with a unit, e.g. 500ms, 90s, 15m, 2h, 30d, 1h30m',
  });
}

/**
 * Milliseconds from `500ms`, `90s`, `15m`, `2h`, `30d`, `1h30m`, `1h 30m`, `1.5h`; a bare number is in
 * `defaultUnit` when one is given, else only `0` is taken without a unit. Units are case-insensitive (there
 * is no month unit for `M` to mean).
 */
export function parseDuration(input: string, opts: ParseDurationOptions = {}): number {
  const text = input.trim();
  if (text.startsWith('-')) throw durationError(input, 'a duration cannot be negative');
  if (PLAIN_NUMBER_RE.test(text)) {
    if (opts.defaultUnit) return durationPart(input, text, opts.defaultUnit === 's' ? SECOND : 1);
    if (Number(text) !== 0) {
      throw new UsageError(`invalid duration "${input}": give a unit`, {
        hint: `e.g. ${text}s or ${text}m (units: ms, s, m, h, d)`,
      });
    }
    return 0;
  }
  const parts = [...text.matchAll(DURATION_PART_RE)];
  const consumed = parts.reduce((length, part) => length + part[0].length, 0);
  if (parts.length === 0 || consumed !== text.length) throw durationError(input, 'not a number with a unit');
  let total = 0;
  for (const [, digits = '', unitName = ''] of parts) {
    const unit = DURATION_UNITS[unitName.toLowerCase()];
    if (unit === undefined) throw durationError(input, `unknown unit "${unitName}"`);
    total += durationPart(input, digits, unit);
  }
  if (!Number.isSafeInteger(total)) throw durationError(input, 'too large');
  return total;
}

function durationPart(input: string, digits: string, unit: number): number {
  const ms = scaleExactly(digits, unit);
  if (ms === undefined) {
    throw durationError(
      input,
      Number(digits) * unit > Number.MAX_SAFE_INTEGER ? 'too large' : 'not a whole number of milliseconds',
    );
  }
  return ms;
}

interface FormatDurationOptions {
  /** Keep only this many of the largest non-zero parts (`29h 59m` rather than `29h 59m 58s 123ms`). */
  largest?: number;
}

/**
 * `15m`, `1h 30m`, `2d`, `1m 30s`, `500ms`, `0s`. Exact by default, so the text parses back to the same number;
 * `largest` trims it for display of values that need no precision (time left on a token).
 */
export function formatDuration(ms: number, opts: FormatDurationOptions = {}): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (ms < 0) return `-${formatDuration(-ms, opts)}`;
  let rest = Math.round(ms);
  const parts: string[] = [];
  for (const [name, size] of DURATION_PARTS) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) parts.push(`${count}${name}`);
  }
  const shown = opts.largest === undefined ? parts : parts.slice(0, Math.max(1, opts.largest));
  return shown.length > 0 ? shown.join(' ') : '0s';
}

// Made on first use: building an Intl.NumberFormat loads ICU's locale data, tens of milliseconds that a
// command printing no count would pay at start (docs/benchmarks.md "Start-up").
let rowCount: Intl.NumberFormat | undefined;

/** `1 row`, `12,345 rows`: a count of result rows as every message says it. */
export const countRows = (n: number): string => {
  rowCount ??= new Intl.NumberFormat('en-US');
  return `${rowCount.format(n)} row${n === 1 ? '' : 's'}`;
};

/** The longest a Node timer holds: 2^31−1 ms (24.8 days). A longer one fires at once (TimeoutOverflowWarning). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A delay as a timer can hold it: `top --interval 30d`, `job wait --timeout 30d` or `--timeout 30d` waited
 * 24.8 days at most rather than 1 ms. Every timer of a wait dlake is asked for goes through it.
 */
export function timerMs(ms: number): number {
  return Math.min(Math.max(0, ms), MAX_TIMER_MS);
}
