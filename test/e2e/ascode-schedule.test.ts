// How apply spends its requests: each entity starts as soon as what it depends on is done (not in waves), and
// planning into an empty service does not read what lies below a container it found absent.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGraph } from '../../src/ascode/order.js';
import { ok } from '../helpers/ascode.js';
import { useFixture } from '../helpers/fixture.js';

/** A task per node that ends when the test says so; `started` lists the nodes in the order they began. */
function controlled() {
  const started: number[] = [];
  const finish = new Map<number, () => void>();
  const fn = (n: number) =>
    new Promise<number>((resolve) => {
      started.push(n);
      finish.set(n, () => resolve(n));
    });
  const settle = () => new Promise((r) => setImmediate(r));
  return { started, fn, settle, done: (n: number) => finish.get(n)!() };
}

describe('runGraph', () => {
  it('starts a node as soon as its dependencies end, while an unrelated slow one still runs', async () => {
    // 0 and 1 have no dependencies; 2 needs 0; 3 needs 2. Waves would hold 2 until 1 ends.
    const deps = [new Set<number>(), new Set<number>(), new Set([0]), new Set([2])];
    const c = controlled();
    const all = runGraph(deps, 4, c.fn);
    await c.settle();
    expect(c.started).toEqual([0, 1]);
    c.done(0);
    await c.settle();
    expect(c.started).toEqual([0, 1, 2]);
    c.done(2);
    await c.settle();
    expect(c.started).toEqual([0, 1, 2, 3]);
    c.done(3);
    c.done(1);
    expect(await all).toEqual([0, 1, 2, 3]);
  });

  it('runs at most max at once', async () => {
    const deps = [new Set<number>(), new Set<number>(), new Set<number>()];
    const c = controlled();
    const all = runGraph(deps, 2, c.fn);
    await c.settle();
    expect(c.started).toEqual([0, 1]);
    c.done(1);
    await c.settle();
    expect(c.started).toEqual([0, 1, 2]);
    c.done(0);
    c.done(2);
    expect(await all).toEqual([0, 1, 2]);
  });

  it('when only a cycle is left, starts its first node, and what waits on it after', async () => {
    // 0 and 1 wait for each other; 2 is free; 3 needs 0.
    const deps = [new Set([1]), new Set([0]), new Set<number>(), new Set([0])];
    const c = controlled();
    const all = runGraph(deps, 4, c.fn);
    await c.settle();
    expect(c.started).toEqual([2]);
    c.done(2);
    await c.settle();
    expect(c.started).toEqual([2, 0]);
    c.done(0);
    await c.settle();
    expect(c.started).toEqual([2, 0, 1, 3]);
    c.done(1);
    c.done(3);
    expect(await all).toEqual([2, 0, 1, 3]);
  });

  it('an empty graph ends at once', async () => {
    expect(await runGraph([], 8, async () => 1)).toEqual([]);
  });
});

describe('planning into an empty service', () => {
  let dir: string;
  const fx = useFixture();
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dlake-schedule-'));
    mkdirSync(join(dir, 'Sales', 'reports'), { recursive: true });
    writeFileSync(join(dir, 'Sales.yaml'), 'kind: space\npath: [Sales]\n');
    writeFileSync(join(dir, 'Sales', 'reports.yaml'), 'kind: folder\npath: [Sales, reports]\n');
    writeFileSync(
      join(dir, 'Sales', 'reports', 'v.yaml'),
      'kind: view\npath: [Sales, reports, v]\nsql: SELECT 1\n',
    );
    writeFileSync(join(dir, 'Sales', 'w.yaml'), 'kind: view\npath: [Sales, w]\nsql: SELECT 2\n');
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads only the container found absent, not what the files put below it', async () => {
    fx.emu.log.clear();
    const plan = ok(await fx.run(['plan', '--dir', dir]));
    expect(plan.stdout).toContain('Plan: 4 to create, 0 to update, 0 to delete.');
    expect(fx.emu.log.find('GET', '/api/v3/catalog').map((e) => e.path)).toEqual([
      '/api/v3/catalog/by-path/Sales',
    ]);
  });

  it('once the container exists, reads each entity below it', async () => {
    ok(
      await fx.run(['catalog', 'create', '--file', '-'], {
        input: '{"entityType": "space", "name": "Sales"}',
      }),
    );
    fx.emu.log.clear();
    const plan = ok(await fx.run(['plan', '--dir', dir]));
    expect(plan.stdout).toContain('Plan: 3 to create, 0 to update, 0 to delete.');
    expect(
      fx.emu.log
        .find('GET', '/api/v3/catalog/by-path/')
        .map((e) => e.path)
        .sort(),
    ).toEqual([
      '/api/v3/catalog/by-path/Sales',
      '/api/v3/catalog/by-path/Sales/reports',
      '/api/v3/catalog/by-path/Sales/w',
    ]);
  });
});
