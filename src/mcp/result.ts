// A tool's answer as the text an agent reads: JSON (numbers exactly as the service sent them), cut to the
// session's --max-result-bytes. What is cut is the answer's list (rows, hits, items), from the end, never
// half a row; the answer then says `truncated: true`.
import { stringifyExact } from '../api/exact-json.js';

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/** The name of the longest list among `value`'s fields: the one to cut. */
function listField(value: Record<string, unknown>): string | undefined {
  let best: string | undefined;
  for (const [k, v] of Object.entries(value)) {
    if (Array.isArray(v) && (best === undefined || v.length > (value[best] as unknown[]).length)) best = k;
  }
  return best;
}

/** `value` as JSON text of at most `max` bytes (a list becomes `{items, truncated}` when it must be cut). */
export function cappedJson(value: unknown, max: number): string {
  const whole = stringifyExact(value);
  if (bytes(whole) <= max) return whole;
  const obj: Record<string, unknown> = Array.isArray(value)
    ? { items: value }
    : value !== null && typeof value === 'object'
      ? { ...(value as Record<string, unknown>) }
      : { value };
  const field = listField(obj);
  const list = field ? (obj[field] as unknown[]) : [];
  const withFirst = (n: number) =>
    stringifyExact({ ...obj, [field ?? 'items']: list.slice(0, n), truncated: true });
  // The most items that fit, found by bisection.
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (bytes(withFirst(mid)) <= max) lo = mid;
    else hi = mid - 1;
  }
  const text = withFirst(lo);
  if (bytes(text) <= max) return text;
  // Even without its list the answer is too large (one huge entity): say so rather than send broken JSON.
  return stringifyExact({ truncated: true, error: `the answer is larger than the session's ${max} bytes` });
}
