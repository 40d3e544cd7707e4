// What dlake prints stays linear and bounded, whatever the service answers (docs/cli-contract.md "Output
// bounds"): a listing of 100,000 children and a result of 50,000 columns laid out with each cell measured once
// (the calls to the one width function counted, not the time), nesting past the bound refused with exit 7 and
// its depth in every format, a page that brings columns the first one did not have refused rather than dropped,
// and names with invisible characters shown visibly in tables and errors.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { displayWidth } from '../../src/output/width.js';
import { expectFailure, useFixture } from '../helpers/fixture.js';

vi.mock('../../src/output/width.js', async (original) => {
  const actual = await original<typeof import('../../src/output/width.js')>();
  return { ...actual, displayWidth: vi.fn(actual.displayWidth) };
});
const measured = vi.mocked(displayWidth);

const fx = useFixture({ jobStepMs: 5 });
beforeEach(() => {
  fx.emu.faults.clear();
  fx.emu.log.clear();
  measured.mockClear();
});
afterEach(() => fx.emu.faults.clear());

const FORMATS = ['table', 'json', 'csv', 'ndjson'] as const;
const field = (name: string, type = 'VARCHAR') => ({ name, type: { name: type } });

describe('work that grows with the cells', () => {
  it('`catalog ls` of a container with 100,000 children prints them all, each cell measured once', async () => {
    const made = await fx.run(['api', 'POST', 'catalog', '--data', '{"entityType":"space","name":"Big"}']);
    expect(made.code, made.stderr).toBe(0);
    const space = JSON.parse(made.stdout) as Record<string, unknown>;
    const children = Array.from({ length: 100_000 }, (_, i) => ({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      path: ['Big', `folder-${i}`],
      tag: `t${i}`,
      type: 'CONTAINER',
      containerType: 'FOLDER',
    }));
    // A source that ignores paging sends them all in one answer.
    fx.emu.fault({
      kind: 'schema',
      path: '/api/v3/catalog/by-path/Big',
      times: 1,
      body: { ...space, children },
    });
    const r = await fx.run(['catalog', 'ls', 'Big']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(100_001);
    expect(lines[0]).toMatch(/^PATH\s+TYPE\s+ID\s+TAG$/);
    expect(lines[100_000]).toMatch(
      /^Big\/folder-99999\s+FOLDER\s+00000000-0000-4000-8000-000000099999\s+t99999$/,
    );
    expect(fx.emu.log.entries.map((e) => e.fault)).toContain('schema');
    // 4 cells a row and the 4 headers, measured to lay them out; the headers once more to draw them.
    expect(measured.mock.calls.length).toBeGreaterThanOrEqual(100_000 * 4);
    expect(measured.mock.calls.length).toBeLessThanOrEqual(100_000 * 4 + 8);
  });

  it('a result of 50,000 columns prints as a table (records on a terminal), each cell measured once', async () => {
    const schema = Array.from({ length: 50_000 }, (_, c) => field(`c${c}`, 'BIGINT'));
    const row = Object.fromEntries(schema.map((f, c) => [f.name, c]));
    fx.emu.fault({
      kind: 'schema',
      path: /\/results$/,
      times: 1,
      body: { rowCount: 1, schema, rows: [row] },
    });
    const r = await fx.run(['sql', 'SELECT 1']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^c0 {2}c1 {2}c2 .* c49999$/);
    expect(lines[1]).toMatch(/^0 +1 +2 .* 49999$/);
    expect(measured.mock.calls.length).toBeGreaterThanOrEqual(2 * 50_000);
    expect(measured.mock.calls.length).toBeLessThanOrEqual(2 * 50_000 + 50_000);
  });
});

describe('nesting past the bound', () => {
  const DEPTH = 10_000;
  const deep = `${'['.repeat(DEPTH)}1${']'.repeat(DEPTH)}`;

  it('a result cell nested 10,000 levels deep is exit 7 naming the depth, in every format', async () => {
    for (const format of FORMATS) {
      fx.emu.fault({
        kind: 'schema',
        path: /\/results$/,
        times: 1,
        body: `{"rowCount":1,"schema":[{"name":"a","type":{"name":"LIST"}}],"rows":[{"a":${deep}}]}`,
      });
      const r = await fx.run(['sql', 'SELECT 1', '-o', format]);
      expectFailure(r, 7, /results is nested 10,003 levels deep; dlake handles at most 1,000$/);
      expect(r.stderr, format).not.toMatch(/call stack|a bug/);
    }
  });

  it('any other answer nested so deep is exit 7 naming the depth: a catalog entity, a `dlake api` body', async () => {
    fx.emu.fault({
      kind: 'schema',
      path: '/api/v3/catalog/by-path/Samples',
      times: 1,
      body: `{"entityType":"source","id":"x","name":"Samples","tag":"t","config":${deep}}`,
    });
    const get = await fx.run(['catalog', 'get', 'Samples']);
    expectFailure(get, 7, /Samples is nested 10,001 levels deep; dlake handles at most 1,000$/);
    fx.emu.fault({ kind: 'schema', path: '/api/v3/catalog', times: 1, body: `{"data":${deep}}` });
    const api = await fx.run(['api', 'GET', 'catalog']);
    expectFailure(api, 7, 'the answer is nested 10,001 levels deep; dlake handles at most 1,000');
  });
});

describe('a results page that brings columns the first did not have', () => {
  const first = Array.from({ length: 500 }, (_, i) => ({ a: i }));

  it('pages without a schema: refused (exit 7) in every format, the table included, naming the column', async () => {
    for (const format of FORMATS) {
      fx.emu.fault({ kind: 'schema', path: /\/results$/, times: 1, body: { rowCount: 501, rows: first } });
      fx.emu.fault({
        kind: 'schema',
        path: /\/results$/,
        times: 1,
        body: { rowCount: 501, rows: [{ a: 500, b: 'only here' }] },
      });
      const r = await fx.run(['sql', 'SELECT 1', '-o', format, '--max-rows', '1000']);
      expect(r.code, `${format}: ${r.stderr}`).toBe(7);
      expect(r.stderr).toMatch(/changed the result's columns between pages: a later page adds "b"/);
      expect(r.stdout).not.toContain('only here');
    }
  });

  it('a row with a column its page’s schema does not name: refused in every format and in an export', async () => {
    const body = { rowCount: 2, schema: [field('a', 'BIGINT')], rows: [{ a: 1 }, { a: 2, b: 'hidden' }] };
    for (const args of [...FORMATS.map((f) => ['-o', f]), ['--out', '-', '--format', 'csv']]) {
      fx.emu.fault({ kind: 'schema', path: /\/results$/, times: 1, body });
      const r = await fx.run(['sql', 'SELECT 1', ...args]);
      expectFailure(r, 7, /rows\.1: column "b" is not in the page's schema/);
    }
  });
});

describe('invisible characters in names', () => {
  it('are shown as <U+XXXX> in a table and in an error, kept as they are in JSON', async () => {
    const name = 'zero\u200bwidth\u202e';
    const made = await fx.run([
      'api',
      'POST',
      'catalog',
      '--data',
      JSON.stringify({ entityType: 'space', name }),
    ]);
    expect(made.code, made.stderr).toBe(0);
    const table = await fx.run(['catalog', 'ls']);
    expect(table.stdout).toContain('zero<U+200B>width<U+202E>');
    expect(table.stdout).not.toMatch(/[\u200b\u202e]/);
    const json = await fx.run(['catalog', 'ls', '-o', 'json']);
    expect(json.stdout).toContain('zero\u200bwidth\u202e');
    const missing = await fx.run(['catalog', 'get', 'Sales/zero\u200bwidth']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('zero<U+200B>width');
    expect(missing.stderr).not.toMatch(/\u200b/);
  });
});
