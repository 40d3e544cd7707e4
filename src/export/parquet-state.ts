// What a resumed Parquet export needs of the writer that wrote FILE.partial: the metadata of the row groups
// already on disk (offsets, sizes, statistics, page indexes), which the footer lists at the end. It is kept in
// the sidecar as JSON, so the values JSON cannot hold are tagged: bigints (every offset and count), byte
// arrays (statistics), -0, NaN and ±Infinity (a double column's statistics), Dates, and undefined inside
// arrays. decode(encode(x)) gives back values the writer serializes to the same bytes.

type Tagged =
  | { $bigint: string }
  | { $bytes: string }
  | { $number: string }
  | { $date: number }
  | { $undefined: true };

/** A JSON-safe copy of `value`, every value JSON would lose or change tagged. */
export function encodeState(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, function (this: Record<string, unknown>, key: string) {
      // `this[key]` is the value before Date's toJSON turned it into text.
      const v = this[key];
      if (typeof v === 'bigint') return { $bigint: v.toString() } satisfies Tagged;
      if (typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0)))
        return { $number: Object.is(v, -0) ? '-0' : String(v) } satisfies Tagged;
      if (v instanceof Uint8Array) return { $bytes: Buffer.from(v).toString('base64') } satisfies Tagged;
      if (ArrayBuffer.isView(v)) throw new Error(`cannot keep a ${v.constructor.name} for --resume`);
      if (v instanceof Date) return { $date: v.getTime() } satisfies Tagged;
      if (v === undefined && Array.isArray(this)) return { $undefined: true } satisfies Tagged;
      return v;
    }),
  );
}

/** The values `encodeState` tagged, back as they were. */
export function decodeState(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decodeState);
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  if (typeof o.$bigint === 'string') return BigInt(o.$bigint);
  if (typeof o.$bytes === 'string') return new Uint8Array(Buffer.from(o.$bytes, 'base64'));
  if (typeof o.$number === 'string') return o.$number === '-0' ? -0 : Number(o.$number);
  if (typeof o.$date === 'number') return new Date(o.$date);
  if (o.$undefined === true) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) out[k] = decodeState(v);
  return out;
}
