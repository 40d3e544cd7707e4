// `dlake pull`, `plan`, `apply` in-process against two emulators: the round trip between them, an exact plan,
// one failure among others, secrets kept out of files, and a conflict between plan and apply.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/ascode/apply.js';
import { readDefinitions } from '../../src/ascode/folder.js';
import { sqlReferences } from '../../src/ascode/order.js';
import { computePlan } from '../../src/ascode/plan.js';
import { clientOf, createPgSource, ok, tree } from '../helpers/ascode.js';
import { startFixture, useFixture } from '../helpers/fixture.js';

const SAMPLES = resolve(import.meta.dirname, '../fixtures/samples');
const PG_PASSWORD = 'pg-secret-Ascode-77';

const a = useFixture({ samplesDir: SAMPLES });
const b = useFixture({ samplesDir: SAMPLES });
let tmp: string;

const dir = (name: string) => join(tmp, name);

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'dlake-ascode-'));
  const create = (entity: unknown) =>
    a.run(['catalog', 'create', '--file', '-'], { input: JSON.stringify(entity) });
  ok(await create({ entityType: 'space', name: 'Sales' }));
  ok(await create({ entityType: 'folder', path: ['Sales', 'reports'] }));
  // Created before what it reads would be, in name order: apply must still order them.
  ok(
    await create({
      entityType: 'dataset',
      type: 'PHYSICAL_DATASET',
      path: ['Samples', 'sales', '2024.csv'],
      format: { type: 'Text', extractHeader: true },
    }),
  );
  ok(
    await create({
      entityType: 'dataset',
      type: 'VIRTUAL_DATASET',
      path: ['Sales', 'reports', 'base'],
      sql: 'SELECT * FROM Samples.sales."2024.csv"',
    }),
  );
  ok(
    await create({
      entityType: 'dataset',
      type: 'VIRTUAL_DATASET',
      path: ['Sales', 'a_top'],
      sql: 'SELECT * FROM reports.base',
      sqlContext: ['Sales'],
    }),
  );
  await createPgSource((args) => a.run(args), tmp, PG_PASSWORD);
  ok(await a.run(['catalog', 'tags', 'Sales', '--set', 'finance', '--set', 'gold']));
  ok(await a.run(['catalog', 'tags', 'Sales/a_top', '--set', 'kpi']));
  ok(
    await a.run(['catalog', 'wiki', 'Sales/reports', '--set-file', '-'], {
      input: '# Reports\nQuarterly.\n',
    }),
  );
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('pull', () => {
  it('writes one file per entity, the same bytes every time, with no secret', async () => {
    ok(await a.run(['pull', '--dir', dir('one')]));
    ok(await a.run(['pull', '--dir', dir('two')]));
    const files = tree(dir('one'));
    expect(tree(dir('two'))).toEqual(files);
    expect(Object.keys(files)).toEqual([
      'Sales/a_top.yaml',
      'Sales/reports/base.yaml',
      'Sales/reports.yaml',
      'Sales.yaml',
      'Samples/sales/2024.csv.yaml',
      'Samples.yaml',
      'pg.yaml',
    ]);
    expect(files['Sales.yaml']).toBe('kind: space\npath:\n  - Sales\ntags:\n  - finance\n  - gold\n');
    expect(files['Sales/a_top.yaml']).toBe(
      'kind: view\npath:\n  - Sales\n  - a_top\nsql: SELECT * FROM reports.base\nsqlContext:\n  - Sales\ntags:\n  - kpi\n',
    );
    expect(files['pg.yaml']).toContain(`password: \${env:PG_PASSWORD}`);
    const all = Object.values(files).join('\n');
    for (const secret of [PG_PASSWORD, ...a.emu.state.tokens.keys()])
      expect(all.includes(secret)).toBe(false);
  });
});

describe('round trip', () => {
  it('apply into an empty service, pull again: identical; then plan shows nothing', async () => {
    ok(await a.run(['pull', '--dir', dir('src')]));
    const missing = await b.run(['apply', '--dir', dir('src')]);
    // Without the variable, the source alone is refused, before anything is sent for it.
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      'error: pg: config.password of pg needs the environment variable PG_PASSWORD',
    );
    expect(b.emu.catalog.store.at(['pg'])).toBeUndefined();
    expect(b.emu.catalog.store.at(['Sales', 'a_top'])).toBeDefined();
    ok(await b.run(['apply', '--dir', dir('src')], { env: { PG_PASSWORD } }));
    ok(await b.run(['pull', '--dir', dir('back')]));
    expect(tree(dir('back'))).toEqual(tree(dir('src')));
    const plan = ok(await b.run(['plan', '--dir', dir('src'), '--exit-code']));
    expect(plan.stdout).toBe('Plan: 0 to create, 0 to update, 0 to delete.\n');
    const json = ok(await b.run(['plan', '--dir', dir('src'), '-o', 'json']));
    expect(JSON.parse(json.stdout)).toEqual([]);
  });

  it('a seeded edit shows exactly that change, and apply makes it', async () => {
    const file = join(dir('src'), 'Sales/reports/base.yaml');
    const before = readFileSync(file, 'utf8');
    writeFileSync(file, before.replace('SELECT *', 'SELECT 1 AS x,'));
    writeFileSync(join(dir('src'), 'Sales.yaml'), 'kind: space\npath: [Sales]\ntags: [gold]\n');
    const plan = await b.run(['plan', '--dir', dir('src'), '--exit-code']);
    expect(plan.code).toBe(8);
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toBe(
      [
        '~ update space Sales',
        '    tags: ["finance","gold"] → ["gold"]',
        '~ update view Sales/reports/base',
        '    sql: "SELECT * FROM Samples.sales.\\"2024.csv\\"" → "SELECT 1 AS x, FROM Samples.sales.\\"2024.csv\\""',
        'Plan: 0 to create, 2 to update, 0 to delete.',
        '',
      ].join('\n'),
    );
    const json = JSON.parse((await b.run(['plan', '--dir', dir('src'), '-o', 'json'])).stdout);
    expect(json).toEqual([
      {
        action: 'update',
        kind: 'space',
        path: ['Sales'],
        changes: [{ field: 'tags', from: ['finance', 'gold'], to: ['gold'] }],
      },
      {
        action: 'update',
        kind: 'view',
        path: ['Sales', 'reports', 'base'],
        changes: [
          {
            field: 'sql',
            from: 'SELECT * FROM Samples.sales."2024.csv"',
            to: 'SELECT 1 AS x, FROM Samples.sales."2024.csv"',
          },
        ],
      },
    ]);
    const dry = ok(await b.run(['apply', '--dir', dir('src'), '--dry-run']));
    expect(dry.stdout).toBe(plan.stdout);
    writeFileSync(file, before.replace('SELECT *', 'SELECT region'));
    ok(await b.run(['apply', '--dir', dir('src')]));
    expect(b.emu.catalog.store.at(['Sales', 'reports', 'base'])).toMatchObject({
      sql: 'SELECT region FROM Samples.sales."2024.csv"',
    });
    expect((await b.run(['plan', '--dir', dir('src')])).stdout).toBe(
      'Plan: 0 to create, 0 to update, 0 to delete.\n',
    );
  });

  it('a source edit updates its config; its secret comes from the environment or nothing is sent', async () => {
    const file = join(dir('src'), 'pg.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('port: 5432', 'port: 5433'));
    const plan = ok(await b.run(['plan', '--dir', dir('src')]));
    expect(plan.stdout).toBe(
      '~ update source pg\n    config.port: 5432 → 5433\nPlan: 0 to create, 1 to update, 0 to delete.\n',
    );
    b.emu.log.clear();
    const missing = await b.run(['apply', '--dir', dir('src')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('needs the environment variable PG_PASSWORD');
    expect(b.emu.log.entries.filter((e) => e.method !== 'GET')).toEqual([]);
    ok(await b.run(['apply', '--dir', dir('src')], { env: { PG_PASSWORD: 'rotated-pw-1' } }));
    const stored = b.emu.catalog.store.at(['pg']) as unknown as { config: Record<string, unknown> };
    expect(stored.config).toMatchObject({ port: 5433, password: 'rotated-pw-1', username: 'etl' });
    expect((await b.run(['plan', '--dir', dir('src')])).stdout).toBe(
      'Plan: 0 to create, 0 to update, 0 to delete.\n',
    );
  });
});

describe('failures', () => {
  it('one bad view does not stop the others; each failure is one error line, exit of the first', async () => {
    const d = dir('bad');
    ok(await a.run(['pull', 'Sales', '--dir', d]));
    writeFileSync(join(d, 'Sales', 'zz_bad.yaml'), 'kind: view\npath: [Sales, zz_bad]\nsql: ""\n');
    writeFileSync(join(d, 'Sales', 'zz_bad2.yaml'), 'kind: view\npath: [Sales, zz_bad2]\nsql: "  "\n');
    writeFileSync(join(d, 'Sales', 'zz_good.yaml'), 'kind: view\npath: [Sales, zz_good]\nsql: SELECT 2\n');
    const fx = await startFixture({ samplesDir: SAMPLES });
    try {
      ok(await fx.login());
      const r = await fx.run(['apply', '--dir', d]);
      expect(r.code).toBe(2);
      const errors = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
      expect(errors).toHaveLength(2);
      expect(errors.join('\n')).toContain('Sales/zz_bad:');
      expect(errors.join('\n')).toContain('Sales/zz_bad2:');
      expect(fx.emu.catalog.store.at(['Sales', 'zz_good'])).toBeDefined();
      expect(fx.emu.catalog.store.at(['Sales', 'a_top'])).toBeDefined();
    } finally {
      await fx.close();
    }
  });

  it('an entity changed between plan and apply is a conflict for it alone', async () => {
    const d = dir('conflict');
    ok(await a.run(['pull', 'Sales', '--dir', d]));
    writeFileSync(
      join(d, 'Sales', 'a_top.yaml'),
      'kind: view\npath: [Sales, a_top]\nsql: SELECT 42\nsqlContext: [Sales]\ntags: [kpi]\n',
    );
    writeFileSync(join(d, 'Sales', 'new_one.yaml'), 'kind: view\npath: [Sales, new_one]\nsql: SELECT 7\n');
    const client = clientOf(a);
    const plan = await computePlan(client, readDefinitions(d));
    expect(plan.map((e) => [e.action, e.def.path.join('/')])).toEqual([
      ['update', 'Sales/a_top'],
      ['create', 'Sales/new_one'],
    ]);
    // Someone else changes the view meanwhile.
    ok(
      await a.run(['catalog', 'update', 'Sales/a_top', '--file', '-'], {
        input: JSON.stringify({ sql: 'SELECT 99' }),
      }),
    );
    const results = await applyPlan(client, plan, { concurrency: 2, env: {} });
    expect(results.map((r) => (r.error as { exitCode?: number } | undefined)?.exitCode)).toEqual([
      5,
      undefined,
    ]);
    expect(a.emu.catalog.store.at(['Sales', 'a_top'])).toMatchObject({ sql: 'SELECT 99' });
    expect(a.emu.catalog.store.at(['Sales', 'new_one'])).toBeDefined();
  });

  it('a file that is not a definition is one usage error, and nothing is sent', async () => {
    const d = dir('wrong');
    ok(await a.run(['pull', 'Sales', '--dir', d]));
    writeFileSync(join(d, 'x.yaml'), 'kind: table\npath: [Sales, x]\n');
    a.emu.log.clear();
    const r = await a.run(['apply', '--dir', d]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: x\.yaml is not a definition\n {2}kind: must be one of/);
    expect(a.emu.log.entries.filter((e) => e.method !== 'GET')).toEqual([]);
  });

  it('invalid YAML, an unknown field and two files for one path are each one usage error', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ 'a.yaml': 'kind: [space\n' }, 'error: a.yaml is not valid YAML:'],
      [
        { 'a.yaml': 'kind: space\npath: [X]\nsql: SELECT 1\n' },
        'error: a.yaml: unknown field for a space: sql',
      ],
      [
        { 'a.yaml': 'kind: space\npath: [X]\n', 'b.yaml': 'kind: space\npath: [x]\n' },
        'error: b.yaml and a.yaml both define x',
      ],
    ];
    const none = await a.run(['plan', '--dir', join(tmp, 'no-such-dir')]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('cannot read the folder');
    expect(none.stderr).toContain('no such file or folder');
    for (const [files, message] of cases) {
      const d = mkdtempSync(join(tmp, 'input-'));
      for (const [name, text] of Object.entries(files)) writeFileSync(join(d, name), text);
      a.emu.log.clear();
      const r = await a.run(['plan', '--dir', d]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')[0]).toContain(message);
      expect(a.emu.log.entries).toEqual([]);
    }
  });
});

describe('order', () => {
  it('writes containers first and a view after what its SQL reads, without needing a retry round', async () => {
    const d = dir('order');
    ok(await a.run(['pull', 'Sales', '--dir', d]));
    // A chain the names alone would put in the wrong order: a_top reads reports.base, which reads zz.
    writeFileSync(
      join(d, 'Sales', 'reports', 'base.yaml'),
      'kind: view\npath: [Sales, reports, base]\nsql: SELECT * FROM Sales.zz\n',
    );
    writeFileSync(join(d, 'Sales', 'zz.yaml'), 'kind: view\npath: [Sales, zz]\nsql: SELECT 1 AS one\n');
    writeFileSync(
      join(d, 'Sales', 'a_top.yaml'),
      'kind: view\npath: [Sales, a_top]\nsql: SELECT * FROM reports.base\nsqlContext: [Sales]\n',
    );
    const fx = await startFixture({ samplesDir: SAMPLES });
    try {
      ok(await fx.login());
      const client = clientOf(fx);
      const plan = await computePlan(client, readDefinitions(d));
      const results = await applyPlan(client, plan, { concurrency: 8, env: {}, retryRounds: 0 });
      expect(results.filter((r) => r.error).map((r) => String(r.error))).toEqual([]);
      const order = results.map((r) => r.entry.def.path.join('/'));
      const at = (p: string) => order.indexOf(p);
      expect(at('Sales')).toBe(0);
      expect(at('Sales/reports')).toBeLessThan(at('Sales/reports/base'));
      expect(at('Sales/zz')).toBeLessThan(at('Sales/reports/base'));
      expect(at('Sales/reports/base')).toBeLessThan(at('Sales/a_top'));
    } finally {
      await fx.close();
    }
  });

  it('the emulator refuses a view that reads nothing, with the service wording', async () => {
    const r = await a.run(['catalog', 'create', '--file', '-'], {
      input: JSON.stringify({
        entityType: 'dataset',
        type: 'VIRTUAL_DATASET',
        path: ['Sales', 'v'],
        sql: 'SELECT * FROM Sales.nowhere',
      }),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: Table 'Sales.nowhere' not found");
  });
});

describe('references', () => {
  it('finds quoted and unquoted names after FROM and JOIN, sub-queries included, not CTE names', () => {
    expect(
      sqlReferences(
        `WITH t AS (SELECT * FROM "Sales"."a.b") SELECT * FROM t JOIN reports.base r ON 1=1 ` +
          `WHERE x IN (SELECT y FROM Samples.sales."2024.csv") -- FROM nope\n AND s = 'FROM no'`,
      ),
    ).toEqual([
      ['Sales', 'a.b'],
      ['reports', 'base'],
      ['Samples', 'sales', '2024.csv'],
    ]);
  });
});
