// A tool's answer cut to the session's --max-result-bytes: whole items from the end of its longest list,
// `truncated: true`, exact numbers kept, and never more bytes than allowed.
import { describe, expect, it } from 'vitest';
import { JsonNumber } from '../../src/api/exact-json.js';
import { cappedJson } from '../../src/mcp/result.js';

describe('cappedJson', () => {
  const rows = Array.from({ length: 1_000 }, (_, i) => ({ id: i + 1, name: `row ${i + 1} ünïcode` }));

  it('leaves an answer that fits as it is', () => {
    const value = { jobId: 'j', rows: rows.slice(0, 3), rowCount: 3, truncated: false };
    expect(JSON.parse(cappedJson(value, 10_000))).toEqual(value);
  });

  it('cuts the longest list to the most whole items that fit, in bytes, and says so', () => {
    for (const max of [200, 1_000, 4_096, 30_000]) {
      const text = cappedJson(
        { jobId: 'j', columns: [{ name: 'id' }, { name: 'name' }], rows, rowCount: 1_000 },
        max,
      );
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(max);
      const cut = JSON.parse(text);
      expect(cut).toMatchObject({
        jobId: 'j',
        rowCount: 1_000,
        truncated: true,
        columns: [{ name: 'id' }, { name: 'name' }],
      });
      expect(cut.rows).toEqual(rows.slice(0, cut.rows.length));
      // One more row would not have fitted.
      const more = JSON.stringify({ ...cut, rows: rows.slice(0, cut.rows.length + 1) });
      expect(Buffer.byteLength(more)).toBeGreaterThan(max);
    }
  });

  it('a list answer becomes {items, truncated}; exact numbers stay as the service wrote them', () => {
    const big = [{ n: new JsonNumber('9007199254740993') }, ...rows];
    const cut = cappedJson(big, 500);
    expect(cut.startsWith('{"items":[{"n":9007199254740993},')).toBe(true);
    expect(JSON.parse(cut).truncated).toBe(true);
  });

  it('an answer too large even without its list says so, as JSON', () => {
    const text = cappedJson({ sql: 'x'.repeat(5_000) }, 300);
    expect(JSON.parse(text)).toEqual({
      truncated: true,
      error: "the answer is larger than the session's 300 bytes",
    });
  });
});
