// REST results with the digits the service's JSON writer prints (docs/api-facts.md §16): Java's number texts
// checked against the JDK's own documented examples and against answers recorded from real servers
// (test/fixtures/real/), and the sample table `every_type` served byte for byte.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../src/server.js';
import {
  bigDecimalText,
  javaDouble,
  javaFloat,
  serviceDate,
  serviceIntervalDay,
  serviceIntervalYear,
  serviceTimestamp,
} from '../src/service-text.js';
import { call } from './call.js';
import { runEmulatorCommand } from './command.js';

describe("the service's number texts", () => {
  it("BigDecimal.toString: the examples of the JDK's own documentation, and the scale-18 zero", () => {
    // java.math.BigDecimal#toString() javadoc: [unscaled, scale] → text.
    const javadoc: Array<[bigint, number, string]> = [
      [123n, 0, '123'],
      [-123n, 0, '-123'],
      [123n, 1, '12.3'],
      [123n, 5, '0.00123'],
      [123n, 10, '1.23E-8'],
      [-123n, 12, '-1.23E-10'],
      [123n, -1, '1.23E+3'],
      [123n, -3, '1.23E+5'],
    ];
    for (const [unscaled, scale, text] of javadoc) expect(bigDecimalText(unscaled, scale)).toBe(text);
    expect(bigDecimalText(0n, 18)).toBe('0E-18');
    expect(bigDecimalText(-1n, 18)).toBe('-1E-18');
    expect(bigDecimalText(-(10n ** 18n), 18)).toBe('-1.000000000000000000');
    expect(bigDecimalText(0n, 6)).toBe('0.000000');
    expect(bigDecimalText(0n, 7)).toBe('0E-7');
  });

  it('Double.toString and Float.toString: plain from 10^-3 to 10^7, else E notation, a digit after the point', () => {
    const doubles: Array<[number, string]> = [
      [0.1, '0.1'],
      [-2, '-2.0'],
      [100, '100.0'],
      [1e300, '1.0E300'],
      [1e7, '1.0E7'],
      [9_999_999, '9999999.0'],
      [0.001, '0.001'],
      [0.0001, '1.0E-4'],
      [-0, '-0.0'],
      [0, '0.0'],
      [Number.MAX_VALUE, '1.7976931348623157E308'],
      [Number.MIN_VALUE, '4.9E-324'],
      [2 ** 53 + 2, '9.007199254740994E15'],
      [Number.NaN, 'NaN'],
      [Number.POSITIVE_INFINITY, 'Infinity'],
      [Number.NEGATIVE_INFINITY, '-Infinity'],
    ];
    for (const [v, text] of doubles) expect(javaDouble(v)).toBe(text);
    // Float's constants as java.lang.Float prints them (MAX_VALUE, MIN_VALUE), and a float's own shortest digits.
    const floats: Array<[number, string]> = [
      [3.4028235e38, '3.4028235E38'],
      [1.4e-45, '1.4E-45'],
      [0.1, '0.1'],
      [3.4e38, '3.4E38'],
      [16_777_216, '1.6777216E7'],
      [-1.5, '-1.5'],
    ];
    for (const [v, text] of floats) expect(javaFloat(Math.fround(v))).toBe(text);
  });

  it('dates, times and intervals: Joda years (a sign before year 1, none after 9999), Oracle-style intervals', () => {
    // JavaScript's Date, an independent proleptic Gregorian calendar, says -000221-09-05 and +010000-01-01.
    expect(serviceDate(-799_999)).toBe('-0221-09-05');
    expect(serviceDate(2_932_897)).toBe('10000-01-01');
    expect(serviceDate(-719_528)).toBe('0000-01-01');
    expect(serviceTimestamp(-1n)).toBe('1969-12-31 23:59:59.999');
    expect(serviceIntervalDay(-(86_400_000n + 66_430_766n))).toBe('-001 18:27:10.766');
    expect(serviceIntervalYear(21 * 12 + 2)).toBe('+021-02');
  });
});

describe('answers recorded from real servers, reproduced', () => {
  const real = (name: string) =>
    JSON.parse(readFileSync(resolve(import.meta.dirname, '../../test/fixtures/real', name), 'utf8')) as {
      rows: Array<Record<string, unknown>>;
    };
  const rawText = (name: string): string =>
    readFileSync(resolve(import.meta.dirname, '../../test/fixtures/real', name), 'utf8');

  it("a DOUBLE column's texts (`1.0`, `3.0`, `0.75`) are Java's", () => {
    const texts = [...rawText('dremio_client-job-results.json').matchAll(/"float_val": (-?\d[^,\s}]*)/g)].map(
      (m) => m[1]!,
    );
    expect(texts.length).toBeGreaterThan(3);
    for (const t of texts) expect(javaDouble(Number(t))).toBe(t);
  });

  it("each TIMESTAMP text is the service's text of the epoch milliseconds beside it", () => {
    const rows = real('ddc-sys-jobs-recent.json').rows;
    let checked = 0;
    for (const row of rows) {
      for (const [key, text] of Object.entries(row)) {
        if (!key.endsWith('_ts')) continue;
        const millis = row[key.replace(/_ts$/, '_epoch_millis')];
        if (typeof millis !== 'number') continue;
        expect(serviceTimestamp(BigInt(millis))).toBe(text);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(10);
  });
});

describe('the every_type table over REST, byte for byte', () => {
  let emu: Emulator;
  let auth: string;

  beforeAll(async () => {
    emu = await startEmulator({ bigRows: 10, jobStepMs: 1 });
    auth = `_service${emu.state.issueToken(emu.state.userByName('admin')!.id, 'session', 3600_000).token}`;
  });
  afterAll(() => emu?.close());

  /** The results page of `sql` as the emulator sends it (text). */
  async function resultsText(sql: string, query = 'limit=500'): Promise<string> {
    const submitted = await call(emu, 'POST', '/api/v3/sql', { auth, json: { sql } });
    expect(submitted.status).toBe(200);
    const id = submitted.json.id as string;
    for (;;) {
      const job = await call(emu, 'GET', `/api/v3/job/${id}`, { auth });
      if (job.json.jobState === 'COMPLETED') break;
      expect(['FAILED', 'CANCELED']).not.toContain(job.json.jobState);
      await new Promise((r) => setTimeout(r, 5));
    }
    const page = await call(emu, 'GET', `/api/v3/job/${id}/results?${query}`, { auth });
    expect(page.status).toBe(200);
    return page.text;
  }

  it('every row: exact 64-bit integers and decimals, Java floats, quoted NaN, Joda dates, nested JSON', async () => {
    const text = await resultsText('SELECT * FROM every_type ORDER BY id');
    const rows = text.slice(text.indexOf('"rows":[') + 8, -2);
    expect(rows.split(/,(?=\{"id":)/)).toEqual(EVERY_TYPE_ROWS);
  });

  it('the schema: service type names, LIST/STRUCT element types and MAP entries in subSchema', async () => {
    const text = await resultsText(
      'SELECT id, dec_38_18, interval_ds, interval_ym, ints, point, attrs FROM every_type',
    );
    const schema = JSON.parse(text).schema;
    expect(schema).toEqual([
      { name: 'id', type: { name: 'INTEGER' } },
      { name: 'dec_38_18', type: { name: 'DECIMAL', precision: 38, scale: 18 } },
      { name: 'interval_ds', type: { name: 'INTERVAL DAY TO SECOND' } },
      { name: 'interval_ym', type: { name: 'INTERVAL YEAR TO MONTH' } },
      { name: 'ints', type: { name: 'LIST', subSchema: [{ type: { name: 'INTEGER' } }] } },
      {
        name: 'point',
        type: {
          name: 'STRUCT',
          subSchema: [
            { name: 'x', type: { name: 'DOUBLE' } },
            { name: 'y', type: { name: 'DOUBLE' } },
            { name: 'label', type: { name: 'VARCHAR' } },
          ],
        },
      },
      {
        name: 'attrs',
        type: {
          name: 'MAP',
          subSchema: [
            {
              type: {
                name: 'STRUCT',
                subSchema: [
                  { name: 'key', type: { name: 'VARCHAR' } },
                  { name: 'value', type: { name: 'INTEGER' } },
                ],
              },
            },
          ],
        },
      },
    ]);
  });

  it('exact digits survive paging and arithmetic: 2^53 + 1, sums of BIGINT, decimal addition', async () => {
    const text = await resultsText(
      `SELECT 9007199254740993::BIGINT AS a, sum(x) AS s, 12345678901234567890.123456789012345678::DECIMAL(38,18) + 0.000000000000000001 AS dec,
         0.1::DOUBLE + 0.2::DOUBLE AS d FROM (VALUES (9007199254740993::BIGINT), (2::BIGINT)) t(x)`,
      'offset=0&limit=1',
    );
    expect(text).toContain(
      '"rows":[{"a":9007199254740993,"s":9007199254740995,"dec":12345678901234567890.123456789012345679,"d":0.30000000000000004}]',
    );
  });
});

describe('--rest-floats javascript: floats as a JavaScript number prints', () => {
  let emu: Emulator;
  afterAll(() => emu?.close());

  it('1, 1e+300, a FLOAT widened to a double; NaN quoted all the same; everything else as the service writes it', async () => {
    emu = await startEmulator({ bigRows: 10, jobStepMs: 1, restFloats: 'javascript' });
    const auth = `_service${emu.state.issueToken(emu.state.userByName('admin')!.id, 'session', 3600_000).token}`;
    const sql = `SELECT 1.0::DOUBLE AS a, 1e300::DOUBLE AS b, 'NaN'::DOUBLE AS c, (1 / 3)::FLOAT AS f,
      0::DECIMAL(38,18) AS d`;
    const id = (await call(emu, 'POST', '/api/v3/sql', { auth, json: { sql } })).json.id as string;
    let page = await call(emu, 'GET', `/api/v3/job/${id}/results`, { auth });
    while (page.status === 400) {
      await new Promise((r) => setTimeout(r, 5));
      page = await call(emu, 'GET', `/api/v3/job/${id}/results`, { auth });
    }
    expect(page.text).toContain('"rows":[{"a":1,"b":1e+300,"c":"NaN","f":0.3333333432674408,"d":0E-18}]');
  });

  it('--rest-floats takes java or javascript, and says so when given anything else', async () => {
    const bad = await runEmulatorCommand(['--port', '0', '--rest-floats', 'python']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toBe('emulator: --rest-floats needs java or javascript, got "python"');
    expect((await runEmulatorCommand(['--help'])).stdout).toContain('--rest-floats java|javascript');
  });
});

/** The rows of `every_type` as the service's writer prints them (docs/api-facts.md), one JSON text each. */
const EVERY_TYPE_ROWS = [
  '{"id":1,"flag":false,"tiny":0,"small":0,"int32":0,"int64":0,"float32":0.0,"float64":0.0,"dec_9_2":0.00,' +
    '"dec_38_18":0E-18,"dec_38_0":0,"text":"","bytes":"","day":"1970-01-01","time_of_day":"00:00:00.000",' +
    '"ts":"1970-01-01 00:00:00.000","interval_ds":"+000 00:00:00.000","interval_ym":"+000-00","ints":[],' +
    '"words":[],"point":{"x":0.0,"y":0.0,"label":""},"attrs":{},"orders":[],' +
    '"profile":{"name":"","born":"1970-01-01","scores":[],"extra":{}}}',
  '{"id":2,"flag":true,"tiny":-1,"small":-1,"int32":-1,"int64":-1,"float32":-0.0,"float64":-0.0,"dec_9_2":-0.01,' +
    '"dec_38_18":-1E-18,"dec_38_0":-1,"text":"with, commas and \\"quotes\\"","bytes":"AP8=","day":"1969-12-31",' +
    '"time_of_day":"23:59:59.999","ts":"1969-12-31 23:59:59.999","interval_ds":"-001 01:01:01.001",' +
    '"interval_ym":"-001-02","ints":[-1,null,1],"words":["a",null,""],"point":{"x":-0.0,"y":-1.5},' +
    '"attrs":{"a":-1,"b":null},"orders":[{"sku":"A-1","qty":-1,"price":-0.01,"tags":[],' +
    '"placed":"1969-07-20 20:17:40.000"},null],"profile":{"born":"1969-12-31","scores":[null,-0.0],"extra":{"k":null}}}',
  '{"id":3,"flag":true,"tiny":127,"small":32767,"int32":2147483647,"int64":9223372036854775807,' +
    '"float32":3.4028235E38,"float64":1.7976931348623157E308,"dec_9_2":9999999.99,' +
    '"dec_38_18":99999999999999999999.999999999999999999,"dec_38_0":99999999999999999999999999999999999999,' +
    '"text":"naïve café – 東京 🚀","bytes":"3q2+7w==","day":"9999-12-31","time_of_day":"23:59:59.999",' +
    '"ts":"2300-01-01 12:34:56.789","interval_ds":"+9999 23:59:59.999","interval_ym":"+9999-11",' +
    '"ints":[2147483647,-2147483648],"words":["line one\\nline two","crlf\\r\\nend"],' +
    '"point":{"x":1.0E300,"y":3.4E38,"label":"far"},"attrs":{"max":2147483647,"min":-2147483648},' +
    '"orders":[{"sku":"B-2","qty":9223372036854775807,"price":9999999.99,"tags":["x","y"],' +
    '"placed":"2300-01-01 00:00:00.000"}],"profile":{"name":"Zoë","born":"9999-12-31","scores":[1.0E300,0.1],' +
    '"extra":{"a":"b","c":""}}}',
  '{"id":4,"flag":false,"tiny":-128,"small":-32768,"int32":-2147483648,"int64":-9223372036854775808,' +
    '"float32":"NaN","float64":"NaN","dec_9_2":-9999999.99,"dec_38_18":-99999999999999999999.999999999999999999,' +
    '"dec_38_0":-99999999999999999999999999999999999999,"text":" padded ","bytes":"AA==","day":"-0220-01-01",' +
    '"time_of_day":"00:00:00.001","ts":"0001-01-01 00:00:00.000","interval_ds":"+000 00:00:00.001",' +
    '"interval_ym":"+000-01","ints":[null],"words":[null],"point":{"x":"NaN"},"attrs":{"":0},"orders":[null,{}],' +
    '"profile":{"name":"BC","born":"-0220-01-01","scores":["NaN"]}}',
  '{"id":5,"flag":true,"tiny":1,"small":1,"int32":1,"int64":9007199254740993,"float32":"Infinity",' +
    '"float64":"-Infinity","dec_9_2":0.10,"dec_38_18":12345678901234567890.123456789012345678,' +
    '"dec_38_0":12345678901234567890123456789012345678,"text":"\\"quoted, with comma\\"","bytes":"cGxhaW4=",' +
    '"day":"1900-02-28","time_of_day":"12:00:00.000","ts":"1900-01-01 00:00:00.001",' +
    '"interval_ds":"+001 12:00:00.000","interval_ym":"+001-00","ints":[1,2,3],"words":["x"],' +
    '"point":{"x":"Infinity","y":"-Infinity","label":"inf"},"attrs":{"one":1},' +
    '"orders":[{"sku":"C-3","qty":9007199254740993,"price":0.10,"tags":[null]}],' +
    '"profile":{"name":"Ada","born":"1815-12-10","scores":[0.1,0.2,0.30000000000000004],"extra":{}}}',
  '{"id":6,"flag":null,"tiny":null,"small":null,"int32":null,"int64":null,"float32":null,"float64":null,' +
    '"dec_9_2":null,"dec_38_18":null,"dec_38_0":null,"text":null,"bytes":null,"day":null,"time_of_day":null,' +
    '"ts":null,"interval_ds":null,"interval_ym":null,"ints":null,"words":null,"point":null,"attrs":null,' +
    '"orders":null,"profile":null}',
  '{"id":7,"flag":true,"tiny":42,"small":4242,"int32":424242,"int64":4242424242424242,"float32":0.1,' +
    '"float64":0.1,"dec_9_2":12.34,"dec_38_18":4.2E-17,"dec_38_0":42,"text":"ordinary","bytes":"Ynl0ZXM=",' +
    '"day":"2024-02-29","time_of_day":"13:45:30.500","ts":"2024-02-29 13:45:30.500",' +
    '"interval_ds":"+003 04:05:06.007","interval_ym":"+001-02","ints":[1,2],"words":["a","b"],' +
    '"point":{"x":1.5,"y":-2.0,"label":"p"},"attrs":{"a":1,"b":2},"orders":[{"sku":"D-4","qty":2,' +
    '"price":9.99,"tags":["new"],"placed":"2024-02-29 13:45:30.500"}],' +
    '"profile":{"name":"Grace","born":"1906-12-09","scores":[1.0],"extra":{"k":"v"}}}',
];
