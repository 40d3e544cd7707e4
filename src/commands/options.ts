// The one set of option parsers every command uses, so that one rule holds everywhere: whole numbers with
// their range (and "too large" said as such), sizes, durations, repeatable values, closed sets of values
// (case-insensitive, offered by the completions) and the one concurrency limit. Parsers throw UsageError
// (exit 2) naming the flag; commander passes the error through to the one error handler.
import { Option } from '@commander-js/extra-typings';
import { rephrased, UsageError } from '../errors.js';
import { parseDuration, parseSize } from '../util/units.js';

/** The most requests any command sends at once: listings, results pages, exports. */
export const MAX_CONCURRENCY = 32;

interface RangeOptions {
  min?: number;
  max?: number;
  /** Why the maximum is what it is, e.g. " (the service's page limit)". */
  why?: string;
}

/** A commander parser for a whole number in [min, max]. */
export function wholeNumber(
  flag: string,
  { min = 0, max = Number.MAX_SAFE_INTEGER, why = '' }: RangeOptions = {},
) {
  return (value: string): number => {
    const text = value.trim();
    const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`;
    if (!/^\d+$/.test(text)) {
      throw new UsageError(`${flag} must be a whole number ${range}${why}, not "${value}"`);
    }
    const n = Number(text);
    if (!Number.isSafeInteger(n) || n > max) {
      throw new UsageError(`${flag} "${value}" is too large: at most ${max}${why}`);
    }
    if (n < min) throw new UsageError(`${flag} must be a whole number ${range}${why}, not "${value}"`);
    return n;
  };
}

/** Names the flag in a units error (`--max-memory-per-node: invalid size "8QB": unknown unit "QB"`). */
function withFlag<T>(flag: string, parse: (value: string) => T) {
  return (value: string): T => {
    try {
      return parse(value);
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      throw rephrased(e, `${flag}: ${e.message}`);
    }
  };
}

/** Bytes from `512MiB`, `8GB`, `1048576`. */
export function size(flag: string) {
  return withFlag(flag, parseSize);
}

/** Milliseconds from `90s`, `15m`, `1h30m`; with `positive`, zero is refused. */
export function duration(flag: string, { positive = true }: { positive?: boolean } = {}) {
  const parse = withFlag(flag, (value) => parseDuration(value));
  return (value: string): number => {
    const ms = parse(value);
    if (positive && ms <= 0) throw new UsageError(`${flag} must be longer than 0`);
    return ms;
  };
}

interface RepeatableOptions {
  /** Also split each value at commas (`--include a,b` = `--include a --include b`). */
  commas?: boolean;
}

/** A repeatable option's parser: every value, in order; an empty value is refused, never sent. */
export function repeatable(flag: string, { commas = false }: RepeatableOptions = {}) {
  return (value: string, previous: string[] | undefined): string[] => {
    const parts = commas ? value.split(',').map((v) => v.trim()) : [value];
    if (parts.some((p) => p.trim() === '')) {
      throw new UsageError(`${flag} needs a value, not "${value}"`);
    }
    return [...(previous ?? []), ...parts];
  };
}

/**
 * An option taking one of a closed set of values, matched case-insensitively and returned in the set's
 * spelling (`--cpu-tier high` is `HIGH`). The set is kept on the option for the completions and the help.
 */
export function choiceOption<F extends string, V extends string>(
  flags: F,
  description: string,
  values: readonly V[],
) {
  const flag = flags.split(/[ ,]+/).find((f) => f.startsWith('--')) ?? flags;
  return new Option(flags, description)
    .choices(values)
    .argParser((value: string) => choose(flag, value, values));
}

/** `value` in the spelling of `values`, matched case-insensitively; a UsageError listing them otherwise. */
export function choose<T extends string>(flag: string, value: string, values: readonly T[]): T {
  const found =
    values.find((v) => v === value) ?? values.find((v) => v.toLowerCase() === value.toLowerCase());
  if (found === undefined) {
    throw new UsageError(`${flag} "${value}" is not one of: ${values.join(', ')}`);
  }
  return found;
}

/**
 * Values the completions offer for an option whose check happens later, with a better message than "not
 * one of" (source types have aliases and deprecations).
 */
export function offerValues<F extends string>(option: Option<F>, values: readonly string[]) {
  return option.choices(values).argParser((value: string) => value);
}

/** `--concurrency`: requests at once, from 1 to MAX_CONCURRENCY, in every command that has it. */
export function concurrencyOption(what: string, defaultValue: number) {
  return new Option(
    '--concurrency <n>',
    `${what} at once (default ${defaultValue}, at most ${MAX_CONCURRENCY})`,
  ).argParser(wholeNumber('--concurrency', { min: 1, max: MAX_CONCURRENCY }));
}

/** `--email`: an address with a local part and a domain, checked before any request. */
export function email(flag: string) {
  return (value: string): string => {
    const text = value.trim();
    if (!/^[^\s@]+@[^\s@.][^\s@]*$/.test(text) || text.endsWith('.')) {
      throw new UsageError(`${flag} "${value}" is not an e-mail address`, { hint: 'e.g. bob@example.com' });
    }
    return text;
  };
}
