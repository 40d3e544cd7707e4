// Definitions as code across editions, between emulators: pull from the self-hosted edition, plan and apply to
// the hosted one (what maps is applied; spaces, what is inside them, a NAS source, queues and the ruleset are
// each reported with the reason and set aside), then pull from the hosted edition and apply to a self-hosted one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgSource, ok } from '../helpers/ascode.js';
import { useFixture } from '../helpers/fixture.js';

const SAMPLES = resolve(import.meta.dirname, '../fixtures/samples');
const PID = '41111111-2222-4333-8444-555555555555';
const PG_PASSWORD = 'pg-secret-Hosted-31';

const software = useFixture({ samplesDir: SAMPLES });
const hosted = useFixture({ edition: 'cloud', cloud: { projectId: PID } });
const back = useFixture();
let tmp: string;
const dir = (name: string) => join(tmp, name);

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'dlake-hosted-ascode-'));
  const create = (entity: unknown) =>
    software.run(['catalog', 'create', '--file', '-'], { input: JSON.stringify(entity) });
  ok(await create({ entityType: 'space', name: 'Sales' }));
  ok(await create({ entityType: 'folder', path: ['Sales', 'reports'] }));
  ok(
    await create({
      entityType: 'dataset',
      type: 'VIRTUAL_DATASET',
      path: ['Sales', 'v'],
      sql: 'SELECT 1 AS x',
    }),
  );
  await createPgSource((args) => software.run(args), tmp, PG_PASSWORD);
  ok(await software.run(['catalog', 'tags', 'pg', '--set', 'finance']));
  ok(await software.run(['catalog', 'wiki', 'pg', '--set-file', '-'], { input: '# Sales DB\n' }));
  ok(await software.run(['queue', 'create', '--name', 'etl', '--max-running-jobs', '4']));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('self-hosted to hosted', () => {
  it('plans what maps and reports each definition set aside with its reason', async () => {
    ok(await software.run(['pull', '--dir', dir('src'), '--kinds', 'queue,rule']));
    hosted.emu.log.clear();
    const plan = ok(await hosted.run(['plan', '--dir', dir('src')], { env: { PG_PASSWORD } }));
    const actions = plan.stdout.split('\n').filter((l) => /^[-+~] /.test(l));
    expect(actions).toEqual(['+ create source pg']);
    for (const line of [
      'warning: not carried over: space Sales (the hosted catalog has no spaces)',
      'warning: not carried over: folder Sales/reports (it is inside space Sales, which is not carried over)',
      'warning: not carried over: view Sales/v (it is inside space Sales, which is not carried over)',
      'warning: not carried over: source Samples (the hosted edition has no NAS sources)',
      'warning: not carried over: queue etl (the hosted edition has no workload queues; its engines take their place, see `dlake engine`)',
      'warning: not carried over: the ruleset (the hosted edition has no queue rules; its engine rules take their place, see `dlake engine rules`)',
    ]) {
      expect(plan.stderr).toContain(line);
    }
    // Planning read the hosted project only, and never a self-hosted root.
    expect(hosted.emu.log.entries.every((e) => e.path.startsWith(`/v0/projects/${PID}/`))).toBe(true);
  });

  it('applies what maps (the source, its tags and wiki) and goes on past the rest', async () => {
    hosted.emu.log.clear();
    const r = ok(await hosted.run(['apply', '--dir', dir('src')], { env: { PG_PASSWORD } }));
    expect(r.stderr).toContain('Applied: 1 created, 0 updated, 0 failed.');
    expect(hosted.emu.catalog.store.at(['pg'])).toBeDefined();
    expect(hosted.emu.catalog.store.sourceConfig('pg')).toMatchObject({ password: PG_PASSWORD });
    expect(hosted.emu.catalog.store.at(['Sales'])).toBeUndefined();
    const again = ok(
      await hosted.run(['plan', '--dir', dir('src'), '--exit-code'], { env: { PG_PASSWORD } }),
    );
    expect(again.stdout).toBe('Plan: 0 to create, 0 to update, 0 to delete.\n');
  });
});

describe('hosted to self-hosted', () => {
  it('pulls from the hosted project and applies it all to a self-hosted service', async () => {
    ok(await hosted.run(['pull', '--dir', dir('hosted')]));
    const r = ok(await back.run(['apply', '--dir', dir('hosted')], { env: { PG_PASSWORD } }));
    expect(r.stderr).not.toContain('not carried over');
    expect(back.emu.catalog.store.at(['pg'])).toBeDefined();
    const plan = ok(
      await back.run(['plan', '--dir', dir('hosted'), '--exit-code'], { env: { PG_PASSWORD } }),
    );
    expect(plan.stdout).toBe('Plan: 0 to create, 0 to update, 0 to delete.\n');
  });
});
