// Results pages that come without a schema (`"schema": []`, or no `schema` at all): the rows' own keys are the
// columns, in every output format and in every export format, Parquet's typed columns included.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseCsv } from '../helpers/csv.js';
import { useFixture } from '../helpers/fixture.js';

let dir: string;
const fx = useFixture({ jobStepMs: 5 });
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-no-schema-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  fx.emu.faults.clear();
});

const ROWS = [
  { id: 1, name: 'north', price: 2.5, ok: true, note: null },
  { id: 2, name: 'a,"b"', price: null, ok: false, note: 'x' },
];

for (const [label, envelope] of [
  ['"schema": []', { rowCount: 2, schema: [], rows: ROWS }],
  ['no schema at all', { rowCount: 2, rows: ROWS }],
] as const) {
  describe(`a results page with ${label}`, () => {
    /** `dlake sql` of a query whose results page is `envelope`. */
    async function sql(...args: string[]) {
      fx.emu.fault({ kind: 'schema', path: /\/results$/, times: 1, body: envelope });
      const r = await fx.run(['sql', 'SELECT 1', ...args]);
      // The page served was the one without a schema.
      expect(fx.emu.log.entries.filter((e) => e.path.endsWith('/results')).map((e) => e.fault)).toEqual([
        'schema',
      ]);
      return r;
    }

    it('json and ndjson print the rows with their keys', async () => {
      const json = await sql('-o', 'json');
      expect(json.code, json.stderr).toBe(0);
      expect(json.stderr).not.toMatch(/error|warning/);
      expect(JSON.parse(json.stdout)).toEqual(ROWS);
      fx.emu.log.clear();
      const ndjson = await sql('-o', 'ndjson');
      expect(ndjson.code).toBe(0);
      expect(
        ndjson.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
      ).toEqual(ROWS);
    });

    it('csv and the table have a column per key', async () => {
      const csv = await sql('-o', 'csv');
      expect(csv.code).toBe(0);
      expect(parseCsv(csv.stdout)).toEqual([
        ['id', 'name', 'price', 'ok', 'note'],
        ['1', 'north', '2.5', 'true', ''],
        ['2', 'a,"b"', '', 'false', 'x'],
      ]);
      fx.emu.log.clear();
      const table = await sql();
      expect(table.code).toBe(0);
      expect(table.stdout.split('\n')[0]).toMatch(/^id\s+name\s+price\s+ok\s+note$/);
      expect(table.stdout).toContain('north');
    });

    it('an export to CSV and to Parquet writes every column', async () => {
      const csvFile = join(dir, `rows-${envelope.schema ? 'empty' : 'none'}.csv`);
      const r = await sql('--out', csvFile);
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(csvFile, 'utf8')).toBe(
        'id,name,price,ok,note\n1,north,2.5,true,\n2,"a,""b""",,false,x\n',
      );
      fx.emu.log.clear();
      const parquet = join(dir, `rows-${envelope.schema ? 'empty' : 'none'}.parquet`);
      const p = await sql('--out', parquet);
      expect(p.code, p.stderr).toBe(0);
      const cols = await fx.emu.runEngineQuery(`DESCRIBE SELECT * FROM read_parquet('${parquet}')`);
      expect(cols.map((c) => `${c.column_name} ${c.column_type}`)).toEqual([
        'id BIGINT',
        'name VARCHAR',
        'price DOUBLE',
        'ok BOOLEAN',
        'note VARCHAR',
      ]);
      const back = await fx.emu.runEngineQuery(`SELECT * FROM read_parquet('${parquet}') ORDER BY id`);
      expect(back).toEqual([
        { id: 1, name: 'north', price: 2.5, ok: true, note: null },
        { id: 2, name: 'a,"b"', price: null, ok: false, note: 'x' },
      ]);
    });
  });
}
