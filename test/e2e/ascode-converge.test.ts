// After apply, the plan is empty: a realistic estate (spaces, nested folders, views reading views across
// spaces, tags, wiki, a promoted dataset, raw and aggregation reflections, queues and rules, users, roles and
// grants, a source with a secret and `${env:…}` references) pulled from one service and applied to another that
// differs as environments do (another samples root, another database host). In-process against two Enterprise
// emulators.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgSource, ok, tree } from '../helpers/ascode.js';
import { expectFailure, type Fixture, useFixture } from '../helpers/fixture.js';

const SAMPLES = resolve(import.meta.dirname, '../fixtures/samples');
const PG_PASSWORD = 'pg-secret-Converge-51';
const KINDS = 'queue,rule,reflection,grant,user,role';

let tmp: string;
let samplesB: string;
let lake: string;
/** Each environment's values of the variables the files name. */
let envA: Record<string, string>;
let envB: Record<string, string>;

const writes = (fx: Fixture) => fx.emu.log.entries.filter((e) => e.method !== 'GET');

async function seed(fx: Fixture): Promise<void> {
  const create = (entity: unknown) =>
    fx.run(['catalog', 'create', '--file', '-'], { input: JSON.stringify(entity) }).then(ok);
  const view = (path: string[], sql: string, sqlContext?: string[]) =>
    create({
      entityType: 'dataset',
      type: 'VIRTUAL_DATASET',
      path,
      sql,
      ...(sqlContext ? { sqlContext } : {}),
    });
  for (const name of ['Sales', 'Marketing', 'Finance']) await create({ entityType: 'space', name });
  await create({ entityType: 'folder', path: ['Sales', 'reports'] });
  await create({ entityType: 'folder', path: ['Marketing', 'campaigns'] });
  await create({ entityType: 'folder', path: ['Marketing', 'campaigns', '2024'] });
  await create({
    entityType: 'dataset',
    type: 'PHYSICAL_DATASET',
    path: ['Samples', 'sales', '2024.csv'],
    format: { type: 'Text', extractHeader: true },
  });
  await view(['Sales', 'orders'], 'SELECT region, product, units, price FROM Samples.sales."2024.csv"');
  await view(
    ['Sales', 'reports', 'by_region'],
    'SELECT region, SUM(units) AS units FROM orders GROUP BY region',
    ['Sales'],
  );
  await view(['Marketing', 'campaigns', 'funnel_q1'], 'SELECT * FROM Sales.reports.by_region');
  await view(['Marketing', 'campaigns', '2024', 'deep'], 'SELECT * FROM Marketing.campaigns.funnel_q1');
  await view(
    ['Finance', 'summary'],
    'SELECT f.region FROM Marketing.campaigns.funnel_q1 f JOIN Sales.orders o ON f.region = o.region',
  );
  ok(await fx.run(['catalog', 'tags', 'Sales', '--set', 'finance', '--set', 'gold']));
  ok(await fx.run(['catalog', 'tags', 'Marketing/campaigns/funnel_q1', '--set', 'kpi', '--set', 'a-first']));
  ok(await fx.run(['catalog', 'wiki', 'Sales/reports', '--set-file', '-'], { input: '# Reports\n' }));
  await createPgSource((args) => fx.run(args), tmp, PG_PASSWORD, 'db.staging.example.com');
  ok(
    await fx.run([
      'reflection',
      'create',
      'Sales/orders',
      '--type',
      'aggregation',
      '--name',
      'by_region',
      '--dimension',
      'region:NORMAL,product',
      '--measure',
      'units:SUM|COUNT,price:SUM',
    ]),
  );
  ok(
    await fx.run([
      'reflection',
      'create',
      'Samples/sales/2024.csv',
      '--type',
      'raw',
      '--name',
      'raw_all',
      '--display',
      'region,units',
    ]),
  );
  ok(await fx.run(['queue', 'create', '--name', 'etl', '--cpu-tier', 'HIGH', '--max-run-timeout', '15m']));
  const rules = JSON.parse(ok(await fx.run(['queue', 'rules', '-o', 'json'])).stdout);
  ok(
    await fx.run(['queue', 'rules', '--file', '-'], {
      input: JSON.stringify({
        ...rules,
        rules: [
          { name: 'nightly', conditions: "USER in ('etl-bot')", action: 'PLACE', acceptName: 'etl' },
          {
            name: 'no-interns',
            conditions: "is_member('interns')",
            action: 'REJECT',
            rejectMessage: 'Not now',
          },
        ],
      }),
    }),
  );
  ok(await fx.run(['role', 'create', 'auditors', '--description', 'Read-only audit']));
  ok(await fx.run(['role', 'add-member', 'auditors', '--user', 'bob']));
  ok(await fx.run(['catalog', 'grants', 'Sales', '--grant', 'role:analysts:SELECT']));
  ok(await fx.run(['catalog', 'grants', 'Finance', '--grant', 'role:auditors:SELECT']));
  ok(await fx.run(['catalog', 'grants', 'Sales/orders', '--grant', 'user:bob:SELECT,ALTER']));
}

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'dlake-converge-'));
  // The second environment reads the same files from another place, as two servers do.
  samplesB = join(tmp, 'samples-b');
  cpSync(SAMPLES, samplesB, { recursive: true });
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const a = useFixture({ samplesDir: SAMPLES });
const b = useFixture(async () => ({ samplesDir: samplesB }));

beforeAll(async () => {
  // Users are each environment's own: the grants name them.
  for (const fx of [a, b]) ok(await fx.run(['user', 'create', 'bob']));
  await seed(a);
  // Outside a source's secret fields, only what the job allows is substituted (a prefix and a name).
  const DLAKE_DEFS_ENV_ALLOW = 'SAMPLES_*,PG_HOST';
  envA = { SAMPLES_ROOT: SAMPLES, PG_HOST: 'db.staging.example.com', PG_PASSWORD, DLAKE_DEFS_ENV_ALLOW };
  envB = { SAMPLES_ROOT: samplesB, PG_HOST: 'db.prod.example.com', PG_PASSWORD, DLAKE_DEFS_ENV_ALLOW };
  lake = join(tmp, 'lake');
  ok(await a.run(['pull', '--dir', lake, '--kinds', KINDS]));
  // What differs between environments by nature is written by the user as a reference.
  const edit = (file: string, from: string, to: string) => {
    const text = readFileSync(join(lake, file), 'utf8');
    expect(text).toContain(from);
    writeFileSync(join(lake, file), text.replace(from, to));
  };
  edit('Samples.yaml', `path: ${SAMPLES}`, `path: \${env:SAMPLES_ROOT}`);
  edit('pg.yaml', 'hostname: db.staging.example.com', `hostname: \${env:PG_HOST}`);
});

describe('a realistic estate, promoted to another environment', () => {
  it('pulled files hold nothing environment-specific: no format.ctime, location or isFolder', () => {
    const files = tree(lake);
    const dataset = files['Samples/sales/2024.csv.yaml']!;
    expect(dataset).toContain('extractHeader: true');
    expect(dataset).not.toMatch(/ctime|location|isFolder/);
    expect(Object.values(files).join('\n')).not.toContain(SAMPLES);
    // The aggregation reflection's field objects are written as the service gave them, keys sorted.
    expect(files['.reflections/Sales/orders/by_region.yaml']).toContain('granularity: NORMAL');
  });

  it('the plan is empty in the first environment, with its own values for the references', async () => {
    a.emu.log.clear();
    const r = ok(await a.run(['plan', '--dir', lake, '--exit-code'], { env: envA }));
    expect(r.stdout).toBe('Plan: 0 to create, 0 to update, 0 to delete.\n');
    expect(writes(a)).toEqual([]);
  });

  it('applies into an empty second environment; then its plan is empty and a second apply writes nothing', async () => {
    const applied = ok(await b.run(['apply', '--dir', lake], { env: envB }));
    expect(applied.stderr).toMatch(/Applied: \d+ created, \d+ updated, 0 failed\./);
    // The references took each environment's value.
    const pg = JSON.parse(ok(await b.run(['catalog', 'get', 'pg', '-o', 'json'])).stdout);
    expect(pg.config.hostname).toBe('db.prod.example.com');
    const samples = JSON.parse(ok(await b.run(['catalog', 'get', 'Samples', '-o', 'json'])).stdout);
    expect(samples.config.path).toBe(samplesB);

    b.emu.log.clear();
    const plan = ok(await b.run(['plan', '--dir', lake, '--exit-code'], { env: envB }));
    expect(plan.stdout).toBe('Plan: 0 to create, 0 to update, 0 to delete.\n');
    // An unchanged estate: no entity (or anything else) is read twice.
    const reads = b.emu.log.entries.map((e) => `${e.method} ${e.path} ${JSON.stringify(e.query)}`);
    expect(reads.filter((r, i) => reads.indexOf(r) !== i)).toEqual([]);
    expect(reads.filter((r) => r.includes('/catalog/by-path/Sales/orders '))).toHaveLength(1);

    b.emu.log.clear();
    const again = ok(await b.run(['apply', '--dir', lake], { env: envB }));
    expect(again.stdout).toBe('Plan: 0 to create, 0 to update, 0 to delete.\n');
    expect(writes(b)).toEqual([]);

    // And the first environment still has nothing to do, with its own values.
    const back = ok(await a.run(['plan', '--dir', lake, '--exit-code'], { env: envA }));
    expect(back.stdout).toBe('Plan: 0 to create, 0 to update, 0 to delete.\n');
  });

  it('pulling the second environment gives the same files, but for the references', async () => {
    const pulled = join(tmp, 'from-b');
    ok(await b.run(['pull', '--dir', pulled, '--kinds', KINDS]));
    const want = tree(lake);
    want['Samples.yaml'] = want['Samples.yaml']!.replace(`\${env:SAMPLES_ROOT}`, samplesB);
    want['pg.yaml'] = want['pg.yaml']!.replace(`\${env:PG_HOST}`, 'db.prod.example.com');
    expect(tree(pulled)).toEqual(want);
  });

  it('pulling again over the files keeps the references that give what each service has', async () => {
    const before = tree(lake);
    ok(await a.run(['pull', '--dir', lake, '--kinds', KINDS], { env: envA }));
    expect(tree(lake)).toEqual(before);
    const copy = join(tmp, 'lake-b');
    cpSync(lake, copy, { recursive: true });
    ok(await b.run(['pull', '--dir', copy, '--kinds', KINDS], { env: envB }));
    expect(tree(copy)).toEqual(before);
    // A reference whose value is not the service's gives way to the service's value.
    ok(await b.run(['pull', '--dir', copy, '--kinds', KINDS], { env: { ...envB, PG_HOST: 'elsewhere' } }));
    expect(tree(copy)['pg.yaml']).toContain('hostname: db.prod.example.com');
    expect(tree(copy)['Samples.yaml']).toBe(before['Samples.yaml']);
  });

  it('a reference in any field is compared after substitution: another value is a change', async () => {
    const r = await b.run(['plan', '--dir', lake, '--exit-code'], {
      env: { ...envB, PG_HOST: 'db.other.example.com' },
    });
    expect(r.code).toBe(8);
    expect(r.stdout).toBe(
      [
        '~ update source pg',
        '    config.hostname: "db.prod.example.com" → "db.other.example.com"',
        'Plan: 0 to create, 1 to update, 0 to delete.',
        '',
      ].join('\n'),
    );
  });

  it('an unset variable is an error for that entity alone: plan exit 2, apply writes the rest', async () => {
    const { PG_HOST: _, ...withoutHost } = envB;
    const plan = await b.run(['plan', '--dir', lake], { env: withoutHost });
    expectFailure(
      { ...plan, stdout: '' },
      2,
      'error: pg: config.hostname of pg needs the environment variable PG_HOST, which is not set',
    );
    expect(plan.stdout).toBe(
      [
        '! error source pg: config.hostname of pg needs the environment variable PG_HOST, which is not set',
        'Plan: 0 to create, 0 to update, 0 to delete; 1 cannot be planned.',
        '',
      ].join('\n'),
    );
    // A view edited beside it is still applied.
    const file = join(lake, 'Finance/summary.yaml');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('SELECT f.region', 'SELECT f.region AS r'));
    try {
      b.emu.log.clear();
      const applied = await b.run(['apply', '--dir', lake], { env: withoutHost });
      expect(applied.code).toBe(2);
      expect(applied.stderr).toContain('Applied: 0 created, 1 updated, 1 failed.');
      expect(applied.stderr).toContain(
        'error: pg: config.hostname of pg needs the environment variable PG_HOST',
      );
      expect(writes(b).map((e) => e.method)).toEqual(['PUT']);
    } finally {
      writeFileSync(file, text);
      ok(await b.run(['apply', '--dir', lake], { env: envB }));
    }
  });
});
