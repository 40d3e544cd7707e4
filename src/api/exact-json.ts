// JSON parsing that keeps numbers exactly as the service wrote them. JSON.parse turns 9007199254740993 into
// 9007199254740992 and 1.50 into 1.5; docs/cli-contract.md "Streams and formats" wants exported numbers
// "exactly as the API gave them". Node 20 has neither JSON.parse's source-text access nor JSON.rawJSON, so a
// number that would not survive the trip through a double is kept as a `JsonNumber` holding its text. The
// check is a cheap regex over the body; only bodies that may hold such a number pay for the careful parse.

import { ServiceError } from '../errors.js';

/** A JSON number whose text a JS number cannot reproduce (big integers, long decimals, trailing zeros). */
export class JsonNumber {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }

  /** For JSON.stringify elsewhere (e.g. --query): the nearest double, as a plain parse would give. */
  toJSON(): number {
    return Number(this.text);
  }
}

/**
 * Cheap gate: could the body hold a number that changes through a double? A run of 16 digits (and dots), a
 * fraction ending in 0, an exponent, -0, or a fraction below 0.000001 (which a double prints as 1e-7); the
 * last four only where a number ends (before `,` `}` `]` or space), so timestamps and ids inside strings do
 * not trip it. A false alarm only costs the careful parse.
 */
const LONG_RUN = 16;
const REFORMATTED_NUMBER =
  /\.\d*0(?=[,}\]\s])|\d[eE][+-]?\d+(?=[,}\]\s])|-0(?=[,}\]\s])|\b0\.0{6}\d*(?=[,}\]\s])/;
/** Strings (skipped whole) or numbers outside strings. */
const TOKENS = /"[^"\\]*(?:\\.[^"\\]*)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
/** Marks a kept number inside the rewritten text; the random part keeps it from meeting real data. */
const MARK = `\u0000num:${Math.random().toString(36).slice(2)}:`;

/**
 * Whether the text holds a run of LONG_RUN digits and dots. Any such run covers one of every LONG_RUN-th
 * position, so only those are looked at, and widened where they hold a digit: about an eighth of the
 * characters are read. The regex /[\d.]{16}/ read them all, at 5% of an export's CPU (bench/profile.ts).
 */
export function hasLongDigitRun(text: string): boolean {
  const n = text.length;
  for (let i = LONG_RUN - 1; i < n; i += LONG_RUN) {
    if (!isDigitOrDot(text.charCodeAt(i))) continue;
    let start = i;
    while (start > 0 && isDigitOrDot(text.charCodeAt(start - 1))) start--;
    let end = i + 1;
    while (end < n && end - start < LONG_RUN && isDigitOrDot(text.charCodeAt(end))) end++;
    if (end - start >= LONG_RUN) return true;
  }
  return false;
}

const isDigitOrDot = (c: number): boolean => (c >= 48 && c <= 57) || c === 46;

interface ExactParse {
  value: unknown;
  /** Whether any JsonNumber was produced (the writers then take their careful path). */
  exact: boolean;
}

/**
 * JSON.parse, except that numbers a double cannot reproduce come back as JsonNumber; a value nested deeper than
 * MAX_NESTING is refused (`what` names it in the error).
 */
export function parseJsonExact(text: string, what = "the service's answer"): ExactParse {
  // Two simple scans cost less than one with four alternatives.
  if (!hasLongDigitRun(text) && !REFORMATTED_NUMBER.test(text))
    return { value: bounded(JSON.parse(text)), exact: false };
  let kept = 0;
  const rewritten = text.replace(TOKENS, (token) => {
    if (token.charCodeAt(0) === 34 /* " */ || String(Number(token)) === token) return token;
    kept++;
    return JSON.stringify(MARK + token);
  });
  if (kept === 0) return { value: bounded(JSON.parse(text)), exact: false };
  // A walk afterwards is several times faster than a JSON.parse reviver.
  return { value: revive(bounded(JSON.parse(rewritten))), exact: true };

  function bounded(value: unknown): unknown {
    checkNesting(value, what, text);
    return value;
  }
}

/** Kept numbers made JsonNumbers again, in place; the value is no deeper than MAX_NESTING, so recursion is safe. */
function revive(v: unknown): unknown {
  if (typeof v === 'string') return v.startsWith(MARK) ? new JsonNumber(v.slice(MARK.length)) : v;
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = revive(v[i]);
    return v;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const r = revive(o[k]);
    // Only kept numbers change; a column named __proto__ must stay a property, not become the prototype.
    if (r !== o[k])
      Object.defineProperty(o, k, { value: r, enumerable: true, writable: true, configurable: true });
  }
  return o;
}

/**
 * The deepest nesting of arrays and objects dlake reads and prints (docs/cli-contract.md "Output bounds"). Real
 * answers nest a few dozen levels at most; every reader and writer of JSON values (parsing, the exact-number
 * walk, the schemas, JSON and CSV and table output) handles this many, so nothing deeper ever reaches them.
 */
export const MAX_NESTING = 1000;

/** How deeply `value` nests arrays and objects: 0 for a scalar, 1 for `[1]`. Iterative: any depth is measured. */
export function nestingDepth(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object' || v instanceof JsonNumber) continue;
    const here = depth + 1;
    if (here > deepest) deepest = here;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, here]);
    }
  }
  return deepest;
}

/**
 * Refuses (exit 7, naming its depth) a value from the service nested deeper than MAX_NESTING. With the JSON
 * `text` it was parsed from, a body holding fewer brackets than that is passed without a walk.
 */
export function checkNesting(value: unknown, what: string, text?: string): void {
  if (text !== undefined && fewerBrackets(text, MAX_NESTING)) return;
  const depth = nestingDepth(value);
  if (depth <= MAX_NESTING) return;
  throw new ServiceError(
    `${what} is nested ${depth.toLocaleString('en-US')} levels deep; dlake handles at most ${MAX_NESTING.toLocaleString('en-US')}`,
  );
}

/** Whether `text` holds fewer than `n` opening brackets and braces (at most `n` searches, whatever its length). */
function fewerBrackets(text: string, n: number): boolean {
  let count = 0;
  for (let i = text.indexOf('['); i >= 0 && count < n; i = text.indexOf('[', i + 1)) count++;
  for (let i = text.indexOf('{'); i >= 0 && count < n; i = text.indexOf('{', i + 1)) count++;
  return count < n;
}

/** JSON text of a value that may hold JsonNumbers (which are written as their own text). */
export function stringifyExact(value: unknown): string {
  if (value instanceof JsonNumber) return value.text;
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(stringifyExact).join(',')}]`;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (v !== undefined) parts.push(`${JSON.stringify(k)}:${stringifyExact(v)}`);
  }
  return `{${parts.join(',')}}`;
}
