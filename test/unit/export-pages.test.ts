// Reading a job's results pages for an export or a table (src/export: page-fetcher, csv-pages, held-rows)
// against undici's MockAgent: a flat page goes straight to CSV bytes, any other is parsed; rows read into
// memory keep their order, the schema, the job's rowCount and exact numbers.
import { describe, expect, it } from 'vitest';
import { csvPageFetcher } from '../../src/export/csv-pages.js';
import { readRows } from '../../src/export/held-rows.js';
import { pageFetcher } from '../../src/export/page-fetcher.js';
import { mockClient, useMockAgent } from '../helpers/mock-agent.js';

const BASE = 'http://svc.test';
const ID = '2f067496-7cf0-a70e-0222-34d53a5dc800';
const json = { headers: { 'content-type': 'application/json' } };
const mockAgent = useMockAgent();
const client = () => mockClient(mockAgent(), BASE, 'Bearer t');
const signal = new AbortController().signal;

function replyPage(offset: number, limit: number, body: string): void {
  mockAgent()
    .get(BASE)
    .intercept({ path: `/api/v3/job/${ID}/results?offset=${offset}&limit=${limit}`, method: 'GET' })
    .reply(200, body, json);
}

const FLAT =
  '{"rowCount":2,"schema":[{"name":"id","type":{"name":"BIGINT"}},{"name":"note","type":{"name":"VARCHAR"}}],' +
  '"rows":[{"id":1,"note":"a, b"},{"id":9223372036854775807,"note":null}]}';

describe('csvPageFetcher', () => {
  it("turns a flat page into CSV lines, its rows only counted, its buffer the sink's (no release)", async () => {
    replyPage(0, 2, FLAT);
    const page = await csvPageFetcher(client(), ID)(0, 2, signal);
    expect(Buffer.from(page.csv!).toString()).toBe('1,"a, b"\n9223372036854775807,\n');
    expect(page.rows).toHaveLength(2);
    expect(page.rows[0]).toBeUndefined();
    expect(page).toMatchObject({ rowCount: 2, exact: false });
    expect(page.schema.map((f) => f.name)).toEqual(['id', 'note']);
    expect(page.release).toBeUndefined();
  });

  it('parses a page it cannot read straight (a nested column) as any other page', async () => {
    const nested =
      '{"rowCount":1,"schema":[{"name":"s","type":{"name":"STRUCT","subSchema":[{"name":"x","type":{"name":"INTEGER"}}]}}],' +
      '"rows":[{"s":{"x":1}}]}';
    replyPage(0, 1, nested);
    const page = await csvPageFetcher(client(), ID)(0, 1, signal);
    expect(page.csv).toBeUndefined();
    expect(page.rows).toEqual([{ s: { x: 1 } }]);
  });
});

describe('pageFetcher and readRows', () => {
  it('pageFetcher parses the page, keeping exact numbers', async () => {
    replyPage(0, 2, FLAT);
    const page = await pageFetcher(client(), ID)(0, 2, signal);
    expect(page.csv).toBeUndefined();
    expect(page.exact).toBe(true);
    expect(String(page.rows[1]!.id)).toBe('9223372036854775807');
  });

  it('readRows holds the rows of every page in order, up to maxRows', async () => {
    const schema = [{ name: 'n', type: { name: 'INTEGER' } }];
    const rows = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ n: from + i }));
    replyPage(0, 2, JSON.stringify({ rowCount: 7, schema, rows: rows(0, 2) }));
    replyPage(2, 2, JSON.stringify({ rowCount: 7, schema, rows: rows(2, 2) }));
    replyPage(4, 1, JSON.stringify({ rowCount: 7, schema, rows: rows(4, 1) }));
    const held = await readRows({ client: client(), id: ID, pageSize: 2, maxRows: 5, concurrency: 2 });
    expect(held.rows).toEqual(rows(0, 5));
    expect(held).toMatchObject({ rowCount: 7, schema, exact: false });
  });
});
