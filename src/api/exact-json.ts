// JSON parsing that keeps numbers exactly as the service wrote them. JSON.parse turns 9007199254740993 into
// 9007199254740992 and 1.50 into 1.5; docs/cli-contract.md "Streams and formats" wants exported numbers
// "exactly as the API gave them". Node 20 has neither JSON.parse's source-text access nor JSON.rawJSON, so a
// number that would not survive the trip through a double is kept as a `JsonNumber` holding its text. The
// check is a cheap regex over the body; only bodies that may hold such a number pay for the careful parse.

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

/** JSON.parse, except that numbers a double cannot reproduce come back as JsonNumber. */
export function parseJsonExact(text: string): ExactParse {
  // Two simple scans cost less than one with four alternatives.
  if (!hasLongDigitRun(text) && !REFORMATTED_NUMBER.test(text))
    return { value: JSON.parse(text), exact: false };
  let kept = 0;
  const rewritten = text.replace(TOKENS, (token) => {
    if (token.charCodeAt(0) === 34 /* " */ || String(Number(token)) === token) return token;
    kept++;
    return JSON.stringify(MARK + token);
  });
  if (kept === 0) return { value: JSON.parse(text), exact: false };
  // A walk afterwards is several times faster than a JSON.parse reviver.
  return { value: revive(JSON.parse(rewritten)), exact: true };
}

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
