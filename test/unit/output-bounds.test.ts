// The bounds of what dlake prints (docs/cli-contract.md "Output bounds"): tables laid out with work that grows with
// their cells (each cell measured once: the calls to the one width function are counted, not the time), data never
// cut (only free text), records when a table cannot fit without cutting data, nesting refused past its bound, CSV
// on a terminal shown safely.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { JsonNumber, MAX_NESTING, nestingDepth, parseJsonExact } from '../../src/api/exact-json.js';
import { ServiceError } from '../../src/errors.js';
import { PLAIN } from '../../src/output/color.js';
import { render } from '../../src/output/render.js';
import type { View } from '../../src/output/view.js';
import { displayWidth } from '../../src/output/width.js';

// Every measure of a cell goes through displayWidth: counted here.
vi.mock('../../src/output/width.js', async (original) => {
  const actual = await original<typeof import('../../src/output/width.js')>();
  return { ...actual, displayWidth: vi.fn(actual.displayWidth) };
});
const measured = vi.mocked(displayWidth);
afterEach(() => measured.mockClear());

const table = (data: unknown, width?: number, view?: View<never>) =>
  render({ data, view }, { format: 'table', theme: PLAIN, width });
const lines = (text: string) => text.trimEnd().split('\n');

describe('tables are laid out in work proportional to their cells', () => {
  // What `catalog ls` shows of a container with 100,000 children.
  const children = Array.from({ length: 100_000 }, (_, i) => ({
    path: `Sales/reports/report-${i}`,
    type: 'VIRTUAL',
    id: `5f0c${String(i).padStart(8, '0')}-aaaa-bbbb-cccc-0123456789ab`,
    tag: `tag${i}`,
  }));

  it('100,000 rows: each cell measured about once, every row printed, none wider than the terminal', async () => {
    for (const width of [undefined, 120]) {
      measured.mockClear();
      const out = await table(children, width);
      const printed = lines(out.stdout);
      expect(printed).toHaveLength(100_001);
      expect(printed[100_000]).toMatch(/^Sales\/reports\/report-99999\s+VIRTUAL\s+5f0c00099999-aaaa/);
      if (width) for (const l of printed) expect(displayWidth(l)).toBeLessThanOrEqual(width);
      const cells = 100_000 * 4 + 4;
      // Each cell and header once to lay out (by the one width function), the headers once more to draw them.
      expect(measured.mock.calls.length).toBeGreaterThanOrEqual(cells);
      expect(measured.mock.calls.length - (width ? 100_001 : 0)).toBeLessThanOrEqual(cells + 4);
    }
  });

  it('50,000 columns: a table without a terminal, records on one (too wide to fit), each cell measured once', async () => {
    const row: Record<string, unknown> = {};
    for (let c = 0; c < 50_000; c++) row[`col${c}`] = c;
    const piped = await table([row]);
    expect(lines(piped.stdout)).toHaveLength(2);
    expect(measured.mock.calls.length).toBeGreaterThanOrEqual(2 * 50_000);
    expect(measured.mock.calls.length).toBeLessThanOrEqual(3 * 50_000);
    measured.mockClear();
    const onTerminal = await table([row], 80);
    const records = lines(onTerminal.stdout);
    expect(records).toHaveLength(50_000);
    expect(records[49_999]).toMatch(/^COL49999\s+49999$/);
    expect(measured.mock.calls.length).toBeGreaterThanOrEqual(2 * 50_000);
    expect(measured.mock.calls.length).toBeLessThanOrEqual(3 * 50_000);
  });
});

describe('what is printed grows with the cells, never with rows × the widest cell', () => {
  it('without a terminal, one cell of 50,000 characters pads no row: records, every cell whole', async () => {
    const rows = Array.from({ length: 1000 }, (_, i) => ({
      name: i === 500 ? 'n'.repeat(50_000) : `n${i}`,
      size: i,
    }));
    const out = (await table(rows)).stdout;
    // Padded as a table, each of the 1,001 lines would be 50,002 characters: 50 MB.
    expect(out.length).toBeLessThan(200_000);
    const blocks = out.trimEnd().split('\n\n');
    expect(blocks).toHaveLength(1000);
    expect(blocks[500]).toBe(`NAME  ${'n'.repeat(50_000)}\nSIZE  500`);
    expect(blocks[999]).toBe('NAME  n999\nSIZE  999');
  });

  it('a table padded within a few times its cells stays a table', async () => {
    const rows = Array.from({ length: 1000 }, (_, i) => ({
      name: `n${i}`.padEnd(i === 7 ? 300 : 4),
      size: i,
    }));
    expect(lines((await table(rows)).stdout)[0]).toMatch(/^NAME {298}SIZE$/);
  });
});

describe('data is never cut, only free text', () => {
  it('numbers keep every digit in an 80- and a 62-column terminal; the free text is cut instead', async () => {
    const rows = [
      {
        n: '1234567890123',
        d: -60.1157142857,
        exact: new JsonNumber('9007199254740993.50'),
        desc: 'free text that may be cut because it is prose and long enough to matter here',
      },
    ];
    for (const width of [80, 62]) {
      const out = lines((await table(rows, width)).stdout);
      expect(out[1]).toContain('1234567890123');
      expect(out[1]).toContain('-60.1157142857');
      expect(out[1]).toContain('9007199254740993.50');
      expect(out[1]).toMatch(/free te.*…$/);
      for (const l of out) expect(displayWidth(l)).toBeLessThanOrEqual(width);
    }
  });

  it('timestamps, ids, paths and quantities are data; a cell of several words is free text', async () => {
    const rows = [
      {
        at: '2024-05-01 10:00:00.000',
        ref: 'Sales/reports/a-very-long-path-name-that-goes-on',
        size: '1.5 GiB',
        note: 'several words of a note that can be cut without losing anything that matters',
      },
    ];
    const out = lines((await table(rows, 100)).stdout);
    expect(out[1]).toContain('2024-05-01 10:00:00.000');
    expect(out[1]).toContain('Sales/reports/a-very-long-path-name-that-goes-on');
    expect(out[1]).toContain('1.5 GiB');
    expect(out[1]).toMatch(/several.*…$/);
  });

  it('when the data alone is wider than the terminal, each row is a record and nothing is cut', async () => {
    const rows = [{ a: '1234567890123', b: '-60.1157142857', c: 'some text here' }];
    const out = (await table(rows, 20)).stdout;
    expect(out).toBe('A  1234567890123\nB  -60.1157142857\nC  some text here\n');
  });

  it('wide characters are measured as the terminal draws them', async () => {
    const out = lines(
      (
        await table([
          { name: '東京タワー', n: 1 },
          { name: 'north', n: 22 },
        ])
      ).stdout,
    );
    expect(out).toEqual(['NAME        N', '東京タワー  1', 'north       22']);
  });
});

describe('nesting of any depth', () => {
  const nested = (depth: number) => JSON.parse(`${'['.repeat(depth)}1${']'.repeat(depth)}`) as unknown;

  it('is measured without recursion', () => {
    expect(nestingDepth(nested(200_000))).toBe(200_000);
    expect(nestingDepth({ a: [1, { b: null }], n: new JsonNumber('1') })).toBe(3);
  });

  it('up to the bound is printed in every format', async () => {
    const deep = nested(MAX_NESTING - 2);
    const data = [{ deep }];
    const print = (format: 'table' | 'json' | 'ndjson' | 'csv') =>
      render({ data }, { format, theme: PLAIN, width: 80 }).then((o) => o.stdout);
    expect(JSON.parse(await print('json'))).toEqual(data);
    expect(JSON.parse(await print('ndjson'))).toEqual(data[0]);
    expect(await print('csv')).toContain(
      `"${JSON.stringify(deep).replaceAll('"', '""')}"`.replace(/^"|"$/g, ''),
    );
    expect(await print('table')).toContain(JSON.stringify(deep));
  });

  it('past it, is refused as a bad answer (exit 7) naming the depth, in every format', async () => {
    const data = [{ deep: nested(10_000) }];
    for (const format of ['table', 'json', 'ndjson', 'csv'] as const) {
      const err = await render({ data }, { format, theme: PLAIN }).catch((e: unknown) => e);
      expect(err, format).toBeInstanceOf(ServiceError);
      expect((err as ServiceError).message).toBe(
        'the answer is nested 10,002 levels deep; dlake handles at most 1,000',
      );
    }
  });

  it('a body nested past it is refused where it is parsed, exact numbers or not', () => {
    for (const number of ['1', '9007199254740993']) {
      const text = `{"rows":[{"a":${'['.repeat(10_000)}${number}${']'.repeat(10_000)}}]}`;
      expect(() => parseJsonExact(text, 'the answer to GET /x')).toThrow(
        'the answer to GET /x is nested 10,003 levels deep; dlake handles at most 1,000',
      );
    }
    // A flat page of 500 rows holds 500 braces: no walk needed, none done.
    const flat = `{"rows":[${Array.from({ length: 500 }, (_, i) => `{"a":${i}}`).join(',')}]}`;
    expect(parseJsonExact(flat).value).toMatchObject({ rows: { length: 500 } });
  });
});

describe('CSV of any command', () => {
  const data = [{ name: 'x\u001b[31my\u0007', note: 'zero\u200bwidth' }];

  it('on a terminal shows control and invisible characters', async () => {
    const out = await render({ data }, { format: 'csv', theme: PLAIN, terminal: true, width: 80 });
    expect(out.stdout).toBe('NAME,NOTE\nx␛[31my␇,zero<U+200B>width\n');
  });

  it('to a file or a pipe carries the bytes as they are', async () => {
    const out = await render({ data }, { format: 'csv', theme: PLAIN });
    expect(out.stdout).toBe('NAME,NOTE\nx\u001b[31my\u0007,zero\u200bwidth\n');
  });
});

describe('tables show invisible characters', () => {
  it('a zero-width space and a right-to-left override in a path', async () => {
    const out = (
      await table(
        [
          { path: 'Sales/zero\u200bwidth', type: 'SPACE' },
          { path: 'a\u202eb', type: 'X' },
        ],
        80,
      )
    ).stdout;
    expect(out).toContain('Sales/zero<U+200B>width');
    expect(out).toContain('a<U+202E>b');
    expect(out).not.toMatch(/[\u200b\u202e]/);
  });
});
