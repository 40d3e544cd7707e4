// The one canonical text of each value an export writes (docs/cli-contract.md "Every type the service answers
// with"): whichever transport brought a value, and whatever digits the server chose to print it with, it is
// written the same, so that a REST export and a Flight export of the same rows are the same bytes. Both the
// Arrow cell writers (flight/arrow-cells.ts) and the REST cell writers (rest-cells.ts) end here.

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

/** DECIMAL(p,s): plain notation with exactly `scale` digits after the point, never an exponent. */
export function decimalText(unscaled: bigint, scale: number): string {
  const neg = unscaled < 0n;
  let digits = (neg ? -unscaled : unscaled).toString();
  if (scale > 0) {
    if (digits.length <= scale) digits = digits.padStart(scale + 1, '0');
    digits = `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  }
  return neg ? `-${digits}` : digits;
}

/**
 * DOUBLE: the shortest text that reads back as the same double (ECMAScript's Number#toString), with NaN and the
 * infinities as `NaN`, `Infinity`, `-Infinity`, and -0 as `-0` (it reads back as itself, `0` would not).
 */
export function doubleText(v: number): string {
  if (v === 0 && 1 / v < 0) return '-0';
  return String(v);
}

/**
 * FLOAT: the shortest text that reads back as the same 32-bit float (3.4e38, not its double expansion
 * 3.3999999521443642e+38), in the same notation as a DOUBLE's.
 */
export function floatText(v: number): string {
  if (!Number.isFinite(v) || v === 0) return doubleText(v);
  for (let p = 1; p < 9; p++) {
    const shorter = Number(v.toPrecision(p));
    if (Math.fround(shorter) === v) return String(shorter);
  }
  return String(v);
}

/** A JSON value of a float: a number, or for NaN and the infinities the string the service's REST answer writes. */
export const jsonFloat = (text: string): string =>
  text === 'NaN' || text === 'Infinity' || text === '-Infinity' ? `"${text}"` : text;

/**
 * The civil date of a day count from 1970-01-01 (proleptic Gregorian, any year: Howard Hinnant's days_from_civil
 * inverted), as `YYYY-MM-DD`: the astronomical year in at least four digits, as the service's REST answer writes
 * it (1 BC is `0000`, 221 BC `-0220`, and after 9999 `10000`).
 */
export function dateText(days: number): string {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${yearText(y)}-${pad2(m)}-${pad2(d)}`;
}

function yearText(y: number): string {
  return y < 0 ? `-${String(-y).padStart(4, '0')}` : String(y).padStart(4, '0');
}

/** The day count of a civil date (the inverse of `dateText`'s arithmetic). */
export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

const NS_PER_DAY = 86_400_000_000_000n;

/**
 * `HH:MM:SS.fff` of nanoseconds into the day: milliseconds always, more fraction digits (6 or 9) only when the
 * value has them, so that a value is the same text whatever unit brought it.
 */
function timeOfDayText(ms: number, subMsNanos = 0): string {
  const h = Math.floor(ms / 3_600_000);
  const mi = Math.floor(ms / 60_000) % 60;
  const s = Math.floor(ms / 1000) % 60;
  const f = ms % 1000;
  let text = `${pad2(h)}:${pad2(mi)}:${pad2(s)}.${f < 10 ? '00' : f < 100 ? '0' : ''}${f}`;
  if (subMsNanos !== 0) {
    const sub = String(subMsNanos).padStart(6, '0');
    text += sub.endsWith('000') ? sub.slice(0, 3) : sub;
  }
  return text;
}

/** Splits a count of `unitNanos`-long units since an epoch into whole days, milliseconds and sub-ms nanoseconds. */
function split(value: bigint | number, unitNanos: number): [days: number, ms: number, subNanos: number] {
  if (unitNanos === 1_000_000 && typeof value === 'number') {
    const days = Math.floor(value / 86_400_000);
    return [days, value - days * 86_400_000, 0];
  }
  const ns = BigInt(value) * BigInt(unitNanos);
  let days = ns / NS_PER_DAY;
  let rest = ns - days * NS_PER_DAY;
  if (rest < 0n) {
    rest += NS_PER_DAY;
    days -= 1n;
  }
  const r = Number(rest);
  return [Number(days), Math.floor(r / 1e6), r % 1e6];
}

/** TIMESTAMP `YYYY-MM-DD HH:MM:SS.fff` in UTC from a count of `unitNanos`-long units since 1970. */
export function timestampText(value: bigint | number, unitNanos: number): string {
  const [days, ms, sub] = split(value, unitNanos);
  return `${dateText(days)} ${timeOfDayText(ms, sub)}`;
}

/** TIME `HH:MM:SS.fff` from a count of `unitNanos`-long units since midnight. */
export function timeText(value: bigint | number, unitNanos: number): string {
  const [, ms, sub] = split(value, unitNanos);
  return timeOfDayText(ms, sub);
}

/**
 * An interval as an ISO 8601 duration: `P1Y2M`, `P3DT4H5M6.007S`, `PT0S` for none; a negative part carries its
 * sign (`P-1Y-2M`, `PT-1.5S`), as java.time writes them.
 */
export function intervalText(months: number, days: number, nanos: bigint): string {
  let out = 'P';
  const y = Math.trunc(months / 12);
  const mo = months - y * 12;
  if (y) out += `${y}Y`;
  if (mo) out += `${mo}M`;
  if (days) out += `${days}D`;
  if (nanos !== 0n) {
    out += 'T';
    const neg = nanos < 0n;
    let n = neg ? -nanos : nanos;
    const sign = neg ? '-' : '';
    const h = n / 3_600_000_000_000n;
    n -= h * 3_600_000_000_000n;
    const mi = n / 60_000_000_000n;
    n -= mi * 60_000_000_000n;
    if (h) out += `${sign}${h}H`;
    if (mi) out += `${sign}${mi}M`;
    if (n) {
      const s = n / 1_000_000_000n;
      const frac = String(n - s * 1_000_000_000n)
        .padStart(9, '0')
        .replace(/0+$/, '');
      out += `${sign}${s}${frac ? `.${frac}` : ''}S`;
    }
  }
  return out === 'P' ? 'PT0S' : out;
}

/** VARBINARY in the text formats: base64. */
export const base64 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
