// `plan --prune` and `apply --prune`: what no file names under the files' roots is deleted, and nothing else;
// deletes are shown first, confirmed (a TTY question, or --yes), ordered contents first, and a delete carries
// the tag read when planning. Also the TTY progress line of apply.
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/ascode/apply.js';
import { readDefinitions } from '../../src/ascode/folder.js';
import { computePlan } from '../../src/ascode/plan.js';
import { planDeletes } from '../../src/ascode/prune.js';
import { clientOf, ok } from '../helpers/ascode.js';
import { expectFailure, useFixture } from '../helpers/fixture.js';
import { KEY, startPty } from '../helpers/pty.js';

const SAMPLES = resolve(import.meta.dirname, '../fixtures/samples');

// Each test gets a fresh service: the files it prunes against are what it holds.
const fx = useFixture({ samplesDir: SAMPLES }, { each: true });
let tmp: string;
let files: string;

const create = (entity: Record<string, unknown>) =>
  fx.run(['catalog', 'create', '--file', '-'], { input: JSON.stringify(entity) }).then(ok);
const view = (path: string[], sql: string) =>
  create({ entityType: 'dataset', type: 'VIRTUAL_DATASET', path, sql });

/**
 * The service: the space Sales and the source Samples (both in the files), the space Other (in no file).
 * Sales/old (a folder of two views, z_top reading a_base), Sales/gone and the promoted Samples/sales/2024.csv
 * are in no file; Sales/holder is in no file but holds Sales/holder/x, which is.
 */
async function seed(): Promise<void> {
  await create({ entityType: 'space', name: 'Sales' });
  await create({ entityType: 'space', name: 'Other' });
  await view(['Other', 'elsewhere'], 'SELECT 1');
  await view(['Sales', 'keep'], 'SELECT 1 AS k');
  await view(['Sales', 'gone'], 'SELECT 2 AS g');
  await create({ entityType: 'folder', path: ['Sales', 'old'] });
  await view(['Sales', 'old', 'a_base'], 'SELECT 3 AS b');
  await view(['Sales', 'old', 'z_top'], 'SELECT * FROM Sales.old.a_base');
  await create({ entityType: 'folder', path: ['Sales', 'holder'] });
  await view(['Sales', 'holder', 'x'], 'SELECT 4 AS x');
  await create({
    entityType: 'dataset',
    type: 'PHYSICAL_DATASET',
    path: ['Samples', 'sales', '2024.csv'],
    format: { type: 'Text', extractHeader: true },
  });
}

const PRUNED = [
  ['Sales', 'gone'],
  ['Sales', 'old'],
  ['Sales', 'old', 'a_base'],
  ['Sales', 'old', 'z_top'],
  ['Samples', 'sales', '2024.csv'],
];
const KEPT = [
  ['Sales'],
  ['Sales', 'keep'],
  ['Sales', 'holder'],
  ['Sales', 'holder', 'x'],
  ['Samples'],
  ['Other'],
  ['Other', 'elsewhere'],
];

// What the plan read to decide its deletes comes first: the five files left, in six folders (Sales/old is empty).
const planText = () =>
  [
    `Read 5 definition files in ${files} (6 folders).`,
    '- delete view Sales/gone',
    '- delete folder Sales/old',
    '- delete view Sales/old/a_base',
    '- delete view Sales/old/z_top',
    '- delete dataset Samples/sales/2024.csv',
    '+ create view Sales/new',
    '    sql: "SELECT 5 AS n"',
    'Plan: 1 to create, 0 to update, 5 to delete.',
    '',
  ].join('\n');

const at = (path: string[]) => fx.emu.catalog.store.at(path);
const writes = () => fx.emu.log.entries.filter((e) => e.method !== 'GET');

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'dlake-prune-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// And the files: everything pulled, less what is to be pruned, plus a new view.
beforeEach(async () => {
  await seed();
  files = mkdtempSync(join(tmp, 'files-'));
  ok(await fx.run(['pull', 'Sales', 'Samples', '--dir', files]));
  for (const f of [
    'Sales/gone.yaml',
    'Sales/old.yaml',
    'Sales/old/a_base.yaml',
    'Sales/old/z_top.yaml',
    'Sales/holder.yaml',
    'Samples/sales/2024.csv.yaml',
  ])
    unlinkSync(join(files, f));
  writeFileSync(join(files, 'Sales', 'new.yaml'), 'kind: view\npath: [Sales, new]\nsql: SELECT 5 AS n\n');
  fx.emu.log.clear();
});

describe('plan --prune', () => {
  it('lists each delete first, then the rest; -o json has delete actions; without --prune no delete', async () => {
    const plain = ok(await fx.run(['plan', '--dir', files]));
    expect(plain.stdout).toBe(
      '+ create view Sales/new\n    sql: "SELECT 5 AS n"\nPlan: 1 to create, 0 to update, 0 to delete.\n',
    );
    const plan = await fx.run(['plan', '--dir', files, '--prune', '--exit-code']);
    expect(plan.code).toBe(8);
    expect(plan.stdout).toBe(planText());
    const json = JSON.parse(ok(await fx.run(['plan', '--dir', files, '--prune', '-o', 'json'])).stdout);
    expect(json).toEqual([
      { action: 'delete', kind: 'view', path: ['Sales', 'gone'], changes: [] },
      { action: 'delete', kind: 'folder', path: ['Sales', 'old'], changes: [] },
      { action: 'delete', kind: 'view', path: ['Sales', 'old', 'a_base'], changes: [] },
      { action: 'delete', kind: 'view', path: ['Sales', 'old', 'z_top'], changes: [] },
      { action: 'delete', kind: 'dataset', path: ['Samples', 'sales', '2024.csv'], changes: [] },
      {
        action: 'create',
        kind: 'view',
        path: ['Sales', 'new'],
        changes: [{ field: 'sql', to: 'SELECT 5 AS n' }],
      },
    ]);
    expect(writes()).toEqual([]);
  });

  it('roots are the files’ top entities: after pulling one folder, nothing outside it is a delete', async () => {
    const d = mkdtempSync(join(tmp, 'holder-'));
    ok(await fx.run(['pull', 'Sales/holder', '--dir', d]));
    expect(ok(await fx.run(['plan', '--dir', d, '--prune'])).stdout).toBe(
      'Plan: 0 to create, 0 to update, 0 to delete.\n',
    );
    unlinkSync(join(d, 'Sales', 'holder', 'x.yaml'));
    expect(ok(await fx.run(['plan', '--dir', d, '--prune'])).stdout).toBe(
      `Read 1 definition file in ${d} (3 folders).\n- delete view Sales/holder/x\nPlan: 0 to create, 0 to update, 1 to delete.\n`,
    );
  });
  it('a root a file names inside a source or a home: its folders, files and contents are never deletes', async () => {
    await create({ entityType: 'folder', path: ['@admin', 'stuff'] });
    await view(['@admin', 'stuff', 'mine'], 'SELECT 1 AS m');
    const d = mkdtempSync(join(tmp, 'odd-roots-'));
    writeFileSync(join(d, 'nested.yaml'), 'kind: folder\npath: [Samples, nested]\n');
    writeFileSync(join(d, 'stuff.yaml'), 'kind: folder\npath: ["@admin", stuff]\n');
    const plan = ok(await fx.run(['plan', '--dir', d, '--prune', '-o', 'json']));
    expect(JSON.parse(plan.stdout).filter((e: { action: string }) => e.action === 'delete')).toEqual([]);
  });
  it('admin kinds make no root and are never deletes; the entity a grant is for counts as named', async () => {
    const defs = [
      ...readDefinitions(files),
      { kind: 'grant' as const, path: ['Sales', 'gone'], fields: {} },
      // A queue's path is no catalog path: it makes no root of the space Other.
      { kind: 'queue' as const, path: ['Other'], fields: {} },
    ];
    const deletes = await planDeletes(clientOf(fx), defs);
    expect(deletes.map((e) => e.def.path.join('/'))).toEqual([
      'Sales/old',
      'Sales/old/a_base',
      'Sales/old/z_top',
      'Samples/sales/2024.csv',
    ]);
  });
});

describe('apply --prune', () => {
  it('without a terminal and without --yes: exit 2, and nothing at all is written', async () => {
    const r = await fx.run(['apply', '--dir', files, '--prune']);
    expectFailure(r, 2, 'error: refusing to delete these 5 entities without confirmation');
    expect(r.stderr).toContain('hint: pass --yes (-y) to confirm when there is no terminal');
    expect(writes()).toEqual([]);
    for (const p of [...PRUNED, ...KEPT]) expect(at(p), p.join('/')).toBeDefined();
    expect(at(['Sales', 'new'])).toBeUndefined();
  });

  it('--dry-run prints the plan with its deletes and deletes nothing', async () => {
    const r = ok(await fx.run(['apply', '--dir', files, '--prune', '--dry-run']));
    expect(r.stdout).toBe(planText());
    expect(writes()).toEqual([]);
  });

  it('--yes deletes exactly what no file names, contents and readers first; then the plan is empty', async () => {
    const ids = new Map(PRUNED.map((p) => [at(p)!.id, p.join('/')]));
    const r = ok(await fx.run(['apply', '--dir', files, '--prune', '--yes']));
    expect(r.stderr).toContain('Applied: 1 created, 0 updated, 5 deleted, 0 failed.');
    for (const p of PRUNED) expect(at(p), p.join('/')).toBeUndefined();
    for (const p of [...KEPT, ['Sales', 'new']]) expect(at(p), p.join('/')).toBeDefined();
    // The promoted table reverted to its file: the source still lists it.
    const listing = ok(await fx.run(['catalog', 'ls', 'Samples/sales', '-o', 'json']));
    expect(JSON.parse(listing.stdout).map((e: { path: string[] }) => e.path.at(-1))).toContain('2024.csv');
    const deletes = fx.emu.log.find('DELETE', '/api/v3/catalog/');
    expect(deletes.map((e) => e.status)).toEqual([204, 204, 204, 204, 204]);
    const order = deletes.map((e) => ids.get(decodeURIComponent(e.path.split('/').at(-1)!)));
    // Each delete carries the tag read when planning.
    expect(deletes.every((e) => typeof e.query.tag === 'string' && e.query.tag.length > 0)).toBe(true);
    // The create came first; z_top reads a_base, so it goes before it; the folder after both.
    expect(writes()[0]).toMatchObject({ method: 'POST' });
    const pos = (p: string) => order.indexOf(p);
    expect(pos('Sales/old/z_top')).toBeLessThan(pos('Sales/old/a_base'));
    expect(pos('Sales/old/a_base')).toBeLessThan(pos('Sales/old'));
    expect(ok(await fx.run(['plan', '--dir', files, '--prune'])).stdout).toBe(
      'Plan: 0 to create, 0 to update, 0 to delete.\n',
    );
  });

  it('an entity changed or filled between plan and apply is a conflict for it alone (exit 5)', async () => {
    const api = clientOf(fx);
    const defs = readDefinitions(files);
    const plan = [...(await planDeletes(api, defs)), ...(await computePlan(api, defs))];
    // Meanwhile someone edits Sales/gone and adds a view to Sales/old.
    ok(
      await fx.run(['catalog', 'update', 'Sales/gone', '--file', '-'], {
        input: JSON.stringify({ sql: 'SELECT 22 AS g' }),
      }),
    );
    await view(['Sales', 'old', 'newcomer'], 'SELECT 6 AS c');
    const results = await applyPlan(api, plan, { concurrency: 4, env: {} });
    const outcome = Object.fromEntries(
      results.map((r) => [
        r.entry.def.path.join('/'),
        r.error ? `${(r.error as { exitCode?: number }).exitCode}: ${(r.error as Error).message}` : 'ok',
      ]),
    );
    expect(outcome).toEqual({
      'Sales/new': 'ok',
      'Sales/gone': expect.stringMatching(/^5: /),
      'Sales/old/z_top': 'ok',
      'Sales/old/a_base': 'ok',
      'Sales/old': '5: not deleted: it holds Sales/old/newcomer, which the plan does not delete',
      'Samples/sales/2024.csv': 'ok',
    });
    expect(at(['Sales', 'gone'])).toMatchObject({ sql: 'SELECT 22 AS g' });
    expect(at(['Sales', 'old', 'newcomer'])).toBeDefined();
    expect(at(['Sales', 'old', 'z_top'])).toBeUndefined();
  });
});

describe('on a terminal', () => {
  const env = () => ({ DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url });

  it('asks once, listing the deletes; N changes nothing, y applies', async () => {
    const no = startPty(['apply', '--dir', files, '--prune'], env());
    await no.waitFor('Delete these 5 entities? [y/N]');
    expect(no.screen()).toContain(
      [
        "No file names these, under the files' roots:",
        '  - view Sales/gone',
        '  - folder Sales/old',
        '  - view Sales/old/a_base',
        '  - view Sales/old/z_top',
        '  - dataset Samples/sales/2024.csv',
      ].join('\n'),
    );
    no.type(`n${KEY.enter}`);
    expect(await no.exited).toBe(2);
    // The terminal renders what came last on its own time: waited for, not read at once.
    await no.waitFor('cancelled: not confirmed');
    expect(writes()).toEqual([]);

    const yes = startPty(['apply', '--dir', files, '--prune'], env());
    await yes.waitFor('Delete these 5 entities? [y/N]');
    yes.type(`y${KEY.enter}`);
    expect(await yes.exited).toBe(0);
    await yes.waitFor('Applied: 1 created, 0 updated, 5 deleted, 0 failed.');
    for (const p of PRUNED) expect(at(p), p.join('/')).toBeUndefined();
  });

  it('apply shows its progress on one line', async () => {
    for (const n of [2, 3]) {
      writeFileSync(
        join(files, 'Sales', `new${n}.yaml`),
        `kind: view\npath: [Sales, new${n}]\nsql: SELECT ${n}\n`,
      );
    }
    const pty = startPty(['apply', '--dir', files], env());
    expect(await pty.exited).toBe(0);
    await pty.waitFor('Applied: 3 created, 0 updated, 0 failed.');
    for (const n of [1, 2, 3]) expect(pty.raw).toContain(`\rApplied ${n} of 3`);
    // The line is rewritten in place: the screen keeps only the last count, then the summary.
    expect(pty.screen()).not.toContain('Applied 1 of 3');
    expect(pty.screen()).toMatch(/^Applied 3 of 3\nApplied: 3 created, 0 updated, 0 failed\.$/m);
  });
});
