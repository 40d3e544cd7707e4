// `dlake catalog grants` and `catalog lineage` against the emulator: read-merge-write of privileges (the PUT
// replaces them all), bad principals and privileges refused before writing, the lineage tree, community edition.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFailure, type Fixture, startFixture, useFixture } from '../helpers/fixture.js';

async function seed(f: Fixture): Promise<void> {
  const post = async (body: unknown) => {
    const r = await f.run(['api', 'POST', 'catalog', '--data', JSON.stringify(body)]);
    expect(r.code, r.stderr).toBe(0);
  };
  await post({ entityType: 'space', name: 'Sales' });
  await post({
    entityType: 'dataset',
    type: 'VIRTUAL_DATASET',
    path: ['Sales', 'orders'],
    sql: 'SELECT 1 AS id',
  });
  await post({
    entityType: 'dataset',
    type: 'VIRTUAL_DATASET',
    path: ['Sales', 'by_region'],
    sql: 'SELECT * FROM Sales.orders',
  });
  await post({
    entityType: 'dataset',
    type: 'VIRTUAL_DATASET',
    path: ['Sales', 'top'],
    sql: 'SELECT * FROM "Sales"."by_region"',
  });
}
const fx = useFixture();
beforeAll(async () => {
  await seed(fx);
  expect((await fx.run(['user', 'create', 'bob'])).code).toBe(0);
});

const puts = () => fx.emu.log.entries.filter((e) => e.method === 'PUT');
const grantsJson = async (ref: string) =>
  JSON.parse((await fx.run(['catalog', 'grants', ref, '-o', 'json'])).stdout);

describe('dlake catalog grants', () => {
  it('starts empty; --grant adds privileges per principal; the table shows them', async () => {
    const empty = await fx.run(['catalog', 'grants', 'Sales/orders']);
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stderr).toContain('No grants.');
    const r = await fx.run([
      'catalog',
      'grants',
      'Sales/orders',
      '--grant',
      'role:analysts:select,VIEW_REFLECTION',
      '--grant',
      'user:bob:SELECT',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^TYPE\s+NAME\s+PRIVILEGES$/);
    expect(r.stdout).toMatch(/^ROLE\s+analysts\s+SELECT, VIEW_REFLECTION$/m);
    expect(r.stdout).toMatch(/^USER\s+bob\s+SELECT$/m);
    expect(r.stderr).toContain('Changed the grants on Sales/orders');
    expect(puts()).toHaveLength(1);
  });

  it('--revoke takes away only what is named and keeps everyone else (the PUT would drop them)', async () => {
    const r = await fx.run([
      'catalog',
      'grants',
      'Sales/orders',
      '--revoke',
      'role:analysts:VIEW_REFLECTION',
      '--grant',
      'user:bob:ALTER',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const g = await grantsJson('Sales/orders');
    const by = (name: string) => g.grants.find((x: { name: string }) => x.name === name).privileges;
    expect(by('analysts')).toEqual(['SELECT']);
    expect(by('bob')).toEqual(['SELECT', 'ALTER']);
  });

  it('--dry-run prints the whole PUT and changes nothing; a no-op sends nothing', async () => {
    const dry = await fx.run([
      'catalog',
      'grants',
      'Sales/orders',
      '--grant',
      'user:bob:MANAGE_GRANTS',
      '--dry-run',
      '-o',
      'json',
    ]);
    expect(dry.code, dry.stderr).toBe(0);
    const out = JSON.parse(dry.stdout);
    expect(out.method).toBe('PUT');
    expect(out.body.grants).toHaveLength(2);
    const same = await fx.run(['catalog', 'grants', 'Sales/orders', '--grant', 'user:bob:SELECT']);
    expect(same.stderr).toContain('Nothing to change');
    expect(puts()).toEqual([]);
  });

  it('bad input: malformed spec, unknown privilege, unknown user or role, unknown entity — nothing written', async () => {
    expectFailure(
      await fx.run(['catalog', 'grants', 'Sales/orders', '--grant', 'bob:SELECT']),
      2,
      'is not user:NAME:PRIV',
    );
    const priv = await fx.run(['catalog', 'grants', 'Sales/orders', '--grant', 'user:bob:FLY']);
    expectFailure(priv, 2, 'privilege "FLY" does not apply to this entity');
    expect(priv.stderr).toContain('hint: it offers: ALTER, SELECT');
    expectFailure(
      await fx.run(['catalog', 'grants', 'Sales/orders', '--grant', 'user:nobody:SELECT']),
      4,
      'error: not found: user "nobody"',
    );
    expectFailure(
      await fx.run(['catalog', 'grants', 'Sales/orders', '--grant', 'role:ghost:SELECT']),
      4,
      'error: not found: role "ghost"',
    );
    expectFailure(await fx.run(['catalog', 'grants', 'Sales/nope']), 4, 'nope');
    expect(puts()).toEqual([]);
  });
});

describe('dlake catalog lineage', () => {
  it('prints parents and children as a small tree', async () => {
    const r = await fx.run(['catalog', 'lineage', 'Sales/by_region']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        'Sales/by_region',
        '├─ parents',
        '│  └─ Sales/orders (VIRTUAL)',
        '└─ children',
        '   └─ Sales/top (VIRTUAL)',
        '',
      ].join('\n'),
    );
  });

  it('-o json is the service object; a dataset without relations says so', async () => {
    const json = JSON.parse((await fx.run(['catalog', 'lineage', 'Sales/top', '-o', 'json'])).stdout);
    expect(json.parents.map((p: { path: string[] }) => p.path)).toEqual([['Sales', 'by_region']]);
    expect(json.children).toEqual([]);
    const ok = await fx.run([
      'api',
      'POST',
      'catalog',
      '--data',
      '{"entityType":"dataset","type":"VIRTUAL_DATASET","path":["Sales","alone"],"sql":"SELECT 2"}',
    ]);
    expect(ok.code).toBe(0);
    const alone = await fx.run(['catalog', 'lineage', 'Sales/alone']);
    expect(alone.stderr).toContain('has no parents, children or sources');
  });

  it('a space is refused by the service (exit 2); an unknown dataset is exit 4', async () => {
    expectFailure(
      await fx.run(['catalog', 'lineage', 'Sales']),
      2,
      'Lineage is only available for datasets.',
    );
    expectFailure(await fx.run(['catalog', 'lineage', 'Sales/nope']), 4, 'nope');
  });
});

describe('on a community-edition server', () => {
  let cx: Fixture;
  beforeAll(async () => {
    cx = await startFixture({ edition: 'community' });
    expect((await cx.login()).code).toBe(0);
    await seed(cx);
  });
  afterAll(() => cx.close());

  it('grants and lineage say so in one sentence (exit 4)', async () => {
    expectFailure(
      await cx.run(['catalog', 'grants', 'Sales/orders']),
      4,
      "this service's edition does not offer catalog privileges (Enterprise only)",
    );
    expectFailure(
      await cx.run(['catalog', 'lineage', 'Sales/orders']),
      4,
      "this service's edition does not offer lineage (Enterprise only)",
    );
  });
});
