// `dlake pull --kinds queue,rule,reflection,grant` and the plan and apply of those files, in-process against
// Enterprise emulators: stable files, the round trip, a seeded edit per kind, stale tags, order, bad input.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/ascode/apply.js';
import { readDefinitions } from '../../src/ascode/folder.js';
import { computePlan } from '../../src/ascode/plan.js';
import { clientOf, ok, tree } from '../helpers/ascode.js';
import {
  expectFailure,
  type Fixture,
  startFixture,
  useCommunityFixture,
  useFixture,
} from '../helpers/fixture.js';

const ALL = 'queue,rule,reflection,grant';
const SAMPLES = resolve(import.meta.dirname, '../fixtures/samples');
const a = useFixture();
const b = useFixture();
let tmp: string;

const dir = (name: string) => join(tmp, name);
const writes = (fx: Fixture) => fx.emu.log.entries.filter((e) => e.method !== 'GET');

/** Users and roles are not definitions: grants name them, so every environment has them. */
async function environment(fx: Fixture): Promise<void> {
  ok(await fx.run(['user', 'create', 'bob']));
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'dlake-kinds-'));
  await environment(a);
  await environment(b);
  const create = (entity: unknown) =>
    a.run(['catalog', 'create', '--file', '-'], { input: JSON.stringify(entity) });
  ok(await create({ entityType: 'space', name: 'Sales' }));
  ok(
    await create({
      entityType: 'dataset',
      type: 'VIRTUAL_DATASET',
      path: ['Sales', 'orders'],
      sql: 'SELECT 1 AS id, 2 AS amount',
    }),
  );
  ok(
    await a.run([
      'queue',
      'create',
      '--name',
      'etl',
      '--cpu-tier',
      'HIGH',
      '--max-memory-per-node',
      '8GiB',
      '--max-run-timeout',
      '15m',
    ]),
  );
  ok(await a.run(['queue', 'create', '--name', 'adhoc', '--cpu-tier', 'LOW']));
  const rules = JSON.parse(ok(await a.run(['queue', 'rules', '-o', 'json'])).stdout);
  ok(
    await a.run(['queue', 'rules', '--file', '-'], {
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
  ok(
    await a.run([
      'reflection',
      'create',
      'Sales/orders',
      '--type',
      'raw',
      '--name',
      'by_id',
      '--display',
      'id,amount',
    ]),
  );
  ok(await a.run(['catalog', 'grants', 'Sales', '--grant', 'role:analysts:SELECT']));
  ok(await a.run(['catalog', 'grants', 'Sales/orders', '--grant', 'user:bob:SELECT,ALTER']));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('pull --kinds', () => {
  it('writes the queues, the ruleset, reflections and grants beside the catalog, the same bytes every time', async () => {
    ok(await a.run(['pull', '--dir', dir('one'), '--kinds', ALL]));
    ok(await a.run(['pull', '--dir', dir('two'), '--kinds', 'GRANT, reflection,rule,queue']));
    const files = tree(dir('one'));
    expect(tree(dir('two'))).toEqual(files);
    expect(Object.keys(files)).toEqual([
      '.grants/Sales/orders.yaml',
      '.grants/Sales.yaml',
      '.queues/adhoc.yaml',
      '.queues/default.yaml',
      '.queues/etl.yaml',
      '.reflections/Sales/orders/by_id.yaml',
      '.rules.yaml',
      'Sales/orders.yaml',
      'Sales.yaml',
    ]);
    expect(files['.queues/etl.yaml']).toBe(
      'kind: queue\npath:\n  - etl\ncpuTier: HIGH\nmaxMemoryPerNodeBytes: 8589934592\nmaxRunTimeoutMs: 900000\n',
    );
    expect(files['.rules.yaml']).toBe(
      [
        'kind: rule',
        'defaultRule:',
        '  acceptName: default',
        '  action: PLACE',
        '  name: All Other Queries',
        'rules:',
        '  - acceptName: etl',
        '    action: PLACE',
        "    conditions: USER in ('etl-bot')",
        '    name: nightly',
        '  - action: REJECT',
        "    conditions: is_member('interns')",
        '    name: no-interns',
        '    rejectMessage: Not now',
        '',
      ].join('\n'),
    );
    expect(files['.reflections/Sales/orders/by_id.yaml']).toBe(
      [
        'kind: reflection',
        'path:',
        '  - Sales',
        '  - orders',
        '  - by_id',
        'arrowCachingEnabled: false',
        'displayFields:',
        '  - name: id',
        '  - name: amount',
        'enabled: true',
        'partitionDistributionStrategy: CONSOLIDATED',
        'type: RAW',
        '',
      ].join('\n'),
    );
    expect(files['.grants/Sales/orders.yaml']).toBe(
      'kind: grant\npath:\n  - Sales\n  - orders\nusers:\n  bob:\n    - ALTER\n    - SELECT\n',
    );
    expect(files['.grants/Sales.yaml']).toBe(
      'kind: grant\npath:\n  - Sales\nroles:\n  analysts:\n    - SELECT\n',
    );
    // No id of any environment is written: files move between them.
    const all = Object.values(files).join('\n');
    for (const q of a.emu.queues!.queues.values()) expect(all).not.toContain(q.id);
    for (const r of a.emu.reflections.reflections.values()) expect(all).not.toContain(r.id);
  });

  it('without --kinds pulls exactly what it did before: no queue, rule, reflection or grant', async () => {
    a.emu.log.clear();
    ok(await a.run(['pull', '--dir', dir('plain')]));
    expect(Object.keys(tree(dir('plain')))).toEqual(['Sales/orders.yaml', 'Sales.yaml']);
    expect(a.emu.log.entries.some((e) => /wlm|reflection|grants/.test(e.path))).toBe(false);
  });

  it('pulls the reflections and grants of the entities asked for only', async () => {
    ok(await a.run(['pull', 'Sales/orders', '--dir', dir('one-view'), '--kinds', 'reflection,grant']));
    expect(Object.keys(tree(dir('one-view')))).toEqual([
      '.grants/Sales/orders.yaml',
      '.reflections/Sales/orders/by_id.yaml',
      'Sales/orders.yaml',
    ]);
  });

  it('an unknown kind is exit 2 naming the kinds, before any request and any file', async () => {
    a.emu.log.clear();
    for (const value of ['queue,tables', 'view', ' , ']) {
      const r = await a.run(['pull', '--dir', dir('never'), '--kinds', value]);
      expectFailure(r, 2, 'in --kinds: the kinds are queue, rule, reflection, grant, user, role');
    }
    expect(a.emu.log.entries).toEqual([]);
    expect(() => readdirSync(dir('never'))).toThrow();
  });
});

describe('round trip', () => {
  it('apply into another service, pull again: identical; plan shows nothing, without --kinds', async () => {
    ok(await a.run(['pull', '--dir', dir('src'), '--kinds', ALL]));
    const first = ok(await b.run(['plan', '--dir', dir('src')]));
    // A creation lists what it sets, and nothing for the tags and wiki it does not have.
    expect(first.stdout).toMatch(
      /^\+ create space Sales\n\+ create view Sales\/orders\n {4}sql: "SELECT 1 AS id, 2 AS amount"\n\+ create queue adhoc\n/,
    );
    expect(first.stdout).toContain('+ create queue etl\n    cpuTier: "HIGH"\n');
    expect(first.stdout).toContain('~ update rule (the ruleset)\n');
    expect(first.stdout).toContain('+ create grant Sales/orders\n    users: {"bob":["ALTER","SELECT"]}\n');
    ok(await b.run(['apply', '--dir', dir('src')]));
    ok(await b.run(['pull', '--dir', dir('back'), '--kinds', ALL]));
    expect(tree(dir('back'))).toEqual(tree(dir('src')));
    expect((await b.run(['plan', '--dir', dir('src'), '--exit-code'])).stdout).toBe(
      'Plan: 0 to create, 0 to update, 0 to delete.\n',
    );
    expect(JSON.parse(ok(await b.run(['plan', '--dir', dir('src'), '-o', 'json'])).stdout)).toEqual([]);
    // Matched by name: the rule places jobs in b's own queue etl.
    const etl = b.emu.queues!.byName('etl')!;
    expect(b.emu.queues!.ruleset.rules[0]).toMatchObject({ name: 'nightly', acceptId: etl.id });
  });

  it('a seeded edit per kind shows exactly that change, and apply makes it', async () => {
    const edit = (file: string, from: string, to: string) => {
      const path = join(dir('src'), file);
      const text = readFileSync(path, 'utf8');
      expect(text).toContain(from);
      writeFileSync(path, text.replace(from, to));
    };
    edit('.queues/etl.yaml', 'maxRunTimeoutMs: 900000', 'maxRunTimeoutMs: 1800000');
    edit('.rules.yaml', "USER in ('etl-bot')", "USER in ('etl-bot', 'loader')");
    edit('.reflections/Sales/orders/by_id.yaml', 'enabled: true', 'enabled: false');
    edit('.reflections/Sales/orders/by_id.yaml', '  - name: amount\n', '');
    edit('.grants/Sales/orders.yaml', '    - SELECT\n', '    - SELECT\n    - VIEW_REFLECTION\n');
    const plan = await b.run(['plan', '--dir', dir('src'), '--exit-code']);
    expect(plan.code).toBe(8);
    expect(plan.stdout).toBe(
      [
        '~ update queue etl',
        '    maxRunTimeoutMs: 900000 → 1800000',
        '~ update rule (the ruleset)',
        `    rules.0.conditions: "USER in ('etl-bot')" → "USER in ('etl-bot', 'loader')"`,
        '~ update reflection Sales/orders/by_id',
        '    displayFields: [{"name":"id"},{"name":"amount"}] → [{"name":"id"}]',
        '    enabled: true → false',
        '~ update grant Sales/orders',
        '    users.bob: ["ALTER","SELECT"] → ["ALTER","SELECT","VIEW_REFLECTION"]',
        'Plan: 0 to create, 4 to update, 0 to delete.',
        '',
      ].join('\n'),
    );
    const json = JSON.parse(ok(await b.run(['plan', '--dir', dir('src'), '-o', 'json'])).stdout);
    expect(json.map((e: { kind: string; path: string[] }) => [e.kind, e.path])).toEqual([
      ['queue', ['etl']],
      ['rule', []],
      ['reflection', ['Sales', 'orders', 'by_id']],
      ['grant', ['Sales', 'orders']],
    ]);
    b.emu.log.clear();
    ok(await b.run(['apply', '--dir', dir('src')]));
    // One write per changed entity, nothing else touched.
    expect(
      writes(b)
        .map((e) => e.method)
        .sort(),
    ).toEqual(['PUT', 'PUT', 'PUT', 'PUT']);
    expect(b.emu.queues!.byName('etl')).toMatchObject({ maxRunTimeoutMs: 1_800_000, cpuTier: 'HIGH' });
    expect(b.emu.queues!.ruleset.rules[0]!.conditions).toBe("USER in ('etl-bot', 'loader')");
    const reflection = [...b.emu.reflections.reflections.values()][0]!;
    expect(reflection).toMatchObject({ name: 'by_id', enabled: false });
    expect(reflection.lists.displayFields).toEqual([{ name: 'id' }]);
    const grants = JSON.parse(ok(await b.run(['catalog', 'grants', 'Sales/orders', '-o', 'json'])).stdout);
    expect(grants.grants).toMatchObject([
      { name: 'bob', privileges: ['ALTER', 'SELECT', 'VIEW_REFLECTION'] },
    ]);
    expect((await b.run(['plan', '--dir', dir('src')])).stdout).toBe(
      'Plan: 0 to create, 0 to update, 0 to delete.\n',
    );
  });

  it('a limit or a grant taken out of a file is removed, a rule taken out is gone; a reflection setting changes', async () => {
    writeFileSync(join(dir('src'), '.queues/etl.yaml'), 'kind: queue\npath: [etl]\ncpuTier: HIGH\n');
    writeFileSync(join(dir('src'), '.grants/Sales.yaml'), 'kind: grant\npath: [Sales]\n');
    const reflectionFile = join(dir('src'), '.reflections/Sales/orders/by_id.yaml');
    writeFileSync(
      reflectionFile,
      readFileSync(reflectionFile, 'utf8').replace('arrowCachingEnabled: false', 'arrowCachingEnabled: true'),
    );
    const rules = readFileSync(join(dir('src'), '.rules.yaml'), 'utf8');
    writeFileSync(join(dir('src'), '.rules.yaml'), rules.replace(/ {2}- action: REJECT[\s\S]*$/, ''));
    const plan = ok(await b.run(['plan', '--dir', dir('src')]));
    expect(plan.stdout).toContain(
      '~ update queue etl\n    maxMemoryPerNodeBytes: 8589934592 → (none)\n    maxRunTimeoutMs: 1800000 → (none)\n',
    );
    expect(plan.stdout).toContain('~ update grant Sales\n    roles.analysts: ["SELECT"] → (none)\n');
    expect(plan.stdout).toContain(
      '~ update reflection Sales/orders/by_id\n    arrowCachingEnabled: false → true\n',
    );
    expect(plan.stdout).toMatch(/~ update rule \(the ruleset\)\n {4}rules: \[.*\] → \[.*\]\n/);
    ok(await b.run(['apply', '--dir', dir('src')]));
    const etl = b.emu.queues!.byName('etl')!;
    expect(etl.maxMemoryPerNodeBytes).toBeUndefined();
    expect(etl.cpuTier).toBe('HIGH');
    expect(b.emu.queues!.ruleset.rules.map((r) => r.name)).toEqual(['nightly']);
    const grants = JSON.parse(ok(await b.run(['catalog', 'grants', 'Sales', '-o', 'json'])).stdout);
    expect(grants.grants).toEqual([]);
    expect([...b.emu.reflections.reflections.values()][0]!.arrowCachingEnabled).toBe(true);
    expect((await b.run(['plan', '--dir', dir('src')])).stdout).toBe(
      'Plan: 0 to create, 0 to update, 0 to delete.\n',
    );
  });
});

describe('conflicts and order', () => {
  it('a queue, the ruleset, a reflection or grants changed between plan and apply: exit 5 for each alone', async () => {
    const d = dir('stale');
    ok(await a.run(['pull', '--dir', d, '--kinds', ALL]));
    const edit = (file: string, from: string, to: string) => {
      const text = readFileSync(join(d, file), 'utf8');
      writeFileSync(join(d, file), text.replace(from, to));
    };
    edit('.queues/etl.yaml', 'cpuTier: HIGH', 'cpuTier: CRITICAL');
    edit('.queues/adhoc.yaml', 'cpuTier: LOW', 'cpuTier: MEDIUM');
    edit('.rules.yaml', 'Not now', 'Later');
    edit('.reflections/Sales/orders/by_id.yaml', 'enabled: true', 'enabled: false');
    edit('.grants/Sales.yaml', '- SELECT', '- ALTER');
    const client = clientOf(a);
    const plan = await computePlan(client, readDefinitions(d));
    expect(plan.map((e) => `${e.def.kind} ${e.def.path.join('/')}`)).toEqual([
      'queue adhoc',
      'queue etl',
      'rule ',
      'reflection Sales/orders/by_id',
      'grant Sales',
    ]);
    // Someone else changes each of them but adhoc meanwhile.
    ok(await a.run(['queue', 'update', 'etl', '--max-running-jobs', '3']));
    const rules = JSON.parse(ok(await a.run(['queue', 'rules', '-o', 'json'])).stdout);
    ok(await a.run(['queue', 'rules', '--file', '-'], { input: JSON.stringify(rules) }));
    const reflection = [...a.emu.reflections.reflections.values()][0]!;
    ok(await a.run(['reflection', 'update', reflection.id, '--name', 'by_id', '--display', 'id']));
    ok(await a.run(['catalog', 'grants', 'Sales', '--grant', 'user:bob:SELECT']));
    const before = a.emu.queues!.ruleset.tag;
    const results = await applyPlan(client, plan, { concurrency: 4, env: {} });
    const outcome = results.map((r) => [
      `${r.entry.def.kind} ${r.entry.def.path.join('/')}`,
      (r.error as { exitCode?: number } | undefined)?.exitCode ?? 0,
    ]);
    expect(Object.fromEntries(outcome)).toEqual({
      'queue adhoc': 0,
      'queue etl': 5,
      'rule ': 5,
      'reflection Sales/orders/by_id': 5,
      'grant Sales': 5,
    });
    expect(a.emu.queues!.byName('adhoc')!.cpuTier).toBe('MEDIUM');
    expect(a.emu.queues!.byName('etl')).toMatchObject({ cpuTier: 'HIGH', maxAllowedRunningJobs: 3 });
    expect(a.emu.queues!.ruleset.tag).toBe(before);
    expect(reflection.enabled).toBe(true);
    // A new plan reads the new tags: the files win then, as a person who has seen the plan decides.
    ok(await a.run(['apply', '--dir', d]));
    expect(a.emu.queues!.byName('etl')!.cpuTier).toBe('CRITICAL');
  });

  it('through the command: a queue and the ruleset changed after the plan read them are exit 5, one line each', async () => {
    const d = dir('stale-cli');
    ok(await a.run(['pull', '--dir', d, '--kinds', 'queue,rule']));
    const edit = (file: string, change: (text: string) => string) =>
      writeFileSync(join(d, file), change(readFileSync(join(d, file), 'utf8')));
    edit('.queues/etl.yaml', (t) => t.replace(/cpuTier: \w+/, 'cpuTier: LOW'));
    edit('.queues/adhoc.yaml', (t) => t.replace(/cpuTier: \w+/, 'cpuTier: BACKGROUND'));
    edit('.rules.yaml', (t) => t.replace('name: nightly', 'name: nightly-2'));
    // Someone else writes right after apply's plan has read the queues and the ruleset, before any write:
    // the emulator logs a request before handling it and sets its status once the answer is made.
    const queues = a.emu.queues!;
    const log = a.emu.log;
    const add = log.add.bind(log);
    const read = new Set<string>();
    const bump = () => {
      const etl = queues.byName('etl')!;
      etl.tag = String(Number(etl.tag) + 1);
      queues.ruleset.tag = String(Number(queues.ruleset.tag) + 1);
    };
    log.add = (e) => {
      add(e);
      if (e.method !== 'GET' || (e.path !== '/api/v3/wlm/queue' && e.path !== '/api/v3/wlm/rule')) return;
      let status = e.status;
      Object.defineProperty(e, 'status', {
        get: () => status,
        set: (v: number) => {
          status = v;
          if (read.size === 2) return;
          read.add(e.path);
          if (read.size === 2) bump();
        },
      });
    };
    try {
      const r = await a.run(['apply', '--dir', d]);
      expect(r.code).toBe(5);
      const errors = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
      expect(errors, r.stderr).toHaveLength(2);
      // The first failure in apply order (the queue, written before the ruleset) ends the command, last.
      expect(errors[0]).toMatch(/^error: the ruleset: the ruleset was changed since tag "\d+" was read/);
      expect(errors[1]).toMatch(
        /^error: queue etl: queue "etl" was changed by someone else since it was read/,
      );
      expect(r.stderr).toContain('Applied: 0 created, 1 updated, 2 failed.');
    } finally {
      log.add = add;
    }
    expect(queues.byName('adhoc')!.cpuTier).toBe('BACKGROUND');
    expect(queues.byName('etl')!.cpuTier).not.toBe('LOW');
    expect(queues.ruleset.rules.map((x) => x.name)).not.toContain('nightly-2');
  });

  it('apply writes a reflection after its dataset, grants after their entity, the ruleset after its queues', async () => {
    const d = dir('order');
    ok(await a.run(['pull', '--dir', d, '--kinds', ALL]));
    // A file of a source promoted by this apply, and a reflection on it.
    mkdirSync(join(d, 'Samples', 'sales'), { recursive: true });
    writeFileSync(
      join(d, 'Samples', 'sales', '2024.csv.yaml'),
      'kind: dataset\npath: [Samples, sales, 2024.csv]\nformat: {type: Text, extractHeader: true}\n',
    );
    writeFileSync(
      join(d, 'raw.yaml'),
      'kind: reflection\npath: [Samples, sales, 2024.csv, raw]\ntype: RAW\ndisplayFields: [{name: region}]\n',
    );
    const fx = await startFixture({ samplesDir: SAMPLES });
    try {
      ok(await fx.login());
      await environment(fx);
      const client = clientOf(fx);
      const plan = await computePlan(client, readDefinitions(d));
      const results = await applyPlan(client, plan, { concurrency: 8, env: {}, retryRounds: 0 });
      expect(results.filter((r) => r.error).map((r) => String(r.error))).toEqual([]);
      const order = results.map((r) => `${r.entry.def.kind} ${r.entry.def.path.join('/')}`);
      const at = (p: string) => order.indexOf(p);
      expect(at('view Sales/orders')).toBeLessThan(at('reflection Sales/orders/by_id'));
      expect(at('space Sales')).toBeLessThan(at('grant Sales'));
      expect(at('view Sales/orders')).toBeLessThan(at('grant Sales/orders'));
      expect(at('queue etl')).toBeLessThan(at('rule '));
      expect(at('dataset Samples/sales/2024.csv')).toBeLessThan(at('reflection Samples/sales/2024.csv/raw'));
      expect([...fx.emu.reflections.reflections.values()].map((r) => r.name).sort()).toEqual([
        'by_id',
        'raw',
      ]);
      expect(fx.emu.queues!.ruleset.rules.map((r) => r.acceptName)).toEqual(['etl', undefined]);
    } finally {
      await fx.close();
    }
  });
});

describe('bad input', () => {
  it('an admin file of the wrong shape is one usage error, and nothing is sent', async () => {
    const cases: Array<[string, string]> = [
      [
        'kind: queue\npath: [etl]\nmaxRunTimeoutMs: 15m\n',
        'q.yaml: maxRunTimeoutMs must be a number of milliseconds',
      ],
      ['kind: queue\npath: [a, b]\n', 'q.yaml: a queue path has one component, its name'],
      ['kind: rule\npath: [x]\nrules: []\ndefaultRule: {name: d}\n', 'q.yaml: the ruleset has no path'],
      ['kind: rule\nrules: [{action: PLACE}]\ndefaultRule: {name: d}\n', 'q.yaml: rules[0] must have a name'],
      ['kind: reflection\npath: [Sales]\ntype: RAW\n', "q.yaml: a reflection path is its dataset's path"],
      ['kind: reflection\npath: [Sales, o, r]\ntype: raw\n', 'q.yaml: type must be RAW or AGGREGATION'],
      ['kind: grant\npath: [Sales]\nusers: [bob]\n', 'q.yaml: users must map each user name to a list'],
      ['kind: grant\npath: [Sales]\nwiki: x\n', 'q.yaml: a grant cannot have a wiki'],
      ['kind: queue\npath: [etl]\ntags: [x]\n', 'q.yaml: a queue cannot have tags'],
    ];
    for (const [text, message] of cases) {
      const d = mkdtempSync(join(tmp, 'bad-'));
      writeFileSync(join(d, 'q.yaml'), text);
      a.emu.log.clear();
      const r = await a.run(['apply', '--dir', d]);
      expectFailure(r, 2, message);
      expect(a.emu.log.entries).toEqual([]);
    }
  });

  it('a grant naming a user the service does not have fails for that entity alone', async () => {
    const d = mkdtempSync(join(tmp, 'ghost-'));
    writeFileSync(join(d, 'g.yaml'), 'kind: grant\npath: [Sales]\nusers:\n  ghost: [SELECT]\n');
    writeFileSync(join(d, 'q.yaml'), 'kind: queue\npath: [fresh]\ncpuTier: LOW\n');
    const r = await a.run(['apply', '--dir', d]);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^error: the grants on Sales: .*ghost/m);
    expect(a.emu.queues!.byName('fresh')).toBeDefined();
  });
});

describe('community edition', () => {
  let c: Fixture;
  useCommunityFixture((fx) => {
    c = fx;
  });

  it('pull --kinds queue says the edition has no queues (exit 4) and writes nothing', async () => {
    const r = await c.run(['pull', '--dir', dir('community'), '--kinds', 'queue']);
    expectFailure(r, 4, "this service's edition does not offer workload queues (Enterprise only)");
    expect(() => readdirSync(dir('community'))).toThrow();
  });
});
