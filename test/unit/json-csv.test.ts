// A CSV export's direct path: a results page's JSON text straight to CSV lines. Held to the ordinary path
// (JSON.parse with exact numbers, then the CSV formatter) on generated pages: keys in any order, missing,
// unknown or repeated, strings with quotes, separators, line breaks, escapes and any Unicode, numbers in every
// form, whitespace anywhere. Pages off the common shape are given back to the ordinary path.
import { Writable } from 'node:stream';
import v8 from 'node:v8';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { parseResultsPage, type ResultField, type ResultsPage } from '../../src/api/jobs.js';
import { ServiceError } from '../../src/errors.js';
import { csvFromResultsPage, flatColumns } from '../../src/export/json-csv.js';
import { stdoutSink } from '../../src/export/target.js';
import { exportPages, textRows } from '../helpers/formats.js';

// `__proto__` among them: a row without it is an empty field on both paths, not the prototype written as `{}`.
const NAMES = ['id', 'name', 'b c', 'é', 'x"y', 'amount', '__proto__'];
const TYPES = ['VARCHAR', 'BIGINT', 'DOUBLE', 'BOOLEAN', 'DATE'];
/** Numbers as a service may write them; both paths write each as it is written. */
const NUMBERS = [
  '0',
  '-0',
  '7',
  '-12',
  '3.25',
  '1.50',
  '2.0',
  '1e5',
  '-2.5E-3',
  '12345678901234567890',
  '9007199254740993',
  '0.1234567890123456789',
  '100',
  '-492.08',
  '0.0000001',
  '-0.00000012',
  '0.000001',
];

/** JSON text of a string, some characters written as \u escapes (as some servers do). */
const jsonString = (s: string, escapeAll: boolean) =>
  escapeAll
    ? `"${[...s].map((ch) => (ch.charCodeAt(0) > 126 || ch === '"' || ch === '\\' || ch < ' ' ? [...ch].map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`).join('') : ch)).join('')}"`
    : JSON.stringify(s);

type Cell = { VARCHAR: string; BIGINT: string; DOUBLE: string; BOOLEAN: string; DATE: string; null: boolean };
type Row = Array<[string, Cell]>;
/** A cell of each column type, in every form the service may write it (the column's own type picks one). */
const value = fc.record({
  VARCHAR: fc.oneof(
    fc
      .string({
        unit: fc.constantFrom('a', ',', '"', '\n', '\r', '\\', 'é', '東', '🚀', ' ', '\t', '\u0001'),
        maxLength: 12,
      })
      .chain((s) => fc.boolean().map((esc) => jsonString(s, esc))),
    fc.string({ maxLength: 20 }).map((s) => JSON.stringify(s)),
    fc.constantFrom(...NUMBERS, 'true', 'false'),
  ),
  BIGINT: fc.constantFrom('0', '7', '-12', '9007199254740993', '-9223372036854775808', '100'),
  DOUBLE: fc.constantFrom(...NUMBERS, '"NaN"', '"Infinity"', '"-Infinity"'),
  BOOLEAN: fc.constantFrom('true', 'false'),
  DATE: fc.constantFrom('"2024-02-29"', '"1969-12-31"', '"0221-01-01 (BC)"', '"0001-01-01"'),
  null: fc.boolean(),
});

const page = fc
  .record({
    // An empty schema is not read straight: the rows' own keys are then the columns (below).
    columns: fc.uniqueArray(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 5 }),
    types: fc.array(fc.constantFrom(...TYPES), { minLength: 5, maxLength: 5 }),
    rows: fc.array(fc.array(fc.tuple(fc.constantFrom(...NAMES, 'unknown'), value), { maxLength: 8 }), {
      maxLength: 12,
    }),
    ordered: fc.boolean(),
    space: fc.constantFrom('', ' ', '\n  ', '\t'),
  })
  .map(({ columns, types, rows, ordered, space }) => {
    const schema: ResultField[] = columns.map((name, i) => ({ name, type: { name: types[i]! } }));
    // Rows with the schema's keys in order (the common case) or anything generated.
    // Keys the schema does not name make the page refused (below), so generated rows keep to the columns.
    const cell = (column: string, v: Cell | undefined) => {
      const type = schema.find((f) => f.name === column)!.type.name as Exclude<keyof Cell, 'null'>;
      return !v || v.null ? 'null' : v[type];
    };
    const members = (row: Row) =>
      ordered
        ? columns.map((c, i) => [c, cell(c, row[i]?.[1])] as [string, string])
        : row.filter(([k]) => columns.includes(k)).map(([k, v]) => [k, cell(k, v)] as [string, string]);
    const s = space;
    const rowText = (row: Row) =>
      `{${s}${members(row)
        .map(([k, v]) => `${JSON.stringify(k)}${s}:${s}${v}`)
        .join(`${s},${s}`)}${s}}`;
    const text = `{${s}"rowCount"${s}:${s}${rows.length},${s}"schema":${s}${JSON.stringify(schema)},${s}"rows"${s}:${s}[${s}${rows.map(rowText).join(`,${s}`)}${s}]${s}}${s}`;
    return { text, schema, count: rows.length };
  });

const csvOf = (text: string) =>
  Buffer.from(csvFromResultsPage(Buffer.from(text), 500, flatColumns)!.csv).toString();

describe('results page JSON straight to CSV', () => {
  it('gives what JSON.parse and the CSV formatter give, on any flat page', () => {
    fc.assert(
      fc.property(page, ({ text, schema, count }) => {
        const ordinary = parseResultsPage(text, 'GET /results');
        const expected = textRows('csv', schema).format({ rows: ordinary.rows, exact: ordinary.exact });
        const direct = csvFromResultsPage(Buffer.from(text), 500, flatColumns);
        expect(direct).toBeDefined();
        // As bytes: both reach the file as UTF-8 (a lone surrogate from a \ud83d escape becomes U+FFFD in both).
        expect(Buffer.from(direct!.csv).toString()).toBe(Buffer.from(expected).toString());
        expect(direct!.rows).toBe(count);
        expect(direct!.envelope).toEqual({ rowCount: count, schema: JSON.parse(JSON.stringify(schema)) });
      }),
      { numRuns: 400 },
    );
  });

  it("a page with an empty schema or none goes the ordinary way, which takes the rows' own keys", () => {
    for (const text of ['{"rowCount":1,"schema":[],"rows":[{"a":1}]}', '{"rowCount":1,"rows":[{"a":1}]}']) {
      expect(csvFromResultsPage(Buffer.from(text), 500, flatColumns)).toBeUndefined();
      expect(parseResultsPage(text, 'GET /results').schema).toEqual([
        { name: 'a', type: { name: 'BIGINT' } },
      ]);
    }
  });

  it('writes a number in its canonical text, whatever digits the service chose', () => {
    const schema = (type: string) => `[{"name":"n","type":${type}}]`;
    const page = (type: string, n: string) => `{"rowCount":1,"schema":${schema(type)},"rows":[{"n":${n}}]}`;
    expect(csvOf(page('{"name":"DOUBLE"}', '0.0000001'))).toBe('1e-7\n');
    expect(csvOf(page('{"name":"DOUBLE"}', '1.0E300'))).toBe('1e+300\n');
    expect(csvOf(page('{"name":"DOUBLE"}', '-2.0'))).toBe('-2\n');
    expect(csvOf(page('{"name":"FLOAT"}', '3.4E38'))).toBe('3.4e+38\n');
    expect(csvOf(page('{"name":"BIGINT"}', '9007199254740993'))).toBe('9007199254740993\n');
    const decimal = '{"name":"DECIMAL","precision":38,"scale":18}';
    expect(csvOf(page(decimal, '0E-18'))).toBe('0.000000000000000000\n');
    expect(csvOf(page(decimal, '-1E-18'))).toBe('-0.000000000000000001\n');
    expect(csvOf(page(decimal, '-1.000000000000000000'))).toBe('-1.000000000000000000\n');
  });

  it('a column named __proto__ is a column like any other, empty where a row lacks it', () => {
    const text =
      '{"rowCount":2,"schema":[{"name":"__proto__","type":{"name":"VARCHAR"}}],"rows":[{"__proto__":"x"},{}]}';
    expect(csvOf(text)).toBe('x\n\n');
  });

  it('gives back to the ordinary path what it does not read: nested values and types, odd shapes, bad JSON', () => {
    const schema = '[{"name":"a","type":{"name":"VARCHAR"}}]';
    const cases = [
      `{"rowCount":1,"schema":${schema},"rows":[{"a":{"x":1}}]}`,
      `{"rowCount":1,"schema":${schema},"rows":[{"a":[1,2]}]}`,
      `{"rowCount":1,"schema":[{"name":"a","type":{"name":"LIST"}}],"rows":[{"a":"x"}]}`,
      `{"rowCount":1,"rows":[{"a":"x"}],"schema":${schema}}`,
      `{"rowCount":2,"schema":${schema},"rows":[{"a":"x"},{"a":"y"}]}`,
      `{"rowCount":1,"schema":${schema},"rows":[["x"]]}`,
      `{"rowCount":1,"schema":${schema},"rows":[{"a":"x"}]`,
      `{"rowCount":1,"schema":${schema},"rows":[{"a":01}]}`,
      `{"rowCount":1,"schema":${schema},"rows":[{"a":tru}]}`,
      `{"rowCount":1,"schema":${schema},"rows":[{"a":"x"}]} extra`,
      `{"rowCount":1,"schema":${schema},"rows":[{"a":"x"}],"rows":[]}`,
      `{"rowCount":1,"schema":${schema},"rows":[{"a":"line\nbreak"}]}`,
      `{"rowCount":1,"schema":${schema},"rows":[{"a":"x"}],"more":[1,}`,
    ];
    for (const text of cases)
      expect(csvFromResultsPage(Buffer.from(text), 1, flatColumns), text).toBeUndefined();
  });

  it('gives back bytes a decoder would change: a byte-order mark, bytes that are not UTF-8', () => {
    const text = '{"rowCount":1,"schema":[{"name":"a","type":{"name":"VARCHAR"}}],"rows":[{"a":"x"}]}';
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
    // é as the one byte 0xE9 (ISO 8859-1), not UTF-8.
    const latin1 = Buffer.from(text.replace('"x"', '"é"'), 'latin1');
    expect(csvFromResultsPage(Buffer.from(text), 1, flatColumns)).toBeDefined();
    expect(csvFromResultsPage(bom, 1, flatColumns)).toBeUndefined();
    expect(csvFromResultsPage(latin1, 1, flatColumns)).toBeUndefined();
  });

  it('reads a page from a view into a larger buffer, and leaves the body as it was', () => {
    const text = '{"rowCount":1,"schema":[{"name":"a","type":{"name":"VARCHAR"}}],"rows":[{"a":"x,y"}]}';
    const whole = Buffer.from(`padding${text}padding`);
    const body = whole.subarray(7, 7 + text.length);
    const page = csvFromResultsPage(body, 1, flatColumns)!;
    expect(Buffer.from(page.csv).toString()).toBe('"x,y"\n');
    expect(whole.toString()).toBe(`padding${text}padding`);
  });
});

describe('a REST export with pages read straight to CSV', () => {
  const schema: ResultField[] = [{ name: 'a', type: { name: 'VARCHAR' } }];
  const direct = (csv: string, n: number, s = schema): ResultsPage => ({
    rowCount: 3,
    schema: s,
    rows: new Array(n),
    exact: false,
    csv: Buffer.from(csv),
  });
  const sink = () => {
    let text = '';
    const out = new Writable({
      write(chunk, _enc, cb) {
        text += chunk;
        cb();
      },
    });
    return { out, text: () => text };
  };

  it('writes the header from the schema, then the CSV of each page as it is', async () => {
    const pages = [direct('x\ny\n', 2), direct('z\n', 1)];
    const { out, text } = sink();
    const r = await exportPages({
      fetchPage: async (offset) => pages[offset / 2]!,
      format: 'csv',
      target: stdoutSink(out),
      pageSize: 2,
      concurrency: 1,
    });
    expect(r.rows).toBe(3);
    expect(text()).toBe('a\nx\ny\nz\n');
  });

  it("sets V8's memory flags for the export and puts the defaults back after it, also when it fails", async () => {
    // The same module object `process.getBuiltinModule('node:v8')` gives.
    const setFlags = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => {});
    try {
      const run = (pages: ResultsPage[], format: 'csv' | 'json') =>
        exportPages({
          fetchPage: async (offset) => pages[offset / 2]!,
          format,
          target: stdoutSink(sink().out),
          pageSize: 2,
          concurrency: 1,
        }).catch((e: unknown) => e);
      await run([direct('x\ny\n', 2), direct('z\n', 1)], 'csv');
      expect(setFlags.mock.calls.map(([f]) => f)).toEqual([
        '--semi-space-growth-factor=1 --heap-growing-percent=200',
        '--semi-space-growth-factor=2 --heap-growing-percent=0',
      ]);
      setFlags.mockClear();
      // 3 rows of a job of 4 fail the export (exit 7).
      const rows = (n: number): ResultsPage => ({
        rowCount: 4,
        schema,
        rows: new Array(n).fill({ a: 'x' }),
        exact: false,
      });
      expect(await run([rows(2), rows(1)], 'json')).toBeInstanceOf(ServiceError);
      expect(setFlags.mock.calls.map(([f]) => f)).toEqual([
        '--semi-space-growth-factor=1 --heap-growing-percent=200',
        '--semi-space-growth-factor=2 --heap-growing-percent=0',
      ]);
    } finally {
      setFlags.mockRestore();
    }
  });

  it('a page in other columns than the first is refused, not written under the wrong header', async () => {
    const other: ResultField[] = [{ name: 'b', type: { name: 'VARCHAR' } }];
    const pages = [direct('x\ny\n', 2), direct('z\n', 1, other)];
    const { out } = sink();
    const err = await exportPages({
      fetchPage: async (offset) => pages[offset / 2]!,
      format: 'csv',
      target: stdoutSink(out),
      pageSize: 2,
      concurrency: 1,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(String(err)).toMatch(/changed the result's columns between pages/);
  });
});
