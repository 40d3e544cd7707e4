// Which Arrow encoding the emulator's Flight gives each type (docs/api-facts.md §16). By default the service's own
// vectors: DATE Date64 (ms), TIME Time32 (ms), TIMESTAMP Timestamp (ms, no zone), DECIMAL Decimal128, VARCHAR Utf8,
// VARBINARY Binary. `--flight-encoding KEY=VALUE,…` (or the `flightEncoding` option) sends the encodings other
// versions of the service and other Flight SQL servers use, so a client is tested against each:
//   date=ms|day  time=s|ms|us|ns  timestamp=s|ms|us|ns  zone=NAME|none  strings=utf8|large|view|dictionary
//   binary=binary|large|view  lists=list|large  decimal=128|256  nested=arrow|text  intervals=arrow|text
// `nested` and `intervals`: LIST, STRUCT and MAP as Arrow List/Struct/Map, INTERVAL as Interval(DAY_TIME) or
// Interval(YEAR_MONTH) (`arrow`, as the service sends them), or as the JSON text and interval text its REST
// answer holds, in Utf8 (`text`).

export type TimeUnitName = 's' | 'ms' | 'us' | 'ns';

export interface FlightEncoding {
  date: 'ms' | 'day';
  time: TimeUnitName;
  timestamp: TimeUnitName;
  /** The timestamps' zone (converted to UTC, as a zoned Arrow timestamp always is), or null for none. */
  zone: string | null;
  strings: 'utf8' | 'large' | 'view' | 'dictionary';
  binary: 'binary' | 'large' | 'view';
  lists: 'list' | 'large';
  decimal: 128 | 256;
  nested: 'arrow' | 'text';
  intervals: 'arrow' | 'text';
}

/** The service's vectors (docs/api-facts.md §16). */
export const SERVICE_ENCODING: Readonly<FlightEncoding> = {
  date: 'ms',
  time: 'ms',
  timestamp: 'ms',
  zone: null,
  strings: 'utf8',
  binary: 'binary',
  lists: 'list',
  decimal: 128,
  nested: 'arrow',
  intervals: 'arrow',
};

const UNITS = ['s', 'ms', 'us', 'ns'];
const CHOICES: { [K in keyof FlightEncoding]: (v: string) => FlightEncoding[K] | undefined } = {
  date: (v) => (v === 'ms' || v === 'day' ? v : undefined),
  time: (v) => (UNITS.includes(v) ? (v as TimeUnitName) : undefined),
  timestamp: (v) => (UNITS.includes(v) ? (v as TimeUnitName) : undefined),
  zone: (v) => (v === 'none' ? null : /^[A-Za-z][\w/+-]*$|^[+-]\d\d:\d\d$/.test(v) ? v : undefined),
  strings: (v) =>
    ['utf8', 'large', 'view', 'dictionary'].includes(v) ? (v as FlightEncoding['strings']) : undefined,
  binary: (v) => (['binary', 'large', 'view'].includes(v) ? (v as FlightEncoding['binary']) : undefined),
  lists: (v) => (v === 'list' || v === 'large' ? v : undefined),
  decimal: (v) => (v === '128' ? 128 : v === '256' ? 256 : undefined),
  nested: (v) => (v === 'arrow' || v === 'text' ? v : undefined),
  intervals: (v) => (v === 'arrow' || v === 'text' ? v : undefined),
};

/** `date=day,timestamp=us,zone=UTC`: the choices it names (throws, naming the part, for anything else). */
export function parseFlightEncoding(text: string): Partial<FlightEncoding> {
  const out: Partial<Record<keyof FlightEncoding, unknown>> = {};
  for (const part of text.split(',').filter(Boolean)) {
    const [key, value = ''] = part.split('=', 2) as [string, string?];
    const choose = CHOICES[key as keyof FlightEncoding];
    if (!choose) throw new Error(`unknown encoding "${key}" (one of ${Object.keys(CHOICES).join(', ')})`);
    const chosen = choose(value);
    if (chosen === undefined) throw new Error(`"${part}" is not an encoding of ${key}`);
    out[key as keyof FlightEncoding] = chosen;
  }
  return out as Partial<FlightEncoding>;
}
