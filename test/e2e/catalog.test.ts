// `dlake catalog …` end to end: the built binary against the emulator, checking stdout, stderr, the exit code and
// the emulator's state and request log afterwards. The NAS source `Samples` serves test/fixtures/samples.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CatalogStore, NsEntity } from 'dlake-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANALYST, expectFailure, useFixture } from '../helpers/fixture.js';

const SAMPLES = resolve(import.meta.dirname, '../fixtures/samples');

let tmp: string;

const fx = useFixture({ samplesDir: SAMPLES });
beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'dlake-catalog-e2e-'));
  expect((await fx.login(ANALYST, 'analyst')).code).toBe(0);
});
afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true });
});

const store = (): CatalogStore => fx.emu.catalog.store;
const at = (...path: string[]): NsEntity | undefined => store().at(path);
const run = (args: string[], input?: string) => fx.run(args, { input });
/** Requests that change something. */
const writes = () => fx.emu.log.entries.filter((e) => e.method !== 'GET');
/** Table cells: columns are separated by two or more spaces. */
const cells = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .map((l) => l.split(/ {2,}/));
function file(name: string, content: unknown): string {
  const p = join(tmp, name);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
}
const json = (text: string) => JSON.parse(text);

/** Creates entities straight in the emulator (setup, not under test). */
function seed(kind: 'space' | 'folder', path: string[]): NsEntity {
  return store().insert({ ...store().stamp(), kind, path } as NsEntity);
}
function seedView(path: string[], sql = 'SELECT 1'): NsEntity {
  return store().insert({
    ...store().stamp(),
    kind: 'dataset',
    type: 'VIRTUAL_DATASET',
    path,
    sql,
  } as NsEntity);
}

describe('ls', () => {
  it('lists the top level: home, spaces, sources, with path, type, id and tag', async () => {
    const r = await run(['catalog', 'ls', '-o', 'csv']);
    expect(r.code).toBe(0);
    // The home exists from the user's first catalog request on.
    const home = at('@admin')!;
    const samples = at('Samples')!;
    expect(r.stdout).toBe(
      `PATH,TYPE,ID,TAG\n@admin,HOME,${home.id},${home.tag}\nSamples,SOURCE,${samples.id},${samples.tag}\n`,
    );
    const table = await run(['catalog', 'ls']);
    expect(cells(table.stdout)).toEqual([
      ['PATH', 'TYPE', 'ID', 'TAG'],
      ['@admin', 'HOME', home.id, home.tag],
      ['Samples', 'SOURCE', samples.id, samples.tag],
    ]);
    expect(table.stderr).toBe('');
  });

  it('lists the files and folders of a NAS source, paths ready to paste back', async () => {
    const r = await run(['catalog', 'ls', 'Samples']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        `PATH                         TYPE    ID${' '.repeat(36)}TAG`,
        'Samples/customers.json       FILE    service:/Samples/customers.json',
        'Samples/events.parquet       FILE    service:/Samples/events.parquet',
        'Samples/nested               FOLDER  service:/Samples/nested',
        'Samples/Q1 report.final.csv  FILE    service:/Samples/Q1 report.final.csv',
        'Samples/sales                FOLDER  service:/Samples/sales',
        '',
      ].join('\n'),
    );
    const list = json((await run(['catalog', 'ls', 'Samples/nested', '-o', 'json'])).stdout);
    expect(list).toEqual([
      {
        id: 'service:/Samples/nested/deeper',
        path: ['Samples', 'nested', 'deeper'],
        type: 'CONTAINER',
        containerType: 'FOLDER',
      },
    ]);
  });

  it('follows the pages of a big container, asking with the same page size', async () => {
    seed('space', ['Paged']);
    for (let i = 0; i < 7; i++) seed('folder', ['Paged', `f${i}`]);
    const r = await run(['catalog', 'ls', 'Paged', '--page-size', '3', '-o', 'json']);
    expect(r.code).toBe(0);
    expect(json(r.stdout).map((c: { path: string[] }) => c.path.at(-1))).toEqual([
      'f0',
      'f1',
      'f2',
      'f3',
      'f4',
      'f5',
      'f6',
    ]);
    const gets = fx.emu.log.find('GET', '/api/v3/catalog/');
    expect(gets.map((g) => [g.path, g.query.maxChildren, Boolean(g.query.pageToken)])).toEqual([
      ['/api/v3/catalog/by-path/Paged', '3', false],
      [`/api/v3/catalog/${at('Paged')!.id}`, '3', true],
      [`/api/v3/catalog/${at('Paged')!.id}`, '3', true],
    ]);
  });

  it('says so when a container is empty', async () => {
    seed('space', ['Empty']);
    const r = await run(['catalog', 'ls', 'Empty']);
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: 'Empty is empty.\n' });
  });
});

describe('get and paths', () => {
  it('finds entities whose names hold slashes, quotes, dots, % # ? and non-ASCII, by the path ls prints', async () => {
    seed('space', ['Odd']);
    const names = ['a/b', 'top "best".v2', '50% #1? Zürich', '"quoted"'];
    const views = names.map((n) => seedView(['Odd', n]));
    const listed = await run(['catalog', 'ls', 'Odd', '-o', 'csv']);
    const printed = listed.stdout.trimEnd().split('\n').slice(1);
    expect(printed).toEqual([
      `"Odd/""""""quoted""""""",VIRTUAL,${views[3]!.id},${views[3]!.tag}`,
      `Odd/50% #1? Zürich,VIRTUAL,${views[2]!.id},${views[2]!.tag}`,
      `"Odd/""a/b""",VIRTUAL,${views[0]!.id},${views[0]!.tag}`,
      `"Odd/top ""best"".v2",VIRTUAL,${views[1]!.id},${views[1]!.tag}`,
    ]);
    const table = cells((await run(['catalog', 'ls', 'Odd'])).stdout)
      .slice(1)
      .map((row) => row[0]);
    expect(table).toEqual(['Odd/"""quoted"""', 'Odd/50% #1? Zürich', 'Odd/"a/b"', 'Odd/top "best".v2']);
    // Each printed path, pasted back, names the same entity; the by-path URL escapes each component alone.
    fx.emu.log.clear();
    for (const [i, path] of [
      'Odd/"a/b"',
      'Odd/top "best".v2',
      'Odd/50% #1? Zürich',
      'Odd/"""quoted"""',
    ].entries()) {
      const r = await run(['catalog', 'get', path, '-o', 'json']);
      expect(r.code).toBe(0);
      expect(json(r.stdout)).toMatchObject({ id: views[i]!.id, path: ['Odd', names[i]] });
    }
    expect(fx.emu.log.entries.map((e) => e.path)).toEqual([
      '/api/v3/catalog/by-path/Odd/a%2Fb',
      '/api/v3/catalog/by-path/Odd/top%20%22best%22.v2',
      '/api/v3/catalog/by-path/Odd/50%25%20%231%3F%20Z%C3%BCrich',
      '/api/v3/catalog/by-path/Odd/%22quoted%22',
    ]);
    // The other spelling of a quoted component means the same.
    const alt = await run(['catalog', 'get', 'Odd/"top ""best"".v2"', '-o', 'json']);
    expect(json(alt.stdout).id).toBe(views[1]!.id);
  });

  it('shows an entity as fields; --id takes internal ids; include and exclude reach the service', async () => {
    const r = await run(['catalog', 'get', '--id', 'service:/Samples/sales']);
    expect(r.code).toBe(0);
    expect(cells(r.stdout)).toEqual([
      ['FIELD', 'VALUE'],
      ['path', 'Samples/sales'],
      ['type', 'FOLDER'],
      ['id', 'service:/Samples/sales'],
      ['children', '2'],
    ]);
    expect(fx.emu.log.entries.at(-1)!.path).toBe('/api/v3/catalog/service%3A%2FSamples%2Fsales');
    const view = seedView(['Odd', 'shown'], 'SELECT 42');
    const byId = await run(['catalog', 'get', view.id, '--include', 'permissions', '--exclude', 'children']);
    expect(cells(byId.stdout)).toEqual([
      ['FIELD', 'VALUE'],
      ['path', 'Odd/shown'],
      ['type', 'VIRTUAL'],
      ['id', view.id],
      ['tag', view.tag],
      ['createdAt', view.createdAt],
      ['sql', 'SELECT 42'],
    ]);
    expect(fx.emu.log.entries.at(-1)!.query).toEqual({ include: 'permissions', exclude: 'children' });
  });

  it('an unknown path or id: exit 4, "not found: …" and where to look', async () => {
    expectFailure(await run(['catalog', 'get', 'Nope/x']), 4, 'error: not found: Nope/x');
    const uuid = '0b5c7d55-8f6e-4a5e-9c1e-0d1f2a3b4c5d';
    expectFailure(await run(['catalog', 'ls', uuid]), 4, `error: not found: catalog entity ${uuid}`);
    expectFailure(await run(['catalog', 'delete', 'Nope', '-y']), 4, 'error: not found: Nope');
    expect(writes()).toEqual([]);
  });

  it('a path with an unclosed quote: exit 2 before any request, pointing at the quote', async () => {
    const r = await run(['catalog', 'get', 'Odd/"a/b']);
    expectFailure(
      r,
      2,
      'error: invalid catalog path "Odd/"a/b": the quote opened here is never closed at position 5',
    );
    expect(r.stderr).toContain('  Odd/"a/b\n      ^\n');
    expect(fx.emu.log.entries).toEqual([]);
  });
});

describe('tree', () => {
  it('walks a NAS source: an indented table, csv with levels, nested JSON; one listing per container', async () => {
    const samples = at('Samples')!;
    const r = await run(['catalog', 'tree', 'Samples']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'PATH                                    TYPE    ID',
        `Samples                                 SOURCE  ${samples.id}`,
        '  Samples/customers.json                FILE    service:/Samples/customers.json',
        '  Samples/events.parquet                FILE    service:/Samples/events.parquet',
        '  Samples/nested                        FOLDER  service:/Samples/nested',
        '    Samples/nested/deeper               FOLDER  service:/Samples/nested/deeper',
        '      Samples/nested/deeper/readme.csv  FILE    service:/Samples/nested/deeper/readme.csv',
        '  Samples/Q1 report.final.csv           FILE    service:/Samples/Q1 report.final.csv',
        '  Samples/sales                         FOLDER  service:/Samples/sales',
        '    Samples/sales/2024.csv              FILE    service:/Samples/sales/2024.csv',
        '    Samples/sales/2025.csv              FILE    service:/Samples/sales/2025.csv',
        '',
      ].join('\n'),
    );
    // The start is looked up once, then each container is listed once.
    expect(
      fx.emu.log.entries.map((e) => decodeURIComponent(e.path.replace('/api/v3/catalog/', ''))).sort(),
    ).toEqual(
      [
        'by-path/Samples',
        samples.id,
        'service:/Samples/nested',
        'service:/Samples/nested/deeper',
        'service:/Samples/sales',
      ].sort(),
    );

    const csv = await run(['catalog', 'tree', 'Samples', '--depth', '1', '-o', 'csv']);
    expect(csv.stdout).toBe(
      [
        'PATH,TYPE,ID,LEVEL',
        `Samples,SOURCE,${samples.id},0`,
        'Samples/customers.json,FILE,service:/Samples/customers.json,1',
        'Samples/events.parquet,FILE,service:/Samples/events.parquet,1',
        'Samples/nested,FOLDER,service:/Samples/nested,1',
        'Samples/Q1 report.final.csv,FILE,service:/Samples/Q1 report.final.csv,1',
        'Samples/sales,FOLDER,service:/Samples/sales,1',
        '',
      ].join('\n'),
    );

    const nested = json(
      (await run(['catalog', 'tree', 'Samples', '-o', 'json', '--concurrency', '2'])).stdout,
    );
    expect(nested).toMatchObject({ entityType: 'source', id: samples.id, name: 'Samples' });
    expect(nested.children.map((c: { path: string[] }) => c.path.at(-1))).toEqual([
      'customers.json',
      'events.parquet',
      'nested',
      'Q1 report.final.csv',
      'sales',
    ]);
    expect(nested.children[2].children[0].children).toEqual([
      {
        id: 'service:/Samples/nested/deeper/readme.csv',
        path: ['Samples', 'nested', 'deeper', 'readme.csv'],
        type: 'FILE',
      },
    ]);
    expect(nested.children[0]).not.toHaveProperty('children');
  });

  it('walks from the top level; --depth 1 lists nothing below it', async () => {
    const r = await run(['catalog', 'tree', '--depth', '1', '-o', 'json']);
    expect(json(r.stdout).map((n: { path: string[] }) => n.path[0])).toEqual([
      '@admin',
      ...store()
        .topLevel()
        .map((e) => e.path[0]),
    ]);
    expect(fx.emu.log.entries.map((e) => e.path)).toEqual(['/api/v3/catalog']);
    expectFailure(
      await run(['catalog', 'tree', '--concurrency', '0']),
      2,
      '--concurrency must be a whole number from 1 to 32, not "0"',
    );
  });
});

describe('create', () => {
  it('creates a space from a file, a folder and a view from standard input', async () => {
    const space = await run([
      'catalog',
      'create',
      '--file',
      file('space.json', { entityType: 'space', name: 'Sales' }),
    ]);
    expect(space.code).toBe(0);
    const created = at('Sales')!;
    expect(created.kind).toBe('space');
    expect(cells(space.stdout)).toEqual([
      ['PATH', 'TYPE', 'ID', 'TAG'],
      ['Sales', 'SPACE', created.id, created.tag],
    ]);
    expect(space.stderr).toBe('Created space Sales.\n');

    const folder = await run(
      ['catalog', 'create', '--file', '-'],
      JSON.stringify({ entityType: 'folder', path: ['Sales', 'reports'] }),
    );
    expect(folder.stderr).toBe('Created folder Sales/reports.\n');
    expect(at('Sales', 'reports')!.kind).toBe('folder');

    const view = {
      entityType: 'dataset',
      type: 'VIRTUAL_DATASET',
      path: ['Sales', 'reports', 'q1'],
      sql: 'SELECT 1',
    };
    const v = await run(['catalog', 'create', '--file', '-', '-o', 'json'], JSON.stringify(view));
    expect(v.code).toBe(0);
    const stored = at('Sales', 'reports', 'q1')!;
    expect(json(v.stdout)).toMatchObject({ ...view, id: stored.id, tag: stored.tag });
    expect(stored).toMatchObject({ kind: 'dataset', sql: 'SELECT 1' });
    expect(fx.emu.log.find('POST', '/api/v3/catalog')).toHaveLength(3);
  });

  it('promotes a file when the entity is a PHYSICAL_DATASET', async () => {
    const table = {
      entityType: 'dataset',
      type: 'PHYSICAL_DATASET',
      path: ['Samples', 'sales', '2024.csv'],
      format: { type: 'Text', extractHeader: true },
    };
    const r = await run(['catalog', 'create', '--file', '-'], JSON.stringify(table));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('Created table Samples/sales/2024.csv.\n');
    const stored = at('Samples', 'sales', '2024.csv')!;
    expect(stored).toMatchObject({ kind: 'dataset', type: 'PHYSICAL_DATASET' });
    expect(writes().map((w) => [w.method, w.path])).toEqual([
      ['POST', '/api/v3/catalog/service%3A%2FSamples%2Fsales%2F2024.csv'],
    ]);
    expect(cells(r.stdout)[1]).toEqual(['Samples/sales/2024.csv', 'PROMOTED', stored.id, stored.tag]);
  });

  it('--file that is not JSON, not an entity, or missing: exit 2, nothing sent', async () => {
    expectFailure(
      await run(['catalog', 'create', '--file', file('bad.json', '{"entityType": ')]),
      2,
      `error: --file (${join(tmp, 'bad.json')}) is not valid JSON`,
    );
    const notEntity = await run(['catalog', 'create', '--file', '-'], '{"name": "x"}');
    expectFailure(notEntity, 2, 'error: --file (standard input) is not a catalog entity');
    expect(notEntity.stderr).toContain('  entityType: must be one of space, folder, dataset, source\n');
    const noSql = await run(
      ['catalog', 'create', '--file', '-'],
      '{"entityType": "dataset", "type": "VIRTUAL_DATASET", "path": ["Sales", "v"]}',
    );
    expectFailure(noSql, 2, 'is not a catalog entity');
    expect(noSql.stderr).toContain('  sql: is required\n');
    expectFailure(
      await run(['catalog', 'create', '--file', '-'], '[1, 2]'),
      2,
      'is not a catalog entity: expected a JSON object',
    );
    expectFailure(await run(['catalog', 'create', '--file', join(tmp, 'none.json')]), 2, 'cannot read');
    expectFailure(await run(['catalog', 'update', 'Sales', '--file', '-'], 'nope'), 2, 'is not valid JSON');
    expectFailure(
      await run(['catalog', 'update', 'Sales', '--file', '-'], '"x"'),
      2,
      'is not a catalog entity',
    );
    expect(fx.emu.log.entries).toEqual([]);
  });

  it('a 409 from the service (the space exists): exit 5', async () => {
    const r = await run(['catalog', 'create', '--file', '-'], '{"entityType": "space", "name": "sales"}');
    expectFailure(r, 5, 'error: A space with the name [sales] already exists.');
  });

  it('--dry-run prints the request and sends nothing', async () => {
    const r = await run(
      ['catalog', 'create', '--file', '-', '--dry-run', '-o', 'json'],
      '{"entityType": "space", "name": "Dry"}',
    );
    expect(r.code).toBe(0);
    expect(json(r.stdout)).toEqual({
      dryRun: true,
      method: 'POST',
      url: `${fx.emu.url}/api/v3/catalog`,
      body: { entityType: 'space', name: 'Dry' },
    });
    expect(writes()).toEqual([]);
    expect(at('Dry')).toBeUndefined();
  });
});

describe('update', () => {
  it('merges the file into the current entity and sends the current tag', async () => {
    const view = seedView(['Odd', 'upd'], 'SELECT 1');
    const before = view.tag;
    const r = await run(['catalog', 'update', 'Odd/upd', '--file', '-'], '{"sql": "SELECT 2"}');
    expect(r.code).toBe(0);
    const after = at('Odd', 'upd')!;
    expect(after).toMatchObject({ sql: 'SELECT 2', id: view.id });
    expect(after.tag).not.toBe(before);
    expect(r.stderr).toBe(`Updated Odd/upd (tag ${before} → ${after.tag}).\n`);
    expect(cells(r.stdout)[1]).toEqual(['Odd/upd', 'VIRTUAL', view.id, after.tag]);
    expect(writes().map((w) => [w.method, w.path, w.status])).toEqual([
      ['PUT', `/api/v3/catalog/${view.id}`, 200],
    ]);
  });

  it('a stale tag in the file: exit 5 with the current tag in the hint, nothing changed', async () => {
    const view = seedView(['Odd', 'stale'], 'SELECT 1');
    const r = await run(
      ['catalog', 'update', 'Odd/stale', '--file', '-'],
      '{"sql": "SELECT 9", "tag": "old-tag"}',
    );
    expectFailure(r, 5, `error: Tried to update version old-tag, found tag ${view.tag}`);
    expect(r.stderr).toContain(
      `hint: the entity changed since tag old-tag was read; its current tag is ${view.tag}`,
    );
    expect(at('Odd', 'stale')).toMatchObject({ sql: 'SELECT 1', tag: view.tag });
  });

  it('refuses a file for another entity or of another kind', async () => {
    const view = seedView(['Odd', 'other'], 'SELECT 1');
    expectFailure(
      await run(['catalog', 'update', 'Odd/other', '--file', '-'], '{"entityType": "space"}'),
      2,
      '--file (standard input) is a space, but Odd/other is a dataset',
    );
    expectFailure(
      await run(['catalog', 'update', 'Odd/other', '--file', '-'], '{"id": "someone-else"}'),
      2,
      `--file (standard input) is entity someone-else, but Odd/other is ${view.id}`,
    );
    expect(writes()).toEqual([]);
  });

  it('--dry-run shows the PUT with the tag and sends nothing', async () => {
    const view = seedView(['Odd', 'dry'], 'SELECT 1');
    const r = await run(
      ['catalog', 'update', 'Odd/dry', '--file', '-', '--dry-run', '-o', 'json'],
      '{"sql": "SELECT 3"}',
    );
    expect(json(r.stdout)).toMatchObject({
      dryRun: true,
      method: 'PUT',
      url: `${fx.emu.url}/api/v3/catalog/${view.id}`,
      body: { entityType: 'dataset', id: view.id, tag: view.tag, sql: 'SELECT 3', path: ['Odd', 'dry'] },
    });
    expect(writes()).toEqual([]);
    expect(at('Odd', 'dry')).toMatchObject({ sql: 'SELECT 1' });
  });
});

describe('delete', () => {
  it('without a terminal and without --yes: exit 2, nothing deleted', async () => {
    seed('space', ['Doomed']);
    seed('folder', ['Doomed', 'inside']);
    const r = await run(['catalog', 'delete', 'Doomed']);
    expectFailure(r, 2, 'error: refusing to delete space Doomed and everything in it without confirmation');
    expect(r.stderr).toContain('hint: pass --yes (-y) to confirm when there is no terminal');
    expect(at('Doomed')).toBeDefined();
    expect(writes()).toEqual([]);
  });

  it('--dry-run prints the DELETE with the tag and sends nothing', async () => {
    const space = at('Doomed')!;
    const r = await run(['catalog', 'rm', 'Doomed', '--dry-run', '-o', 'json']);
    expect(json(r.stdout)).toEqual({
      dryRun: true,
      method: 'DELETE',
      url: `${fx.emu.url}/api/v3/catalog/${space.id}?tag=${encodeURIComponent(space.tag)}`,
    });
    expect(writes()).toEqual([]);
  });

  it('with --yes deletes the space and its contents, sending the tag', async () => {
    const space = at('Doomed')!;
    const r = await run(['catalog', 'delete', 'Doomed', '--yes']);
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: 'Deleted space Doomed.\n' });
    expect(at('Doomed')).toBeUndefined();
    expect(at('Doomed', 'inside')).toBeUndefined();
    expect(writes().map((w) => [w.method, w.path, w.query, w.status])).toEqual([
      ['DELETE', `/api/v3/catalog/${space.id}`, { tag: space.tag }, 204],
    ]);
  });
});

describe('refresh', () => {
  it('refreshes a table (204); --dry-run sends nothing; a view is refused', async () => {
    const table = at('Samples', 'sales', '2024.csv')!;
    const dry = await run(['catalog', 'refresh', 'Samples/sales/2024.csv', '--dry-run']);
    expect(cells(dry.stdout)).toEqual([
      ['DRY RUN', 'URL', 'BODY'],
      ['POST', `${fx.emu.url}/api/v3/catalog/${table.id}/refresh`],
    ]);
    expect(writes()).toEqual([]);
    const r = await run(['catalog', 'refresh', 'Samples/sales/2024.csv']);
    expect(r).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'Requested a refresh of the reflections on Samples/sales/2024.csv.\n',
    });
    expect(writes().map((w) => [w.method, w.path, w.status])).toEqual([
      ['POST', `/api/v3/catalog/${table.id}/refresh`, 204],
    ]);
    expectFailure(
      await run(['catalog', 'refresh', 'Odd/upd']),
      2,
      'error: Odd/upd is a view: only physical datasets (tables) are refreshed',
    );
  });
});

describe('tags and wiki', () => {
  it('sets, reads and clears tags with the current version', async () => {
    const view = at('Sales', 'reports', 'q1')!;
    const none = await run(['catalog', 'tags', 'Sales/reports/q1']);
    expect(none).toMatchObject({ code: 0, stdout: '', stderr: 'Sales/reports/q1 has no tags.\n' });
    const set = await run(['catalog', 'tags', 'Sales/reports/q1', '--set', 'gold', '--set', 'finance']);
    expect(set.stdout).toBe('TAG\ngold\nfinance\n');
    expect(set.stderr).toBe('Tagged Sales/reports/q1: gold, finance.\n');
    const stored = store().labels.get(view.id)!;
    expect(stored.tags).toEqual(['gold', 'finance']);
    expect(json((await run(['catalog', 'tags', view.id, '-o', 'json'])).stdout)).toEqual({
      tags: ['gold', 'finance'],
      version: stored.version,
    });

    fx.emu.log.clear();
    const dry = await run(['catalog', 'tags', 'Sales/reports/q1', '--set', 'x', '--dry-run', '-o', 'json']);
    expect(json(dry.stdout).body).toEqual({ tags: ['x'], version: stored.version });
    expect(writes()).toEqual([]);

    const changed = await run(['catalog', 'tags', 'Sales/reports/q1', '--set', 'silver']);
    expect(changed.code).toBe(0);
    expect(store().labels.get(view.id)!.tags).toEqual(['silver']);
    expect(writes()).toHaveLength(1);
    await run(['catalog', 'tags', 'Sales/reports/q1', '--clear']);
    expect(store().labels.get(view.id)).toBeUndefined();
  });

  it('--set with --clear: a usage error before any request', async () => {
    const r = await run(['catalog', 'tags', 'Sales/reports/q1', '--set', 'gold', '--clear']);
    expectFailure(r, 2, "error: option '--clear' cannot be used with option '--set <tag>'");
    expect(r.stderr).toContain('usage: dlake catalog tags');
    expect(fx.emu.log.entries).toEqual([]);
  });

  it("tags on a folder: the service's 400, said clearly, exit 2", async () => {
    const read = await run(['catalog', 'tags', 'Sales/reports']);
    expectFailure(
      read,
      2,
      'error: cannot read the tags of Sales/reports: Labels may only be set on views, tables, spaces and sources.',
    );
    expect(read.stderr).toContain('hint: tags belong on sources, spaces and datasets');
    expectFailure(
      await run(['catalog', 'tags', 'Sales/reports', '--set', 'a']),
      2,
      'error: cannot tag Sales/reports:',
    );
    expect(writes()).toEqual([]);
  });

  it('writes and reads the wiki with its version', async () => {
    const space = at('Sales')!;
    expect(await run(['catalog', 'wiki', 'Sales'])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'Sales has no wiki text.\n',
    });
    const first = await run(['catalog', 'wiki', 'Sales', '--set-file', '-'], '# Sales\n\nAll about sales.\n');
    expect(first.stderr).toBe('Saved the wiki of Sales (version 0).\n');
    expect(cells(first.stdout)).toEqual([
      ['VERSION', 'CHARACTERS'],
      ['0', '25'],
    ]);
    const second = await run(['catalog', 'wiki', 'Sales', '--set-file', file('wiki.md', 'v2 text\n')]);
    expect(second.stderr).toBe('Saved the wiki of Sales (version 1).\n');
    expect(store().wikis.get(space.id)).toEqual({ text: 'v2 text\n', version: 1 });
    expect(await run(['catalog', 'wiki', 'Sales'])).toMatchObject({ code: 0, stdout: 'v2 text\n' });
    expect(json((await run(['catalog', 'wiki', 'Sales', '-o', 'json'])).stdout)).toEqual({
      text: 'v2 text\n',
      version: 1,
    });
    fx.emu.log.clear();
    const dry = await run(['catalog', 'wiki', 'Sales', '--set-file', '-', '--dry-run', '-o', 'json'], 'v3');
    expect(json(dry.stdout).body).toEqual({ text: 'v3', version: 1 });
    expect(writes()).toEqual([]);
  });
});

describe('permissions', () => {
  it('a 403 (a non-admin creating a space): exit 3, nothing created', async () => {
    const r = await fx.run(['catalog', 'create', '--file', '-', '-p', 'analyst'], {
      input: '{"entityType": "space", "name": "NotAllowed"}',
    });
    expectFailure(r, 3, 'error: permission denied: User not authorized.');
    expect(at('NotAllowed')).toBeUndefined();
    expect(fx.emu.log.entries.map((e) => [e.method, e.user, e.status])).toEqual([['POST', 'analyst', 403]]);
  });
});
