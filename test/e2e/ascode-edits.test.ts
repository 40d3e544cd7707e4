// A seeded edit per kind and field of a pulled file: plan and plan -o json show exactly that change, apply makes
// it on the service, and the plan is empty again. (The space's tags, a view's sql and a source's port are in
// ascode.test.ts.)
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../helpers/ascode.js';
import { useFixture } from '../helpers/fixture.js';

const SAMPLES = resolve(import.meta.dirname, '../fixtures/samples');
const PG_PASSWORD = 'pg-secret-Edits-41';
const EMPTY = 'Plan: 0 to create, 0 to update, 0 to delete.\n';

let tmp: string;
let dir: string;

const fx = useFixture({ samplesDir: SAMPLES });
beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'dlake-edits-'));
  const create = (entity: unknown) =>
    fx.run(['catalog', 'create', '--file', '-'], { input: JSON.stringify(entity) }).then(ok);
  await create({ entityType: 'space', name: 'Sales' });
  await create({ entityType: 'folder', path: ['Sales', 'reports'] });
  await create({
    entityType: 'dataset',
    type: 'VIRTUAL_DATASET',
    path: ['Sales', 'reports', 'v'],
    sql: 'SELECT 1 AS one',
  });
  await create({
    entityType: 'dataset',
    type: 'PHYSICAL_DATASET',
    path: ['Samples', 'sales', '2024.csv'],
    format: { type: 'Text', extractHeader: true },
  });
  // The source from a definition file, its password from the environment.
  const seed = join(tmp, 'seed');
  mkdirSync(seed);
  writeFileSync(
    join(seed, 'pg.yaml'),
    'kind: source\npath: [pg]\ntype: POSTGRES\nconfig: {hostname: db.example.com, port: 5432, ' +
      `databaseName: sales, authenticationType: MASTER, username: etl, password: "\${env:PG_PASSWORD}"}\n`,
  );
  ok(await fx.run(['apply', '--dir', seed], { env: { PG_PASSWORD } }));
  ok(await fx.run(['catalog', 'wiki', 'Sales/reports', '--set-file', '-'], { input: '# Reports\n' }));
  ok(await fx.run(['catalog', 'wiki', 'Sales', '--set-file', '-'], { input: 'Sales team.\n' }));
  ok(await fx.run(['catalog', 'tags', 'Sales/reports/v', '--set', 'kpi']));
  dir = join(tmp, 'lake');
  ok(await fx.run(['pull', '--dir', dir]));
  expect(ok(await fx.run(['plan', '--dir', dir])).stdout).toBe(EMPTY);
});
afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true });
});

interface Edit {
  name: string;
  file: string;
  edit: (text: string) => string;
  /** The plan's lines for the one entity, header included. */
  lines: string[];
  json: { action: string; kind: string; path: string[]; changes: unknown[] };
  /** What the service holds after apply. */
  check: () => Promise<void>;
}

/** `from` → `to` in `text`, which must hold `from` exactly once. */
function swap(from: string, to: string): (text: string) => string {
  return (text) => {
    expect(text.split(from)).toHaveLength(2);
    return text.replace(from, to);
  };
}

const stored = (path: string[]) => fx.emu.catalog.store.at(path) as unknown as Record<string, unknown>;
const wikiOf = async (ref: string) =>
  JSON.parse(ok(await fx.run(['catalog', 'wiki', ref, '-o', 'json'])).stdout).text;
const tagsOf = async (ref: string) =>
  JSON.parse(ok(await fx.run(['catalog', 'tags', ref, '-o', 'json'])).stdout).tags;

const EDITS: Edit[] = [
  {
    name: 'a folder’s wiki',
    file: 'Sales/reports.yaml',
    edit: swap('wiki: "# Reports"\n', 'wiki: |\n  # Reports\n  Quarterly.\n'),
    lines: ['~ update folder Sales/reports', '    wiki: "# Reports" → "# Reports\\nQuarterly.\\n"'],
    json: {
      action: 'update',
      kind: 'folder',
      path: ['Sales', 'reports'],
      changes: [{ field: 'wiki', from: '# Reports', to: '# Reports\nQuarterly.\n' }],
    },
    check: async () => expect(await wikiOf('Sales/reports')).toBe('# Reports\nQuarterly.\n'),
  },
  {
    name: 'a space’s wiki, removed',
    file: 'Sales.yaml',
    edit: swap('wiki: Sales team.\n', ''),
    lines: ['~ update space Sales', '    wiki: "Sales team." → (none)'],
    json: {
      action: 'update',
      kind: 'space',
      path: ['Sales'],
      changes: [{ field: 'wiki', from: 'Sales team.' }],
    },
    check: async () => expect(await wikiOf('Sales')).toBe(''),
  },
  {
    name: 'a view’s tags',
    file: 'Sales/reports/v.yaml',
    edit: swap('tags:\n  - kpi\n', 'tags:\n  - kpi\n  - gold\n'),
    lines: ['~ update view Sales/reports/v', '    tags: ["kpi"] → ["kpi","gold"]'],
    json: {
      action: 'update',
      kind: 'view',
      path: ['Sales', 'reports', 'v'],
      changes: [{ field: 'tags', from: ['kpi'], to: ['kpi', 'gold'] }],
    },
    check: async () => expect(await tagsOf('Sales/reports/v')).toEqual(['kpi', 'gold']),
  },
  {
    name: 'a view’s wiki, added',
    file: 'Sales/reports/v.yaml',
    edit: (text) => `${text}wiki: Counts one.\n`,
    lines: ['~ update view Sales/reports/v', '    wiki: (none) → "Counts one."'],
    json: {
      action: 'update',
      kind: 'view',
      path: ['Sales', 'reports', 'v'],
      changes: [{ field: 'wiki', to: 'Counts one.' }],
    },
    check: async () => expect(await wikiOf('Sales/reports/v')).toBe('Counts one.'),
  },
  {
    name: 'a dataset’s format',
    file: 'Samples/sales/2024.csv.yaml',
    edit: swap('trimHeader: true', 'trimHeader: false'),
    lines: ['~ update dataset Samples/sales/2024.csv', '    format.trimHeader: true → false'],
    json: {
      action: 'update',
      kind: 'dataset',
      path: ['Samples', 'sales', '2024.csv'],
      changes: [{ field: 'format.trimHeader', from: true, to: false }],
    },
    check: async () =>
      expect(stored(['Samples', 'sales', '2024.csv']).format).toMatchObject({ trimHeader: false }),
  },
  {
    name: 'a dataset’s tags, added',
    file: 'Samples/sales/2024.csv.yaml',
    edit: (text) => `${text}tags:\n  - raw\n`,
    lines: ['~ update dataset Samples/sales/2024.csv', '    tags: (none) → ["raw"]'],
    json: {
      action: 'update',
      kind: 'dataset',
      path: ['Samples', 'sales', '2024.csv'],
      changes: [{ field: 'tags', to: ['raw'] }],
    },
    check: async () => expect(await tagsOf('Samples/sales/2024.csv')).toEqual(['raw']),
  },
  {
    name: 'a source’s config field',
    file: 'pg.yaml',
    edit: swap('databaseName: sales', 'databaseName: sales_eu'),
    lines: ['~ update source pg', '    config.databaseName: "sales" → "sales_eu"'],
    json: {
      action: 'update',
      kind: 'source',
      path: ['pg'],
      changes: [{ field: 'config.databaseName', from: 'sales', to: 'sales_eu' }],
    },
    check: async () =>
      expect(stored(['pg']).config).toMatchObject({ databaseName: 'sales_eu', password: PG_PASSWORD }),
  },
  {
    name: 'a source’s metadata policy',
    file: 'pg.yaml',
    edit: swap('namesRefreshMs: 3600000', 'namesRefreshMs: 7200000'),
    lines: ['~ update source pg', '    metadataPolicy.namesRefreshMs: 3600000 → 7200000'],
    json: {
      action: 'update',
      kind: 'source',
      path: ['pg'],
      changes: [{ field: 'metadataPolicy.namesRefreshMs', from: 3600000, to: 7200000 }],
    },
    check: async () =>
      expect(stored(['pg']).metadataPolicy).toMatchObject({ namesRefreshMs: 7200000, authTTLMs: 86400000 }),
  },
  {
    name: 'a source’s tags',
    file: 'Samples.yaml',
    edit: (text) => `${text}tags:\n  - files\n`,
    lines: ['~ update source Samples', '    tags: (none) → ["files"]'],
    json: {
      action: 'update',
      kind: 'source',
      path: ['Samples'],
      changes: [{ field: 'tags', to: ['files'] }],
    },
    check: async () => expect(await tagsOf('Samples')).toEqual(['files']),
  },
];

describe('a seeded edit of a pulled file', () => {
  // In order: each starts from the service as the previous one left it, which matches the files again.
  for (const e of EDITS) {
    it(`${e.name}: exactly that change in plan and -o json; after apply the plan is empty`, async () => {
      const file = join(dir, e.file);
      writeFileSync(file, e.edit(readFileSync(file, 'utf8')));
      const plan = await fx.run(['plan', '--dir', dir, '--exit-code']);
      expect(plan.code, plan.stderr).toBe(8);
      expect(plan.stdout).toBe(
        `${[...e.lines, 'Plan: 0 to create, 1 to update, 0 to delete.'].join('\n')}\n`,
      );
      const json = JSON.parse(ok(await fx.run(['plan', '--dir', dir, '-o', 'json'])).stdout);
      expect(json).toEqual([e.json]);
      const applied = ok(await fx.run(['apply', '--dir', dir], { env: { PG_PASSWORD } }));
      expect(applied.stderr).toContain('Applied: 0 created, 1 updated, 0 failed.');
      await e.check();
      expect(ok(await fx.run(['plan', '--dir', dir, '--exit-code'])).stdout).toBe(EMPTY);
    });
  }
});
