// `dlake reflection list|get|create|update|delete|refresh` against the emulator: field names checked against
// the dataset before sending, the tag on updates, refresh --wait ending in 0, 6 or 7, community edition.
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectFailure, type Fixture, useCommunityFixture, useFixture } from '../helpers/fixture.js';

const FIELDS = ['id', 'region', 'day', 'amount'];
async function seedView(f: Fixture): Promise<string> {
  expect(
    (await f.run(['api', 'POST', 'catalog', '--data', '{"entityType":"space","name":"Sales"}'])).code,
  ).toBe(0);
  const view = {
    entityType: 'dataset',
    type: 'VIRTUAL_DATASET',
    path: ['Sales', 'orders'],
    sql: 'SELECT 1 AS id',
  };
  const r = await f.run(['api', 'POST', 'catalog', '--data', JSON.stringify(view)]);
  expect(r.code, r.stderr).toBe(0);
  f.emu.catalog.recordFields(
    ['Sales', 'orders'],
    FIELDS.map((name) => ({ name, type: { name: name === 'day' ? 'DATE' : 'BIGINT' } })),
  );
  return JSON.parse(r.stdout).id;
}

let datasetId: string;
const fx = useFixture();
beforeAll(async () => {
  datasetId = await seedView(fx);
});
beforeEach(() => {
  fx.emu.reflections.nextRefresh = 'succeed';
});

async function waitFor(cond: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const writes = () => fx.emu.log.entries.filter((e) => e.method !== 'GET');
const stored = () => [...fx.emu.reflections.reflections.values()];

async function createRaw(name: string): Promise<string> {
  const r = await fx.run([
    'reflection',
    'create',
    'Sales/orders',
    '--type',
    'raw',
    '--name',
    name,
    '--display',
    'id,amount',
    '-o',
    'json',
  ]);
  expect(r.code, r.stderr).toBe(0);
  fx.emu.log.clear();
  return JSON.parse(r.stdout).id;
}

describe('dlake reflection create', () => {
  it('creates a raw reflection with the fields given (in the dataset’s spelling)', async () => {
    const r = await fx.run([
      'reflection',
      'create',
      'Sales/orders',
      '--type',
      'raw',
      '--name',
      'raw1',
      '--display',
      'ID,amount',
      '--partition',
      'region',
      '--sort',
      'day',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^display\s+id, amount$/m);
    const [made] = stored().filter((x) => x.name === 'raw1');
    expect(made).toMatchObject({ type: 'RAW', datasetId, enabled: true });
    expect(made!.lists.displayFields).toEqual([{ name: 'id' }, { name: 'amount' }]);
    expect(made!.lists.partitionFields).toEqual([{ name: 'region' }]);
  });

  it('creates an aggregation reflection with dimensions (DATE granularity) and measures', async () => {
    const r = await fx.run([
      'reflection',
      'create',
      datasetId,
      '--type',
      'aggregation',
      '--name',
      'agg1',
      '--dimension',
      'region,day:DATE',
      '--measure',
      'amount:SUM',
      '--measure',
      'id:COUNT',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const [made] = stored().filter((x) => x.name === 'agg1');
    expect(made!.lists.dimensionFields).toEqual([
      { name: 'region', granularity: 'NORMAL' },
      { name: 'day', granularity: 'DATE' },
    ]);
    expect(made!.lists.measureFields).toEqual([
      { name: 'amount', measureTypeList: ['SUM'] },
      { name: 'id', measureTypeList: ['COUNT'] },
    ]);
  });

  it('a field not in the dataset: exit 2 naming it and the fields there are, nothing sent', async () => {
    const r = await fx.run([
      'reflection',
      'create',
      'Sales/orders',
      '--type',
      'raw',
      '--display',
      'id,colour',
    ]);
    expectFailure(r, 2, '--display: field "colour" is not in Sales/orders');
    expect(r.stderr).toContain('hint: its fields: id, region, day, amount');
    expect(writes()).toEqual([]);
  });

  it('bad input: wrong --type, no fields, a bad measure or granularity, an unknown dataset, a space', async () => {
    expectFailure(
      await fx.run(['reflection', 'create', 'Sales/orders', '--type', 'cube', '--display', 'id']),
      2,
      'cube',
    );
    expectFailure(
      await fx.run(['reflection', 'create', 'Sales/orders', '--type', 'raw']),
      2,
      'needs display fields',
    );
    const measure = await fx.run([
      'reflection',
      'create',
      'Sales/orders',
      '--type',
      'aggregation',
      '--measure',
      'amount:AVG',
    ]);
    expectFailure(measure, 2, '"AVG" is not one of SUM, COUNT, MIN, MAX, APPROX_COUNT_DISTINCT');
    const gran = await fx.run([
      'reflection',
      'create',
      'Sales/orders',
      '--type',
      'aggregation',
      '--dimension',
      'day:HOUR',
    ]);
    expectFailure(gran, 2, 'the granularity is DATE or NORMAL');
    expectFailure(
      await fx.run(['reflection', 'create', 'Sales/nope', '--type', 'raw', '--display', 'id']),
      4,
      'nope',
    );
    expectFailure(
      await fx.run(['reflection', 'create', 'Sales', '--type', 'raw', '--display', 'id']),
      2,
      'not a dataset',
    );
    expect(writes()).toEqual([]);
  });

  it('--dry-run prints the POST and creates nothing', async () => {
    const before = stored().length;
    const r = await fx.run([
      'reflection',
      'create',
      'Sales/orders',
      '--type',
      'raw',
      '--display',
      'id',
      '--disabled',
      '--dry-run',
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      method: 'POST',
      body: { type: 'RAW', datasetId, enabled: false, displayFields: [{ name: 'id' }] },
    });
    expect(stored().length).toBe(before);
  });
});

describe('dlake reflection list and get', () => {
  it('lists all, or a dataset’s; get shows one', async () => {
    const id = await createRaw('listed');
    const all = await fx.run(['reflection', 'list']);
    expect(all.stdout.split('\n')[0]).toMatch(/^NAME\s+ID\s+TYPE\s+DATASET\s+STATUS\s+ENABLED\s+SIZE$/);
    expect(all.stdout).toContain(id);
    const mine = await fx.run(['reflection', 'list', 'Sales/orders', '-o', 'json']);
    expect(JSON.parse(mine.stdout).map((r: { id: string }) => r.id)).toContain(id);
    expect(fx.emu.log.find('GET', `/api/v3/dataset/${datasetId}/reflection`)).toHaveLength(1);
    const get = await fx.run(['reflection', 'get', id]);
    expect(get.stdout).toMatch(/^name\s+listed$/m);
  });

  it('an unknown id: exit 4, "not found: reflection …"; a non-UUID: exit 2 before any request', async () => {
    const unknown = '6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b';
    expectFailure(await fx.run(['reflection', 'get', unknown]), 4, `error: not found: reflection ${unknown}`);
    fx.emu.log.clear();
    expectFailure(await fx.run(['reflection', 'get', '../catalog']), 2, 'is not a reflection id');
    expect(fx.emu.log.entries).toEqual([]);
  });
});

describe('dlake reflection update', () => {
  it('changes only what is given, keeps the other lists, sends the tag just read', async () => {
    const id = await createRaw('upd');
    fx.emu.reflections.reflections.get(id)!.lists.partitionFields = [{ name: 'region' }];
    const r = await fx.run(['reflection', 'update', id, '--display', 'id,region,amount']);
    expect(r.code, r.stderr).toBe(0);
    const after = fx.emu.reflections.reflections.get(id)!;
    expect(after.lists.displayFields.map((f) => f.name)).toEqual(['id', 'region', 'amount']);
    expect(after.lists.partitionFields).toEqual([{ name: 'region' }]);
    const off = await fx.run(['reflection', 'update', id, '--disable']);
    expect(off.code, off.stderr).toBe(0);
    expect(after.enabled).toBe(false);
  });

  it('a stale tag: exit 5 with the current tag in the hint, nothing overwritten', async () => {
    const id = await createRaw('stale');
    const r = fx.emu.reflections.reflections.get(id)!;
    // Someone else changes it between the read and the write.
    fx.emu.fault({
      kind: 'latency',
      method: 'PUT',
      path: `/api/v3/reflection/${id}`,
      latencyMs: 1500,
      times: 1,
    });
    const running = fx.run(['reflection', 'update', id, '--display', 'amount']);
    await waitFor(() => fx.emu.log.find('PUT', `/api/v3/reflection/${id}`).length > 0);
    r.tag = 'moved-on';
    const res = await running;
    expectFailure(res, 5, `reflection ${id} was changed by someone else`);
    expect(res.stderr).toContain('hint: its current tag is "moved-on"');
    expect(r.lists.displayFields.map((f) => f.name)).toEqual(['id', 'amount']);
  });

  it('a field not in the dataset, nothing to change, both --enable and --disable: exit 2, nothing sent', async () => {
    const id = await createRaw('bad-upd');
    expectFailure(
      await fx.run(['reflection', 'update', id, '--sort', 'colour']),
      2,
      'field "colour" is not in',
    );
    expectFailure(await fx.run(['reflection', 'update', id]), 2, 'nothing to change');
    const before = fx.emu.log.entries.length;
    expectFailure(
      await fx.run(['reflection', 'update', id, '--enable', '--disable']),
      2,
      "option '--disable' cannot be used with option '--enable'",
    );
    // Refused by the parser: not even the reflection is read.
    expect(fx.emu.log.entries.length).toBe(before);
    expect(writes()).toEqual([]);
  });
});

describe('dlake reflection refresh and delete', () => {
  it('refresh --wait ends with exit 0 once it can accelerate', async () => {
    const id = await createRaw('fresh');
    const r = await fx.run(['reflection', 'refresh', id, '--wait']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^status\s+CAN_ACCELERATE$/m);
    expect(fx.emu.log.find('POST', `/api/v3/reflection/${id}/refresh`)).toHaveLength(1);
  });

  it('a refresh that fails: exit 6 with the reason', async () => {
    const id = await createRaw('failing');
    fx.emu.reflections.reflections.get(id)!.lastDataFetch = undefined;
    fx.emu.reflections.nextRefresh = 'fail';
    const r = await fx.run(['reflection', 'refresh', id, '--wait']);
    expectFailure(r, 6, `reflection ${id} cannot accelerate: it is FAILED`);
  });

  it('a refresh that does not end: --timeout gives exit 7, saying the refresh goes on', async () => {
    const id = await createRaw('slow');
    fx.emu.reflections.nextRefresh = 'hang';
    const r = await fx.run(['reflection', 'refresh', id, '--wait', '--timeout', '1s']);
    expectFailure(r, 7, `gave up waiting for reflection ${id} after 1s: it is still REFRESHING`);
  });

  it('delete asks without --yes, deletes with it; an unknown one is exit 4', async () => {
    const id = await createRaw('doomed');
    expectFailure(await fx.run(['reflection', 'delete', id]), 2, 'without confirmation');
    expect(fx.emu.reflections.reflections.has(id)).toBe(true);
    expect((await fx.run(['reflection', 'rm', id, '-y'])).code).toBe(0);
    expect(fx.emu.reflections.reflections.has(id)).toBe(false);
    expectFailure(await fx.run(['reflection', 'delete', id, '-y']), 4, 'not found');
  });
});

describe('on a community-edition server', () => {
  let cx!: Fixture;
  useCommunityFixture((f) => {
    cx = f;
  });

  it('listing all and refresh say so in one sentence (exit 4); a dataset’s reflections still list', async () => {
    await seedView(cx);
    expectFailure(
      await cx.run(['reflection', 'list']),
      4,
      "this service's edition does not offer listing all reflections (Enterprise only)",
    );
    const id = '6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b';
    expectFailure(
      await cx.run(['reflection', 'refresh', id]),
      4,
      "this service's edition does not offer refreshing a reflection (Enterprise only)",
    );
    expect((await cx.run(['reflection', 'list', 'Sales/orders'])).code).toBe(0);
  });
});
