// The cells of a REST results page (row objects, exact numbers kept as JsonNumber: api/exact-json.ts) in every
// export format. Each cell is first read as its column type's value (`restValue`: a DECIMAL's `0E-18` the
// unscaled 0, a DOUBLE's `1.0E300` the double, a DATE's `0221-01-01 (BC)` its day count, a LIST the values of
// its element type by the schema's subSchema), then written in its one canonical text (values.ts), so that the
// bytes are those of a Flight export of the same rows. Parquet takes the same values (parquet.ts).
import { JsonNumber, stringifyExact } from '../api/exact-json.js';
import type { ResultRow } from '../api/jobs.js';
import { ServiceError } from '../errors.js';
import type { ColumnType } from './column-types.js';
import {
  base64,
  dateText,
  daysFromCivil,
  decimalText,
  doubleText,
  floatText,
  intervalText,
  jsonFloat,
  timestampText,
  timeText,
} from './values.js';

/**
 * A value as every writer takes it, by column type: varchar and interval a string, varbinary bytes, boolean,
 * integer a number or bigint, float a number, decimal its unscaled bigint, date a day count, time and timestamp
 * a bigint count of the column's unit, list an array of values, struct an array of its fields' values in
 * schema order, map an array of [key, value] pairs, other a string of JSON text. Null is null.
 */
export type Value = unknown;

/**
 * A row's cell. A row without a column named `__proto__` would give the prototype for it (written as `{}`):
 * undefined instead, as for any missing column.
 */
export function cellOf(row: ResultRow, name: string): unknown {
  return name === '__proto__' && !Object.hasOwn(row, name) ? undefined : row[name];
}

const textOf = (v: unknown): string => (v instanceof JsonNumber ? v.text : String(v));

export function badValue(name: string, v: unknown, what: string): ServiceError {
  return new ServiceError(
    `column ${JSON.stringify(name)}: the service sent ${JSON.stringify(typeof v === 'string' ? v : stringifyExact(v)).slice(0, 60)}, which is not ${what}`,
  );
}

/** How a REST cell (not null) of column `name` of type `t` becomes its value. */
export function restValue(t: ColumnType, name: string): (v: unknown) => Value {
  const bad = (v: unknown, what: string) => badValue(name, v, what);
  switch (t.kind) {
    case 'varchar':
      return (v) => (typeof v === 'string' ? v : stringifyExact(v));
    case 'varbinary':
      return (v) => {
        if (typeof v !== 'string') throw bad(v, 'base64 bytes');
        return Buffer.from(v, 'base64');
      };
    case 'boolean':
      return (v) => {
        if (typeof v === 'boolean') return v;
        if (v === 'true' || v === 'false') return v === 'true';
        throw bad(v, 'BOOLEAN');
      };
    case 'integer':
      return (v) => {
        if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
        const text = textOf(v);
        if (!/^-?\d+$/.test(text)) throw bad(v, 'an integer');
        return BigInt(text);
      };
    case 'float':
      return (v) => {
        let n: number;
        if (typeof v === 'number') n = v;
        else {
          const text = textOf(v);
          if (!FLOAT_TEXT.test(text)) throw bad(v, 'a number');
          n = Number(text);
        }
        return t.bits === 64 ? n : Math.fround(n);
      };
    case 'decimal':
      return (v) => unscaled(v, t.scale) ?? bad(v, 'a decimal');
    case 'date':
      return (v) => {
        const d = typeof v === 'string' ? civil(v) : undefined;
        if (d?.rest !== '') throw bad(v, 'a DATE');
        return d.days;
      };
    case 'time':
      return (v) => {
        const n = typeof v === 'string' ? clock(v) : undefined;
        if (n === undefined) throw bad(v, 'a TIME');
        return n / BigInt(t.unit);
      };
    case 'timestamp':
      return (v) => {
        const d = typeof v === 'string' ? civil(v) : undefined;
        const n = d && /^[ T]/.test(d.rest) ? clock(d.rest.slice(1).replace(/Z$/, '')) : undefined;
        if (!d || n === undefined) throw bad(v, 'a TIMESTAMP');
        return (BigInt(d.days) * 86_400_000_000_000n + n) / BigInt(t.unit);
      };
    case 'interval':
      return (v) => (typeof v === 'string' ? (serviceInterval(v) ?? isoInterval(v) ?? v) : stringifyExact(v));
    case 'list': {
      const element = nullable(restValue(t.element, name));
      return (v) => {
        if (!Array.isArray(v)) throw bad(v, 'a LIST');
        return v.map(element);
      };
    }
    case 'struct': {
      const fields = t.fields.map((f) => ({
        name: f.name,
        value: nullable(restValue(f.type, `${name}.${f.name}`)),
      }));
      return (v) => {
        if (v === null || typeof v !== 'object' || Array.isArray(v)) throw bad(v, 'a STRUCT');
        const o = v as Record<string, unknown>;
        return fields.map((f) => f.value(Object.hasOwn(o, f.name) ? o[f.name] : null));
      };
    }
    case 'map': {
      // The service names an entry by its key's text (docs/api-facts.md §16): read as a value of the key's type.
      const key = nullable(restValue(t.key, `${name}.key`));
      const keyOfText =
        t.key.kind === 'varchar' || t.key.kind === 'varbinary'
          ? key
          : t.key.kind === 'integer' || t.key.kind === 'float' || t.key.kind === 'decimal'
            ? (k: string) => key(new JsonNumber(k))
            : key;
      const value = nullable(restValue(t.value, `${name}.value`));
      return (v) => {
        // An array of {key, value} entries, or (string keys) an object.
        if (Array.isArray(v))
          return v.map((e) => {
            if (e === null || typeof e !== 'object' || !('key' in e)) throw bad(v, 'a MAP');
            const entry = e as { key: unknown; value?: unknown };
            return [key(entry.key), value(entry.value ?? null)];
          });
        if (v === null || typeof v !== 'object') throw bad(v, 'a MAP');
        return Object.entries(v).map(([k, x]) => [keyOfText(k), value(x)]);
      };
    }
    case 'null':
    case 'other':
      return (v) => v;
  }
}

/** A float's text: a JSON number, or the non-finite values the service writes as strings. */
const FLOAT_TEXT = /^(-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|NaN|-?Infinity)$/;

const nullable =
  (f: (v: unknown) => Value) =>
  (v: unknown): Value =>
    v === null || v === undefined ? null : f(v);

/** A decimal's digits as an integer scaled by 10^scale, exactly (no trip through a double); undefined if not one. */
export function unscaled(v: unknown, scale: number): bigint | undefined {
  const m = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(textOf(v));
  if (!m || (m[2] === '' && !m[3])) return undefined;
  const [, sign, whole = '', frac = '', exp] = m;
  // Move the point by the exponent, then pad or round the fraction to `scale` digits.
  let digits = whole + frac;
  let point = whole.length + Number(exp ?? 0);
  if (point < 0) {
    digits = '0'.repeat(-point) + digits;
    point = 0;
  }
  digits = digits.padEnd(point, '0');
  const intPart = digits.slice(0, point) || '0';
  const fracPart = digits.slice(point);
  let n = BigInt(intPart + fracPart.slice(0, scale).padEnd(scale, '0'));
  if ((fracPart[scale] ?? '0') >= '5') n += 1n;
  return sign ? -n : n;
}

/**
 * The day count of a date at the start of `text` (`YYYY-MM-DD`, a signed ISO year, or the service's
 * `0221-01-01 (BC)` for the year 221 BC), and the text after it (the era mark removed).
 */
function civil(text: string): { days: number; rest: string } | undefined {
  const m = /^([+-]?\d{4,})-(\d\d)-(\d\d)/.exec(text);
  if (!m) return undefined;
  let y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return undefined;
  let rest = text.slice(m[0].length);
  const bc = / \(BC\)$/.exec(rest);
  if (bc) {
    rest = rest.slice(0, -bc[0].length);
    y = 1 - y;
  }
  return { days: daysFromCivil(y, mo, d), rest };
}

/** Nanoseconds into the day of `HH:MM:SS[.f…]` (or java.time's `HH:MM` of a map key), or undefined. */
function clock(text: string): bigint | undefined {
  const m = /^(\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?$/.exec(text);
  if (!m) return undefined;
  const s = Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0);
  return BigInt(s) * 1_000_000_000n + BigInt((m[4] ?? '').padEnd(9, '0'));
}

/**
 * The service's interval texts (docs/api-facts.md §16) as ISO 8601: DAY TO SECOND `+001 18:25:16.766` (sign, days,
 * time of day), YEAR TO MONTH `+021-02` (sign, years, months); undefined for another text.
 */
function serviceInterval(text: string): string | undefined {
  const day = /^([+-])(\d+) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?$/.exec(text);
  if (day) {
    const sign = day[1] === '-' ? -1 : 1;
    const nanos =
      BigInt(Number(day[3]) * 3600 + Number(day[4]) * 60 + Number(day[5])) * 1_000_000_000n +
      BigInt((day[6] ?? '').padEnd(9, '0'));
    return intervalText(0, sign * Number(day[2]), sign < 0 ? -nanos : nanos);
  }
  const year = /^([+-])(\d+)-(\d\d)$/.exec(text);
  if (year) return intervalText((year[1] === '-' ? -1 : 1) * (Number(year[2]) * 12 + Number(year[3])), 0, 0n);
  return undefined;
}

/** An ISO 8601 duration in its canonical text (`P1Y2M`, `P3DT4H5M6.007S`), or undefined if it is not one. */
function isoInterval(text: string): string | undefined {
  const m =
    /^P(?:(-?\d+)Y)?(?:(-?\d+)M)?(?:(-?\d+)W)?(?:(-?\d+)D)?(?:T(?:(-?\d+)H)?(?:(-?\d+)M)?(?:(-?\d+)(?:\.(\d{1,9}))?S)?)?$/.exec(
      text,
    );
  if (!m || text === 'P' || text.endsWith('T')) return undefined;
  const n = (i: number) => Number(m[i] ?? 0);
  const secNeg = (m[7] ?? '').startsWith('-');
  const frac = BigInt((m[8] ?? '').padEnd(9, '0'));
  const nanos =
    BigInt(n(5)) * 3_600_000_000_000n +
    BigInt(n(6)) * 60_000_000_000n +
    BigInt(n(7)) * 1_000_000_000n +
    (secNeg ? -frac : frac);
  return intervalText(n(1) * 12 + n(2), n(3) * 7 + n(4), nanos);
}

/** The canonical text of a value (not null) of type `t`; nested values as JSON text. */
function valueText(t: ColumnType): (v: Value) => string {
  switch (t.kind) {
    case 'varchar':
    case 'interval':
      return (v) => v as string;
    case 'null':
    case 'other':
      return (v) => (typeof v === 'string' ? v : stringifyExact(v));
    case 'varbinary':
      return (v) => base64(v as Uint8Array);
    case 'boolean':
      return (v) => (v ? 'true' : 'false');
    case 'integer':
      return (v) => String(v);
    case 'float':
      return t.bits === 64 ? (v) => doubleText(v as number) : (v) => floatText(v as number);
    case 'decimal':
      return (v) => decimalText(v as bigint, t.scale);
    case 'date':
      return (v) => dateText(v as number);
    case 'time':
      return (v) => timeText(v as bigint, t.unit);
    case 'timestamp':
      return (v) => timestampText(v as bigint, t.unit);
    default:
      return valueJson(t);
  }
}

/** A value (not null) of type `t` as JSON text. */
function valueJson(t: ColumnType): (v: Value) => string {
  switch (t.kind) {
    case 'varchar':
    case 'interval':
    case 'varbinary':
    case 'date':
    case 'time':
    case 'timestamp': {
      const text = valueText(t);
      return (v) => JSON.stringify(text(v));
    }
    case 'float': {
      const text = valueText(t);
      return (v) => jsonFloat(text(v));
    }
    case 'null':
    case 'other':
      return stringifyExact;
    case 'list': {
      const element = jsonOrNull(t.element);
      return (v) => `[${(v as Value[]).map(element).join(',')}]`;
    }
    case 'struct': {
      const fields = t.fields.map((f) => ({ key: `${JSON.stringify(f.name)}:`, json: jsonOrNull(f.type) }));
      return (v) => `{${(v as Value[]).map((x, i) => fields[i]!.key + fields[i]!.json(x)).join(',')}}`;
    }
    case 'map': {
      const value = jsonOrNull(t.value);
      if (t.key.kind === 'varchar')
        return (v) =>
          `{${(v as [string, Value][]).map(([k, x]) => `${JSON.stringify(k)}:${value(x)}`).join(',')}}`;
      const key = jsonOrNull(t.key);
      return (v) =>
        `[${(v as [Value, Value][]).map(([k, x]) => `{"key":${key(k)},"value":${value(x)}}`).join(',')}]`;
    }
    default:
      return valueText(t);
  }
}

const jsonOrNull = (t: ColumnType): ((v: Value) => string) => {
  const json = valueJson(t);
  return (v) => (v === null ? 'null' : json(v));
};

/** How the text formats write one REST column: its cell's CSV text (null for an empty field) and JSON. */
export interface RestCells {
  text(v: unknown): string | null;
  json(v: unknown): string;
}

/**
 * The REST cell writers of a column. A cell its type cannot read (real servers send `""` in a BIGINT or BOOLEAN
 * column: docs/api-facts.md §16) is written as the service sent it, as text or its JSON; Parquet, which has no
 * place for it, refuses it (parquet.ts).
 */
export function restCells(t: ColumnType, name: string): RestCells {
  if (t.kind === 'varchar')
    return {
      text: (v) => (v == null ? null : typeof v === 'string' ? v : stringifyExact(v)),
      json: (v) =>
        v == null ? 'null' : typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(stringifyExact(v)),
    };
  const value = restValue(t, name);
  const text = valueText(t);
  const json = valueJson(t);
  return {
    text: (v) => {
      if (v == null) return null;
      try {
        return text(value(v));
      } catch {
        return typeof v === 'string' ? v : stringifyExact(v);
      }
    },
    json: (v) => {
      if (v == null) return 'null';
      try {
        return json(value(v));
      } catch {
        return stringifyExact(v);
      }
    },
  };
}

/**
 * For a CSV page read straight from its bytes (json-csv.ts): how a flat column's cell text (a number's, or a
 * string's content) becomes its canonical text; undefined where it is written as it came (text, integers,
 * booleans, bytes), null for a column that path does not write (a nested one).
 */
export function restCanon(
  t: ColumnType,
  name: string,
): ((text: string, isString: boolean) => string | undefined) | undefined | null {
  switch (t.kind) {
    case 'varchar':
    case 'varbinary':
    case 'boolean':
    case 'integer':
    case 'null':
      return undefined;
    case 'other':
      // A nested type the schema does not describe (a UNION, a LIST without its subSchema): the ordinary path.
      return /^(LIST|STRUCT|MAP|UNION|ARRAY|ROW)\b/i.test(t.name) ? null : undefined;
    case 'list':
    case 'struct':
    case 'map':
      return null;
    default: {
      const value = restValue(t, name);
      const text = valueText(t);
      const done = CANONICAL[t.kind];
      const scale = t.kind === 'decimal' ? t.scale : -1;
      return (s, isString) => {
        if (done?.test(s) || (scale >= 0 && plainDecimal(s, scale))) return s;
        try {
          return text(value(isString ? s : new JsonNumber(s)));
        } catch {
          // Not a value of the type: the ordinary path writes it as it came (restCells).
          return undefined;
        }
      };
    }
  }
}

/** Texts already canonical, by kind: the common forms, passed without a parse. */
const CANONICAL: Partial<Record<ColumnType['kind'], RegExp>> = {
  date: /^\d{4}-\d\d-\d\d$/,
  time: /^\d\d:\d\d:\d\d\.\d{3}$/,
  timestamp: /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$/,
};

/** Whether `s` is a decimal in plain notation with exactly `scale` fraction digits (no sign on a zero). */
function plainDecimal(s: string, scale: number): boolean {
  const dot = s.indexOf('.');
  if (scale === 0 ? dot >= 0 : dot < 0 || s.length - dot - 1 !== scale) return false;
  if (s.charCodeAt(0) === 45 && /^-0(\.0*)?$/.test(s)) return false;
  for (let i = s.charCodeAt(0) === 45 ? 1 : 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 48 || c > 57) && i !== dot) return false;
  }
  return true;
}
