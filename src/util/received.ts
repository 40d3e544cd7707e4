// What the service sent, kept beside what dlake made of it. Schemas rebuild every object they parse (keys in the
// schema's order, type variants normalised: see docs/api-facts.md, "Response schemas: the tolerance policy"),
// but `-o json` promises the service's objects as they came. So each parsed object is linked to the object it
// was parsed from, and the json/ndjson output swaps them back.

const received = new WeakMap<object, unknown>();

/**
 * Links every object and array of `parsed` to its counterpart at the same place in `raw` (the JSON the service
 * sent). Places a schema replaced by something of another kind (a bare column type string made `{name}`) are
 * linked to what was sent too, so the output shows the string again.
 */
export function rememberReceived(parsed: unknown, raw: unknown): void {
  if (parsed === null || typeof parsed !== 'object' || parsed === raw) return;
  received.set(parsed, raw);
  if (raw === null || typeof raw !== 'object') return;
  if (Array.isArray(parsed)) {
    if (!Array.isArray(raw)) return;
    for (let i = 0; i < parsed.length; i++) rememberReceived(parsed[i], raw[i]);
    return;
  }
  const r = raw as Record<string, unknown>;
  for (const [k, v] of Object.entries(parsed)) if (Object.hasOwn(r, k)) rememberReceived(v, r[k]);
}

/**
 * The value to print as JSON: every parsed object replaced by the one the service sent; objects dlake built
 * itself (a listing merged from pages, a `{dryRun: …}` report) are kept, with their contents swapped back.
 * Nothing is copied where nothing inside was swapped (result rows, `dlake api` bodies).
 */
export function asReceived(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (received.has(value)) return received.get(value);
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const sent = asReceived(value[i]);
      if (sent === value[i]) continue;
      out ??= value.slice();
      out[i] = sent;
    }
    return out ?? value;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(value)) {
    const sent = asReceived(v);
    if (sent === v) continue;
    out ??= { ...value };
    // defineProperty: a key named __proto__ stays a key.
    Object.defineProperty(out, k, { value: sent, enumerable: true, writable: true, configurable: true });
  }
  return out ?? value;
}
