// The texts the service's REST results writer prints for each value (docs/api-facts.md §16): Jackson's `writeNumber` of a Java long, float, double or BigDecimal, and
// the Joda formatters of its dates, times and timestamps. Everything here works on exact inputs (bigint
// unscaled decimals, bigint milliseconds) so that no value passes through a rounded JavaScript number.

/** Java's `Double.toString`: `0.1`, `-2.0`, `1.0E300`, `1.0E-4`, `4.9E-324`, `NaN`, `-Infinity`. */
export function javaDouble(v: number): string {
  return javaFloating(
    v,
    (a) => a.toExponential(),
    (a, text) => Number(text) === a,
  );
}

/** Java's `Float.toString` of a 32-bit float `v` (given widened to a double): `0.1`, `3.4028235E38`. */
export function javaFloat(v: number): string {
  const readsBack = (a: number, text: string): boolean => Math.fround(Number(text)) === a;
  return javaFloating(
    v,
    (a) => {
      for (let digits = 1; digits < 9; digits++) {
        const text = a.toExponential(digits - 1);
        if (readsBack(a, text)) return text;
      }
      return a.toExponential(8);
    },
    readsBack,
  );
}

/**
 * Java's layout of the shortest decimal that reads back as `v` (JDK 19+; older JDKs print a longer decimal for a
 * few values, which a reader must take as well): plain notation for 10^-3 ≤ |v| < 10^7, else one digit, a point
 * and `E` with the exponent; always a digit after the point. When one digit would do, Java takes the closest two
 * digits instead (Double.MIN_VALUE is `4.9E-324`, not `5E-324`).
 */
function javaFloating(
  v: number,
  shortest: (a: number) => string,
  readsBack: (a: number, text: string) => boolean,
): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Number.POSITIVE_INFINITY) return 'Infinity';
  if (v === Number.NEGATIVE_INFINITY) return '-Infinity';
  const sign = v < 0 || Object.is(v, -0) ? '-' : '';
  if (v === 0) return `${sign}0.0`;
  const a = Math.abs(v);
  let text = shortest(a);
  if (!text.includes('.')) {
    const two = a.toExponential(1);
    if (readsBack(a, two)) text = two;
  }
  const [mantissa, exponent] = text.split('e') as [string, string];
  const digits = mantissa.replace('.', '').replace(/(?<=.)0+$/, '');
  const exp = Number(exponent);
  if (a >= 1e-3 && a < 1e7) {
    if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
    const whole = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
    return `${sign}${whole}.${digits.slice(exp + 1) || '0'}`;
  }
  return `${sign}${digits[0]}.${digits.slice(1) || '0'}E${exp}`;
}

/** A float or double as a JSON value: Jackson quotes the non-finite ones (`QUOTE_NON_NUMERIC_NUMBERS`). */
export const jsonFloating = (text: string): string =>
  text === 'NaN' || text === 'Infinity' || text === '-Infinity' ? `"${text}"` : text;

/**
 * Java's `BigDecimal.toString` of `unscaled`·10^-`scale`: plain notation unless the adjusted exponent is below -6,
 * then scientific (`0E-18` and `-1E-18` at scale 18, `1.5E-17`), as Jackson writes a BigDecimal by default.
 */
export function bigDecimalText(unscaled: bigint, scale: number): string {
  const sign = unscaled < 0n ? '-' : '';
  const coefficient = (unscaled < 0n ? -unscaled : unscaled).toString();
  const adjusted = coefficient.length - 1 - scale;
  if (scale >= 0 && adjusted >= -6) return sign + plainDigits(coefficient, scale);
  const rest = coefficient.length > 1 ? `.${coefficient.slice(1)}` : '';
  return `${sign}${coefficient[0]}${rest}E${adjusted > 0 ? '+' : ''}${adjusted}`;
}

/** Java's `BigDecimal.toPlainString` (the text of a DECIMAL map key). */
export function bigDecimalPlain(unscaled: bigint, scale: number): string {
  const sign = unscaled < 0n ? '-' : '';
  return sign + plainDigits((unscaled < 0n ? -unscaled : unscaled).toString(), scale);
}

function plainDigits(coefficient: string, scale: number): string {
  if (scale <= 0) return coefficient + '0'.repeat(-scale);
  const padded = coefficient.padStart(scale + 1, '0');
  return `${padded.slice(0, -scale)}.${padded.slice(-scale)}`;
}

// ── Dates and times ────────────────────────────────────────────────────────────────────────────────

const MS_PER_DAY = 86_400_000n;

/** The proleptic Gregorian date of a day count from 1970-01-01, any year (Howard Hinnant's civil_from_days). */
export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/**
 * Joda's `yyyy` (the service's `YYYY`): the astronomical year, at least four digits, a minus sign before year 1
 * (221 BC is `-0220`), no plus sign after 9999 (`10000`).
 */
const jodaYear = (year: number): string => (year < 0 ? `-${pad(-year, 4)}` : pad(year, 4));

/** DATE as the service writes it (`YYYY-MM-DD`, Joda, UTC). */
export function serviceDate(days: number): string {
  const { year, month, day } = civilFromDays(days);
  return `${jodaYear(year)}-${pad(month)}-${pad(day)}`;
}

/** `HH:MM:SS.FFF` of a millisecond of the day. */
function timeOfDay(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}.${pad(ms % 1000, 3)}`;
}

/** TIME as the service writes it (`HH24:MI:SS.FFF`), from milliseconds since midnight. */
export const serviceTime = (msOfDay: number): string => timeOfDay(msOfDay);

/** TIMESTAMP as the service writes it (`YYYY-MM-DD HH24:MI:SS.FFF`, UTC), from milliseconds since the epoch. */
export function serviceTimestamp(ms: bigint): string {
  const days = floorDiv(ms, MS_PER_DAY);
  return `${serviceDate(Number(days))} ${timeOfDay(Number(ms - days * MS_PER_DAY))}`;
}

/** ⌊a / b⌋ for b > 0. */
export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a < 0n && q * b !== a ? q - 1n : q;
}

/** INTERVAL DAY TO SECOND as the service writes it: `+001 18:25:16.766` (sign, days, time of day). */
export function serviceIntervalDay(ms: bigint): string {
  const sign = ms < 0n ? '-' : '+';
  const a = ms < 0n ? -ms : ms;
  const days = a / MS_PER_DAY;
  return `${sign}${String(days).padStart(3, '0')} ${timeOfDay(Number(a % MS_PER_DAY))}`;
}

/** INTERVAL YEAR TO MONTH as the service writes it: `+021-02` (sign, years, months). */
export function serviceIntervalYear(months: number): string {
  const a = Math.abs(months);
  return `${months < 0 ? '-' : '+'}${pad(Math.floor(a / 12), 3)}-${pad(a % 12)}`;
}

// ── Map keys (java.time texts: the service names a map's entries by its key's `toString`) ─────────────

/** java.time's `LocalDate.toString`: a plus sign after year 9999, a minus sign before year 1. */
export function isoDate(days: number): string {
  const { year, month, day } = civilFromDays(days);
  const y = year > 9999 ? `+${year}` : year < 0 ? `-${pad(-year, 4)}` : pad(year, 4);
  return `${y}-${pad(month)}-${pad(day)}`;
}

/** java.time's `LocalTime.toString` at millisecond precision: `10:15`, `10:15:30`, `10:15:30.120`. */
export function isoTime(msOfDay: number): string {
  const s = Math.floor(msOfDay / 1000);
  const ms = msOfDay % 1000;
  const hm = `${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}`;
  if (s % 60 === 0 && ms === 0) return hm;
  return `${hm}:${pad(s % 60)}${ms ? `.${pad(ms, 3)}` : ''}`;
}

/** java.time's `LocalDateTime.toString`, from milliseconds since the epoch. */
export function isoTimestamp(ms: bigint): string {
  const days = floorDiv(ms, MS_PER_DAY);
  return `${isoDate(Number(days))}T${isoTime(Number(ms - days * MS_PER_DAY))}`;
}
