// `dlake queue list|get|create|update|delete` against the emulator: human units in and out, full-replace
// updates that keep what was not given, stale tags, confirmation, admin-only, community edition.

import { beforeEach, describe, expect, it } from 'vitest';
import { ANALYST, expectFailure, type Fixture, useCommunityFixture, useFixture } from '../helpers/fixture.js';
import { until } from '../helpers/until.js';

const fx = useFixture();
beforeEach(() => {
  fx.emu.faults.clear();
  fx.emu.log.clear();
});

const GiB = 1024 ** 3;
const store = () => fx.emu.queues!;
const queue = (name: string) => store().byName(name);
const writes = () => fx.emu.log.entries.filter((e) => e.method !== 'GET');

async function createQueue(name: string, ...args: string[]): Promise<string> {
  const r = await fx.run(['queue', 'create', '--name', name, ...args]);
  expect(r.code, r.stderr).toBe(0);
  fx.emu.log.clear();
  return queue(name)!.id;
}

describe('dlake queue create', () => {
  it('takes human units, sends the API numbers, and prints them back in human units', async () => {
    const r = await fx.run([
      'queue',
      'create',
      '--name',
      'etl',
      '--cpu-tier',
      'high',
      '--max-memory-per-node',
      '8GiB',
      '--max-query-memory-per-node',
      '512MiB',
      '--max-running-jobs',
      '4',
      '--max-start-timeout',
      '90s',
      '--max-run-timeout',
      '15m',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(queue('etl')).toMatchObject({
      tag: '0',
      cpuTier: 'HIGH',
      maxMemoryPerNodeBytes: 8 * GiB,
      maxQueryMemoryPerNodeBytes: 512 * 1024 ** 2,
      maxAllowedRunningJobs: 4,
      maxStartTimeoutMs: 90_000,
      maxRunTimeoutMs: 900_000,
    });
    expect(r.stdout).toMatch(/^maxMemoryPerNode\s+8 GiB$/m);
    expect(r.stdout).toMatch(/^maxQueryMemoryPerNode\s+512 MiB$/m);
    expect(r.stdout).toMatch(/^maxStartTimeout\s+1m 30s$/m);
    expect(r.stdout).toMatch(/^maxRunTimeout\s+15m$/m);
    expect(r.stderr).toContain(`Created queue etl (id ${queue('etl')!.id}).`);
    expect(fx.emu.log.find('POST', '/api/v3/wlm/queue')).toHaveLength(1);
  });

  it('a name already taken: exit 5, sent once', async () => {
    await createQueue('dup');
    expectFailure(
      await fx.run(['queue', 'create', '--name', 'dup']),
      5,
      'a queue named "dup" already exists',
    );
    expect(fx.emu.log.find('POST', '/api/v3/wlm/queue')).toHaveLength(1);
  });

  it('a CPU tier outside its enum: exit 2 listing the values, before any request', async () => {
    const r = await fx.run(['queue', 'create', '--name', 'x', '--cpu-tier', 'TURBO']);
    expectFailure(r, 2, '--cpu-tier "TURBO" is not one of');
    expect(r.stderr).toContain('BACKGROUND, LOW, MEDIUM, HIGH, CRITICAL');
    expect(fx.emu.log.entries).toEqual([]);
  });

  it('a size, duration or count that does not parse: exit 2, before any request', async () => {
    const size = await fx.run(['queue', 'create', '--name', 'x', '--max-memory-per-node', '8 gigs']);
    expectFailure(size, 2, '--max-memory-per-node: invalid size "8 gigs"');
    expect(size.stderr).toMatch(/hint: .*8GiB/);
    const duration = await fx.run(['queue', 'create', '--name', 'x', '--max-run-timeout', 'forever']);
    expectFailure(duration, 2, '--max-run-timeout: invalid duration "forever"');
    const count = await fx.run(['queue', 'create', '--name', 'x', '--max-running-jobs', 'many']);
    expectFailure(count, 2, '--max-running-jobs must be a whole number 0 or more, not "many"');
    const upd = await fx.run(['queue', 'update', 'default', '--max-query-memory-per-node', '-1GiB']);
    expectFailure(upd, 2, '--max-query-memory-per-node: invalid size "-1GiB"');
    expect(fx.emu.log.entries).toEqual([]);
    expect(queue('x')).toBeUndefined();
  });

  it('--dry-run prints the POST with the API numbers and creates nothing', async () => {
    const r = await fx.run([
      'queue',
      'create',
      '--name',
      'dry',
      '--max-run-timeout',
      '2h',
      '--dry-run',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      method: 'POST',
      url: `${fx.emu.url}/api/v3/wlm/queue`,
      body: { name: 'dry', maxRunTimeoutMs: 7_200_000 },
    });
    expect(fx.emu.log.entries).toEqual([]);
    expect(queue('dry')).toBeUndefined();
  });
});

describe('dlake queue list and get', () => {
  it('tables in human units; json with the API numbers', async () => {
    const id = await createQueue('reporting', '--max-memory-per-node', '16GiB', '--max-run-timeout', '1h30m');
    const table = await fx.run(['queue', 'list']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+CPU TIER\s+MEMORY\/NODE/);
    expect(table.stdout).toMatch(new RegExp(`^reporting\\s+MEDIUM\\s+16 GiB\\s+1h 30m\\s+${id}$`, 'm'));
    expect(table.stdout).toMatch(/^default\s+MEDIUM\s+\S+$/m);

    const json = await fx.run(['queue', 'list', '-o', 'json']);
    expect(JSON.parse(json.stdout)).toContainEqual(
      expect.objectContaining({
        id,
        name: 'reporting',
        maxMemoryPerNodeBytes: 16 * GiB,
        maxRunTimeoutMs: 5_400_000,
      }),
    );

    const byName = await fx.run(['queue', 'get', 'reporting', '-o', 'json']);
    const byId = await fx.run(['queue', 'get', id, '-o', 'json']);
    expect(JSON.parse(byName.stdout)).toEqual(JSON.parse(byId.stdout));
    const csv = await fx.run(['queue', 'get', 'reporting', '-o', 'csv']);
    expect(csv.stdout).toContain('maxMemoryPerNode,16 GiB\n');
  });

  it('an unknown queue: exit 4', async () => {
    expectFailure(await fx.run(['queue', 'get', 'nope']), 4, 'error: not found: queue "nope"');
    expectFailure(await fx.run(['queue', 'get', '00000000-0000-4000-8000-00000000dead']), 4, 'not found');
  });

  it('a non-admin: exit 3, saying queues need an admin', async () => {
    expect((await fx.login(ANALYST, 'analyst')).code).toBe(0);
    const r = await fx.run(['queue', 'list', '-p', 'analyst']);
    expectFailure(r, 3, 'permission denied');
    expect(r.stderr).toContain('hint: managing workload queues needs an admin');
  });
});

describe('dlake queue update', () => {
  it('changes only the given fields, keeps the rest, and sends the tag just read', async () => {
    const id = await createQueue(
      'nightly',
      '--cpu-tier',
      'LOW',
      '--max-memory-per-node',
      '4GiB',
      '--max-running-jobs',
      '2',
    );
    const r = await fx.run(['queue', 'update', 'nightly', '--max-run-timeout', '30m']);
    expect(r.code, r.stderr).toBe(0);
    expect(queue('nightly')).toEqual({
      id,
      tag: '1',
      name: 'nightly',
      cpuTier: 'LOW',
      maxMemoryPerNodeBytes: 4 * GiB,
      maxAllowedRunningJobs: 2,
      maxRunTimeoutMs: 1_800_000,
    });
    expect(r.stdout).toMatch(/^maxRunTimeout\s+30m$/m);
    expect(r.stderr).toContain('Updated queue nightly: maxRunTimeoutMs; its tag is now 1.');

    const renamed = await fx.run(['queue', 'update', id, '--name', 'nightly-2', '--cpu-tier', 'BACKGROUND']);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(queue('nightly')).toBeUndefined();
    expect(queue('nightly-2')).toMatchObject({
      id,
      tag: '2',
      cpuTier: 'BACKGROUND',
      maxMemoryPerNodeBytes: 4 * GiB,
    });
  });

  it('a queue changed between read and write: exit 5 naming the current tag, their change kept', async () => {
    const id = await createQueue('shared', '--max-running-jobs', '2');
    fx.emu.fault({
      kind: 'latency',
      method: 'PUT',
      path: `/api/v3/wlm/queue/${id}`,
      latencyMs: 1500,
      times: 1,
    });
    const running = fx.run(['queue', 'update', 'shared', '--max-running-jobs', '8']);
    await until(() => fx.emu.log.find('PUT', `/api/v3/wlm/queue/${id}`).length > 0, 'dlake sent the PUT');
    // A colleague's update lands first.
    store().queues.set(id, { ...queue('shared')!, tag: '1', maxAllowedRunningJobs: 3 });
    const r = await running;
    expectFailure(r, 5, 'queue "shared" was changed by someone else since it was read (tag "0")');
    expect(r.stderr).toContain('hint: its current tag is "1"');
    expect(queue('shared')).toMatchObject({ tag: '1', maxAllowedRunningJobs: 3 });
    expect(fx.emu.log.find('PUT', `/api/v3/wlm/queue/${id}`)).toHaveLength(1);
  });

  it('a new name another queue has: exit 5', async () => {
    await createQueue('left');
    await createQueue('right');
    expectFailure(
      await fx.run(['queue', 'update', 'left', '--name', 'right']),
      5,
      'a queue named "right" already exists',
    );
    expect(queue('left')!.tag).toBe('0');
  });

  it('nothing to change: exit 2 before any request; an unknown queue: exit 4', async () => {
    expectFailure(await fx.run(['queue', 'update', 'default']), 2, 'nothing to change');
    expect(fx.emu.log.entries).toEqual([]);
    expectFailure(
      await fx.run(['queue', 'update', 'nope', '--max-running-jobs', '1']),
      4,
      'error: not found: queue "nope"',
    );
    expect(writes()).toEqual([]);
  });

  it('--dry-run prints the full replacement and changes nothing', async () => {
    const id = await createQueue('dryupd', '--cpu-tier', 'HIGH');
    const r = await fx.run([
      'queue',
      'update',
      'dryupd',
      '--max-memory-per-node',
      '2GB',
      '--dry-run',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      method: 'PUT',
      url: `${fx.emu.url}/api/v3/wlm/queue/${id}`,
      body: { id, tag: '0', name: 'dryupd', cpuTier: 'HIGH', maxMemoryPerNodeBytes: 2_000_000_000 },
    });
    expect(writes()).toEqual([]);
    expect(queue('dryupd')!.maxMemoryPerNodeBytes).toBeUndefined();
  });
});

describe('dlake queue delete', () => {
  it('without a terminal and without --yes: exit 2, nothing deleted', async () => {
    await createQueue('keep');
    const r = await fx.run(['queue', 'delete', 'keep']);
    expectFailure(r, 2, 'refusing to delete queue "keep"');
    expect(queue('keep')).toBeDefined();
    expect(writes()).toEqual([]);
  });

  it('--dry-run prints the DELETE; --yes deletes', async () => {
    const id = await createQueue('bye');
    const dry = await fx.run(['queue', 'delete', 'bye', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(new RegExp(`^DELETE\\s+${fx.emu.url}/api/v3/wlm/queue/${id}`, 'm'));
    expect(queue('bye')).toBeDefined();
    const r = await fx.run(['queue', 'delete', 'bye', '-y']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Deleted queue bye.');
    expect(queue('bye')).toBeUndefined();
    expect(fx.emu.log.find('DELETE', `/api/v3/wlm/queue/${id}`)).toHaveLength(1);
  });

  it('a queue that rules still use: exit 2 naming the rules, nothing deleted', async () => {
    const r = await fx.run(['queue', 'delete', 'default', '-y']);
    expectFailure(r, 2, 'queue "default" cannot be deleted: rules still place jobs in it');
    expect(r.stderr).toContain(
      'hint: change or delete these rules first (dlake queue rules --file): "All Other Queries"',
    );
    expect(queue('default')).toBeDefined();
  });

  it('an unknown queue: exit 4', async () => {
    expectFailure(await fx.run(['queue', 'delete', 'nope', '-y']), 4, 'error: not found: queue "nope"');
    expect(writes()).toEqual([]);
  });
});

describe('on a community-edition server', () => {
  let cx!: Fixture;
  useCommunityFixture((f) => {
    cx = f;
  });

  it('every queue command ends with one sentence about the edition (exit 4)', async () => {
    const sentence = "error: this service's edition does not offer workload queues (Enterprise only)";
    for (const args of [
      ['queue', 'list'],
      ['queue', 'get', 'default'],
      ['queue', 'create', '--name', 'x'],
      ['queue', 'update', 'default', '--max-running-jobs', '1'],
      ['queue', 'delete', 'default', '-y'],
    ]) {
      const r = await cx.run(args);
      expectFailure(r, 4, sentence);
      expect(r.stderr).not.toContain('HTTP 404');
    }
  });
});
