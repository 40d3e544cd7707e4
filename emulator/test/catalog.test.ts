// The emulator's catalog area over HTTP: entity writes and reads, by-path lookups with awkward components,
// children paging, tags and versions, collaboration data, NAS sources and source secrets.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogArea } from '../src/catalog.js';
import { type Emulator, startEmulator } from '../src/server.js';
import { call as request } from './call.js';

const SAMPLES = resolve(import.meta.dirname, '../../test/fixtures/samples');
const PLACEHOLDER = '$SERVICE_EXISTING_VALUE$';

let emu: Emulator;
let tmp: string;
let admin: string;
let analyst: string;

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely in assertions
type Json = Record<string, any>;
interface Reply {
  status: number;
  body: Json;
}

async function call(method: string, path: string, body?: unknown, token = admin): Promise<Reply> {
  const r = await request(emu, method, path, { auth: `_service${token}`, json: body });
  return { status: r.status, body: r.text ? JSON.parse(r.text) : {} };
}

const get = (path: string, token?: string) => call('GET', path, undefined, token);
const post = (path: string, body: unknown, token?: string) => call('POST', path, body, token);
const put = (path: string, body: unknown, token?: string) => call('PUT', path, body, token);
const del = (path: string, token?: string) => call('DELETE', path, undefined, token);
const byPath = (...components: string[]) =>
  `/api/v3/catalog/by-path/${components.map(encodeURIComponent).join('/')}`;
const byId = (id: string) => `/api/v3/catalog/${encodeURIComponent(id)}`;

async function login(userName: string, password: string): Promise<string> {
  const res = await fetch(`${emu.url}/apiv2/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ userName, password }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

async function createSpace(name: string): Promise<Json> {
  const r = await post('/api/v3/catalog', { entityType: 'space', name });
  expect(r.status).toBe(200);
  return r.body;
}

const catalog = (): CatalogArea => emu.catalog;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'dlake-catalog-'));
  cpSync(SAMPLES, join(tmp, 'live'), { recursive: true });
  emu = await startEmulator({ samplesDir: SAMPLES });
  admin = await login('admin', 'admin-pass-1');
  analyst = await login('analyst', 'analyst-pass-1');
});

afterAll(async () => {
  await emu?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('top level and spaces', () => {
  it('lists the caller home, spaces and sources', async () => {
    await createSpace('Top');
    const r = await get('/api/v3/catalog');
    expect(r.status).toBe(200);
    const items = r.body.data as Json[];
    expect(items[0]).toMatchObject({ path: ['@admin'], type: 'CONTAINER', containerType: 'HOME' });
    expect(items.find((i) => i.path[0] === 'Top')).toMatchObject({
      containerType: 'SPACE',
      tag: expect.any(String),
    });
    expect(items.find((i) => i.path[0] === 'Samples')).toMatchObject({ containerType: 'SOURCE' });
    const mine = await get('/api/v3/catalog', analyst);
    expect((mine.body.data as Json[]).map((i) => i.path[0])).toContain('@analyst');
    expect((mine.body.data as Json[]).map((i) => i.path[0])).not.toContain('@admin');
  });

  it('creates a space with an ACL and empty children, refusing clashes and bad names', async () => {
    const space = await createSpace('Finance');
    expect(space).toMatchObject({ entityType: 'space', name: 'Finance', children: [] });
    expect(space.accessControlList).toEqual({ version: '0', users: [] });
    expect(space.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const dup = await post('/api/v3/catalog', { entityType: 'space', name: 'finance' });
    expect(dup).toEqual({
      status: 409,
      body: { errorMessage: 'A space with the name [finance] already exists.' },
    });
    const dotted = await post('/api/v3/catalog', { entityType: 'space', name: 'a.b' });
    expect(dotted.status).toBe(400);
    expect(dotted.body.errorMessage).toBe(
      'Invalid input \nname: Space name can not contain periods, double quotes or @.',
    );
    expect((await post('/api/v3/catalog', { entityType: 'space', name: '@me' })).body.errorMessage).toBe(
      'Space @me can not start with @',
    );
    expect(
      (await post('/api/v3/catalog', { entityType: 'space', name: 'X', id: 'x' })).body.errorMessage,
    ).toBe('Space id is immutable.');
    expect((await post('/api/v3/catalog', { entityType: 'home', name: 'X' })).body.errorMessage).toBe(
      'Catalog item of type [Home] can not be created.',
    );
  });

  it('answers 403 to a non-admin creating a space or a source, or deleting a space', async () => {
    expect((await post('/api/v3/catalog', { entityType: 'space', name: 'Mine' }, analyst)).body).toEqual({
      errorMessage: 'User not authorized.',
      moreInfo: '',
    });
    const src = await post(
      '/api/v3/catalog',
      { entityType: 'source', name: 'S', type: 'NAS', config: { path: tmp } },
      analyst,
    );
    expect(src.status).toBe(403);
    const space = await createSpace('Guarded');
    expect((await del(`/api/v3/catalog/${space.id}`, analyst)).status).toBe(403);
    // …but a user may create folders inside a space.
    expect(
      (await post('/api/v3/catalog', { entityType: 'folder', path: ['Guarded', 'f'] }, analyst)).status,
    ).toBe(200);
  });

  it('answers 401 with an empty body without credentials', async () => {
    const res = await fetch(`${emu.url}/api/v3/catalog`);
    expect(res.status).toBe(401);
    expect(await res.text()).toBe('');
  });
});

describe('folders, views and lookups', () => {
  it('creates folders with the service rules', async () => {
    await createSpace('Eng');
    const f = await post('/api/v3/catalog', { entityType: 'folder', path: ['Eng', 'raw'] });
    expect(f.status).toBe(200);
    expect(f.body).toMatchObject({ entityType: 'folder', path: ['Eng', 'raw'], children: [] });
    expect(f.body.createdAt).toBeUndefined();

    const dup = await post('/api/v3/catalog', { entityType: 'folder', path: ['Eng', 'RAW'] });
    expect(dup.status).toBe(409);
    expect(dup.body.errorMessage).toBe(
      'The current location already contains a folder named "RAW". Please use a unique name for the new folder.',
    );
    const missing = await post('/api/v3/catalog', { entityType: 'folder', path: ['Eng', 'nope', 'x'] });
    expect(missing).toMatchObject({
      status: 400,
      body: { errorMessage: 'Could not find entity with path [[Eng, nope]].' },
    });
    const inSource = await post('/api/v3/catalog', { entityType: 'folder', path: ['Samples', 'x'] });
    expect(inSource.body.errorMessage).toBe('Can not create a folder inside a [SOURCE].');
    const short = await post('/api/v3/catalog', { entityType: 'folder', path: ['Eng'] });
    expect(short.body.errorMessage).toBe('Folder path should be fully qualified.');
  });

  it('creates a view with awkward characters and finds it by path and by id', async () => {
    const name = 'q1/q2 "best".v2 100% #1? ünï';
    const r = await post('/api/v3/catalog', {
      entityType: 'dataset',
      type: 'VIRTUAL_DATASET',
      path: ['Eng', 'raw', name],
      sql: 'SELECT 1 AS one',
      sqlContext: ['Eng'],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      entityType: 'dataset',
      type: 'VIRTUAL_DATASET',
      path: ['Eng', 'raw', name],
    });

    const found = await get(byPath('eng', 'Raw', name));
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ id: r.body.id, sql: 'SELECT 1 AS one', sqlContext: ['Eng'] });
    expect((await get(byId(r.body.id))).body.path).toEqual(['Eng', 'raw', name]);

    const listing = await get(byPath('Eng', 'raw'));
    expect(listing.body.children).toEqual([
      {
        id: r.body.id,
        path: ['Eng', 'raw', name],
        tag: r.body.tag,
        type: 'DATASET',
        datasetType: 'VIRTUAL',
        createdAt: r.body.createdAt,
      },
    ]);
    const clash = await post('/api/v3/catalog', {
      entityType: 'dataset',
      type: 'VIRTUAL_DATASET',
      path: ['Eng', 'raw', name],
      sql: 'SELECT 2',
    });
    expect(clash.status).toBe(409);
  });

  it('applies the view rules of the service', async () => {
    const v = (extra: Json) =>
      post('/api/v3/catalog', {
        entityType: 'dataset',
        type: 'VIRTUAL_DATASET',
        path: ['Eng', 'v'],
        sql: 'SELECT 1',
        ...extra,
      });
    expect((await v({ type: 'PHYSICAL_DATASET' })).body.errorMessage).toBe(
      'Physical Datasets can only be created by promoting other entities.',
    );
    expect((await v({ sql: '  ' })).body.errorMessage).toBe('Virtual dataset cannot have empty sql defined.');
    expect((await v({ sql: undefined })).body.errorMessage).toBe('Virtual dataset must have sql defined.');
    expect((await v({ path: ['Eng'] })).body.errorMessage).toBe('Dataset path should be fully qualified.');
    expect((await v({ format: { type: 'Text' } })).body.errorMessage).toBe(
      'Virtual dataset cannot have a format defined.',
    );
    expect((await v({ path: ['Samples', 'v'] })).body.errorMessage).toBe(
      'Virtual datasets can only be saved into spaces, home space or versioned sources.',
    );
    expect((await v({ entityType: 'nonsense' })).body.errorMessage).toBe(
      'An invalid value was found: nonsense',
    );
    // Views in one's own home are fine for anyone.
    const home = await post(
      '/api/v3/catalog',
      { entityType: 'dataset', type: 'VIRTUAL_DATASET', path: ['@analyst', 'mine'], sql: 'SELECT 1' },
      analyst,
    );
    expect(home.status).toBe(200);
    const other = await post(
      '/api/v3/catalog',
      { entityType: 'dataset', type: 'VIRTUAL_DATASET', path: ['@admin', 'theirs'], sql: 'SELECT 1' },
      analyst,
    );
    expect(other.status).toBe(403);
  });

  it('answers not found with the service texts', async () => {
    expect(await get(byPath('Nope', 'a.b'))).toEqual({
      status: 404,
      body: { errorMessage: 'Could not find entity with path [[Nope, a.b]]', moreInfo: '' },
    });
    const id = '00000000-0000-4000-8000-000000000000';
    expect((await get(byId(id))).body.errorMessage).toBe(`Could not find entity with id [${id}]`);
    expect((await del(byId(id))).body.errorMessage).toBe(`Could not find entity with id [${id}].`);
  });
});

describe('children paging', () => {
  let space: Json;
  beforeAll(async () => {
    space = await createSpace('Paged');
    for (const name of ['e', 'b', 'D', 'a', 'c']) {
      expect((await post('/api/v3/catalog', { entityType: 'folder', path: ['Paged', name] })).status).toBe(
        200,
      );
    }
  });

  it('pages by maxChildren with opaque tokens, in name order', async () => {
    const names: string[] = [];
    let url = `${byPath('Paged')}?maxChildren=2`;
    const tokens: string[] = [];
    for (;;) {
      const r = await get(url);
      expect(r.status).toBe(200);
      names.push(...(r.body.children as Json[]).map((c) => c.path[1]));
      if (!r.body.nextPageToken) break;
      tokens.push(r.body.nextPageToken);
      url = `/api/v3/catalog/${space.id}?maxChildren=2&pageToken=${encodeURIComponent(r.body.nextPageToken)}`;
    }
    expect(names).toEqual(['a', 'b', 'c', 'D', 'e']);
    expect(tokens).toHaveLength(2);
    expect(JSON.parse(Buffer.from(tokens[0]!, 'base64url').toString())).toEqual({
      path: 'Paged',
      pageToken: 'c',
    });
    expect(tokens[0]).not.toMatch(/[=+/]/);
  });

  it('gives all children without maxChildren, none with 0 or exclude=children', async () => {
    expect((await get(byPath('Paged'))).body.children).toHaveLength(5);
    expect((await get(byPath('Paged'))).body.nextPageToken).toBeUndefined();
    expect((await get(`${byPath('Paged')}?maxChildren=0`)).body.children).toEqual([]);
    expect((await get(`${byPath('Paged')}?exclude=children`)).body).not.toHaveProperty('children');
  });

  it('refuses bad tokens and tokens of another parent', async () => {
    const bad = await get(`${byPath('Paged')}?maxChildren=2&pageToken=%25%25`);
    expect(bad).toMatchObject({ status: 400, body: { errorMessage: 'Failed to parse pagination token.' } });
    const first = await get(`${byPath('Paged')}?maxChildren=2`);
    const other = await get(`${byPath('Eng')}?maxChildren=2&pageToken=${first.body.nextPageToken}`);
    expect(other.status).toBe(400);
    expect(other.body.errorMessage).toBe('Passed path [[Eng]] does not match previous path [[Paged]]');
  });
});

describe('updates and deletes', () => {
  it('updates a space with its tag and refuses stale tags and renames', async () => {
    const s = await createSpace('Ops');
    const up = await put(`/api/v3/catalog/${s.id}`, {
      entityType: 'space',
      id: s.id,
      name: 'Ops',
      tag: s.tag,
    });
    expect(up.status).toBe(200);
    expect(up.body.tag).not.toBe(s.tag);
    expect(up.body).not.toHaveProperty('children');
    const stale = await put(`/api/v3/catalog/${s.id}`, {
      entityType: 'space',
      id: s.id,
      name: 'Ops',
      tag: s.tag,
    });
    expect(stale).toEqual({
      status: 409,
      body: { errorMessage: `tried to update version ${s.tag}, found previous version ${up.body.tag}` },
    });
    const rename = await put(`/api/v3/catalog/${s.id}`, {
      entityType: 'space',
      id: s.id,
      name: 'Ops2',
      tag: up.body.tag,
    });
    expect(rename).toMatchObject({ status: 404, body: { errorMessage: 'Space name is immutable.' } });
    const ids = await put(`/api/v3/catalog/${s.id}`, {
      entityType: 'space',
      id: 'other',
      name: 'Ops',
      tag: up.body.tag,
    });
    expect(ids.body.errorMessage).toBe('Ids must match.');
  });

  it('moves and edits a view, keeping its id', async () => {
    await post('/api/v3/catalog', { entityType: 'folder', path: ['Ops', 'archive'] });
    const v = await post('/api/v3/catalog', {
      entityType: 'dataset',
      type: 'VIRTUAL_DATASET',
      path: ['Ops', 'v1'],
      sql: 'SELECT 1',
    });
    const body = { ...v.body, path: ['Ops', 'archive', 'v2'], sql: 'SELECT 2' };
    const moved = await put(`/api/v3/catalog/${v.body.id}`, body);
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: v.body.id, path: ['Ops', 'archive', 'v2'], sql: 'SELECT 2' });
    expect((await get(byPath('Ops', 'v1'))).status).toBe(404);
    const stale = await put(`/api/v3/catalog/${v.body.id}`, body);
    expect(stale.body.errorMessage).toBe(
      `Tried to update version ${v.body.tag}, found tag ${moved.body.tag}`,
    );
    const retype = await put(`/api/v3/catalog/${v.body.id}`, { ...moved.body, type: 'PHYSICAL_DATASET' });
    expect(retype).toMatchObject({ status: 404, body: { errorMessage: 'Dataset type can not be modified' } });
  });

  it('keeps folder paths immutable', async () => {
    const f = await get(byPath('Ops', 'archive'));
    const r = await put(`/api/v3/catalog/${f.body.id}`, {
      entityType: 'folder',
      id: f.body.id,
      path: ['Ops', 'x'],
      tag: f.body.tag,
    });
    expect(r).toMatchObject({ status: 404, body: { errorMessage: 'Folder path is immutable.' } });
  });

  it('deletes with a tag check, taking the contents along', async () => {
    const s = await get(byPath('Ops'));
    const stale = await del(`/api/v3/catalog/${s.body.id}?tag=old`);
    expect(stale).toEqual({
      status: 409,
      body: { errorMessage: `Cannot delete, expected tag old but found tag ${s.body.tag}` },
    });
    const view = await get(byPath('Ops', 'archive', 'v2'));
    expect((await del(`/api/v3/catalog/${s.body.id}?tag=${encodeURIComponent(s.body.tag)}`)).status).toBe(
      204,
    );
    expect((await get(`/api/v3/catalog/${view.body.id}`)).status).toBe(404);
    expect((await get(byPath('Ops'))).status).toBe(404);
  });
});

describe('tags and wiki', () => {
  let space: Json;
  let folder: Json;
  beforeAll(async () => {
    space = await createSpace('Collab');
    folder = (await post('/api/v3/catalog', { entityType: 'folder', path: ['Collab', 'f'] })).body;
  });

  it('versions tags as strings and refuses stale versions', async () => {
    const url = `/api/v3/catalog/${space.id}/collaboration/tag`;
    expect(await get(url)).toMatchObject({
      status: 404,
      body: { errorMessage: `No tags found for entity [${space.id}]` },
    });
    const first = await post(url, { tags: ['gold', 'pii'] });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ tags: ['gold', 'pii'], version: expect.any(String) });
    expect((await get(url)).body).toEqual(first.body);

    const noVersion = await post(url, { tags: ['x'] });
    expect(noVersion).toEqual({
      status: 409,
      body: { errorMessage: `Tried to create, found tag ${first.body.version}` },
    });
    const second = await post(url, { tags: ['gold'], version: first.body.version });
    expect(second.body.version).not.toBe(first.body.version);
    const stale = await post(url, { tags: ['x'], version: first.body.version });
    expect(stale.body.errorMessage).toBe(
      `Tried to update version ${first.body.version}, found tag ${second.body.version}`,
    );

    const long = 'x'.repeat(129);
    expect((await post(url, { tags: [long], version: second.body.version })).body.errorMessage).toBe(
      `Tags must be at most 128 characters in length, but found [${long}] which is [129] long.`,
    );
    expect((await post(url, { tags: ['a', 'A'], version: second.body.version })).body.errorMessage).toBe(
      'Tags must be unique but found multiple instances of [A].',
    );
    // Clearing removes them: GET is the "no tags" 404 again.
    expect((await post(url, { tags: [], version: second.body.version })).body).toEqual({ tags: [] });
    expect((await get(url)).status).toBe(404);
  });

  it('refuses tags on folders with a 400', async () => {
    const r = await post(`/api/v3/catalog/${folder.id}/collaboration/tag`, { tags: ['x'] });
    expect(r).toMatchObject({
      status: 400,
      body: { errorMessage: 'Labels may only be set on views, tables, spaces and sources.' },
    });
    expect((await get(`/api/v3/catalog/${folder.id}/collaboration/tag`)).status).toBe(400);
  });

  it('versions the wiki from 0 and refuses mismatches', async () => {
    const url = `/api/v3/catalog/${folder.id}/collaboration/wiki`;
    expect(await get(url)).toMatchObject({
      status: 404,
      body: { errorMessage: `No wiki found for entity [${folder.id}]` },
    });
    expect((await post(url, { text: '# Hello', version: 7 })).body).toEqual({ text: '# Hello', version: 0 });
    expect((await post(url, { text: '# Hello again', version: 0 })).body).toEqual({
      text: '# Hello again',
      version: 1,
    });
    const stale = await post(url, { text: 'x', version: 0 });
    expect(stale).toEqual({
      status: 409,
      body: { errorMessage: 'The provided version [0] does not match the stored version [1].' },
    });
    expect((await post(url, { text: 'x' })).body.errorMessage).toBe(
      'The provided version [null] does not match the stored version [1].',
    );
    expect((await get(url)).body).toEqual({ text: '# Hello again', version: 1 });
  });
});

describe('NAS sources', () => {
  it('lists the files and folders of the Samples folder live', async () => {
    const r = await get(`${byPath('Samples')}?maxChildren=1`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      entityType: 'source',
      type: 'NAS',
      state: { status: 'good', messages: [] },
    });
    // Filesystem sources ignore maxChildren.
    expect(r.body.nextPageToken).toBeUndefined();
    const kids = r.body.children as Json[];
    expect(kids.map((c) => c.path.at(-1))).toEqual([
      'customers.json',
      'events.parquet',
      'nested',
      'Q1 report.final.csv',
      'sales',
    ]);
    expect(kids.find((c) => c.path[1] === 'sales')).toEqual({
      id: 'service:/Samples/sales',
      path: ['Samples', 'sales'],
      type: 'CONTAINER',
      containerType: 'FOLDER',
    });
    expect(kids.find((c) => c.path[1] === 'customers.json')).toEqual({
      id: 'service:/Samples/customers.json',
      path: ['Samples', 'customers.json'],
      type: 'FILE',
    });
  });

  it('resolves internal ids and by-path lookups of files with spaces and dots', async () => {
    const dir = await get(byId('service:/Samples/nested/deeper'));
    expect(dir.body).toEqual({
      entityType: 'folder',
      id: 'service:/Samples/nested/deeper',
      path: ['Samples', 'nested', 'deeper'],
      children: [
        {
          id: 'service:/Samples/nested/deeper/readme.csv',
          path: ['Samples', 'nested', 'deeper', 'readme.csv'],
          type: 'FILE',
        },
      ],
    });
    const file = await get(byPath('Samples', 'Q1 report.final.csv'));
    expect(file.body).toEqual({
      entityType: 'file',
      id: 'service:/Samples/Q1 report.final.csv',
      path: ['Samples', 'Q1 report.final.csv'],
    });
    expect((await get(byPath('Samples', '..', 'etc'))).status).toBe(404);
  });

  it('promotes a file to a table, refreshes it and unpromotes it on delete', async () => {
    const id = 'service:/Samples/sales/2024.csv';
    const path = ['Samples', 'sales', '2024.csv'];
    const wrong = await post(byId(id), {
      entityType: 'dataset',
      type: 'PHYSICAL_DATASET',
      path,
      format: { type: 'Parquet' },
    });
    expect(wrong.status).toBe(400);
    const noFormat = await post(byId(id), { entityType: 'dataset', type: 'PHYSICAL_DATASET', path });
    expect(noFormat.body.errorMessage).toBe('To promote a dataset, format settings are required.');
    const mismatch = await post(byId(id), {
      entityType: 'dataset',
      type: 'PHYSICAL_DATASET',
      path: ['Samples', 'x'],
      format: { type: 'Text' },
    });
    expect(mismatch.body.errorMessage).toBe('Entity id does not match the path specified in the dataset.');

    const r = await post(byId(id), {
      entityType: 'dataset',
      type: 'PHYSICAL_DATASET',
      path,
      format: { type: 'Text', extractHeader: true },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      entityType: 'dataset',
      type: 'PHYSICAL_DATASET',
      path,
      format: { type: 'Text', fieldDelimiter: ',', extractHeader: true, isFolder: false },
    });
    expect(r.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect((r.body.fields as Json[]).map((f) => f.name)).toEqual(['region', 'product', 'units', 'price']);

    const listed = await get(byPath('Samples', 'sales'));
    expect((listed.body.children as Json[]).find((c) => c.path[2] === '2024.csv')).toMatchObject({
      id: r.body.id,
      type: 'DATASET',
      datasetType: 'PROMOTED',
    });
    expect((await post(`/api/v3/catalog/${r.body.id}/refresh`, {})).status).toBe(204);
    expect((await post(`/api/v3/catalog/${r.body.id}/refresh`, {}, analyst)).status).toBe(403);
    const ds = catalog().datasets();
    expect(ds.find((d) => d.id === r.body.id)).toMatchObject({
      kind: 'file',
      format: 'csv',
      filePath: join(SAMPLES, 'sales', '2024.csv'),
      csv: { delimiter: ',', header: true, skipFirstLine: false },
    });

    expect((await del(`/api/v3/catalog/${r.body.id}`)).status).toBe(204);
    expect((await get(byPath(...path))).body).toEqual({ entityType: 'file', id, path });
  });

  it('promotes a folder and parquet files; refresh of anything else is 404', async () => {
    const folder = await post(byId('service:/Samples/sales'), {
      entityType: 'dataset',
      type: 'PHYSICAL_DATASET',
      path: ['Samples', 'sales'],
      format: { type: 'Text', extractHeader: true },
    });
    expect(folder.body.format).toMatchObject({ isFolder: true });
    const parquet = await post(byId('service:/Samples/events.parquet'), {
      entityType: 'dataset',
      type: 'PHYSICAL_DATASET',
      path: ['Samples', 'events.parquet'],
      format: { type: 'Parquet' },
    });
    expect(parquet.status).toBe(200);
    expect(parquet.body.fields).toEqual([
      { name: 'id', type: { name: 'BIGINT' } },
      { name: 'ts', type: { name: 'TIMESTAMP' } },
      { name: 'kind', type: { name: 'VARCHAR' } },
      { name: 'value', type: { name: 'DOUBLE' } },
      { name: 'flagged', type: { name: 'BOOLEAN' } },
    ]);
    const json = await post(byId('service:/Samples/customers.json'), {
      entityType: 'dataset',
      type: 'PHYSICAL_DATASET',
      path: ['Samples', 'customers.json'],
      format: { type: 'JSON' },
    });
    expect((json.body.fields as Json[]).map((f) => f.name)).toEqual([
      'id',
      'name',
      'country',
      'signup',
      'vip',
    ]);
    const space = await get(byPath('Eng'));
    expect(await post(`/api/v3/catalog/${space.body.id}/refresh`, {})).toMatchObject({
      status: 404,
      body: { errorMessage: `Could not find dataset with id [${space.body.id}].` },
    });
    const deleteFile = await del(byId('service:/Samples/Q1 report.final.csv'));
    expect(deleteFile.body.errorMessage).toBe(
      'Catalog item [service:/Samples/Q1 report.final.csv] of type [File] can not be deleted.',
    );
    // Tags are allowed on tables.
    expect(
      (await post(`/api/v3/catalog/${parquet.body.id}/collaboration/tag`, { tags: ['events'] })).status,
    ).toBe(200);
    const fields = [{ name: 'n', type: { name: 'BIGINT' } }];
    catalog().recordFields(['samples', 'EVENTS.parquet'], fields);
    expect((await get(`/api/v3/catalog/${parquet.body.id}`)).body).toMatchObject({
      fields,
      tag: parquet.body.tag,
    });
  });

  it('reads a NAS folder live and reports a missing folder as a bad state', async () => {
    const live = join(tmp, 'live');
    const src = await post('/api/v3/catalog', {
      entityType: 'source',
      name: 'Live',
      type: 'NAS',
      config: { path: live },
    });
    expect(src.status).toBe(200);
    expect((src.body.children as Json[]).some((c) => c.path[1] === 'new.csv')).toBe(false);
    writeFileSync(join(live, 'new.csv'), 'a,b\n1,2\n');
    const again = await get(byPath('Live'));
    expect((again.body.children as Json[]).some((c) => c.path[1] === 'new.csv')).toBe(true);

    const gone = await post('/api/v3/catalog', {
      entityType: 'source',
      name: 'Gone',
      type: 'NAS',
      config: { path: join(tmp, 'nope') },
    });
    expect(gone.status).toBe(200);
    expect(gone.body.state.status).toBe('bad');
    expect(gone.body.state.messages[0].level).toBe('ERROR');
    expect(gone.body.children).toEqual([]);
  });
});

describe('sources', () => {
  it('hides secrets, keeps them on the placeholder and replaces them on a new value', async () => {
    const created = await post('/api/v3/catalog', {
      entityType: 'source',
      name: 'pg',
      type: 'POSTGRES',
      config: {
        hostname: 'db',
        port: '5432',
        username: 'u',
        password: 's3cret',
        authenticationType: 'MASTER',
        databaseName: 'd',
      },
    });
    expect(created.status).toBe(200);
    expect(created.body.config).toEqual({
      hostname: 'db',
      port: 5432,
      username: 'u',
      password: PLACEHOLDER,
      authenticationType: 'MASTER',
      databaseName: 'd',
    });
    expect(created.body.metadataPolicy).toEqual({
      authTTLMs: 86400000,
      namesRefreshMs: 3600000,
      datasetRefreshAfterMs: 3600000,
      datasetExpireAfterMs: 10800000,
      datasetUpdateMode: 'PREFETCH_QUERIED',
      deleteUnavailableDatasets: true,
      autoPromoteDatasets: false,
    });
    expect(created.body).toMatchObject({
      accelerationGracePeriodMs: 0,
      accelerationRefreshPeriodMs: 0,
      accelerationNeverExpire: false,
      accelerationNeverRefresh: false,
      state: { status: 'good', messages: [] },
      accessControlList: { version: '0', users: [] },
    });
    const store = catalog().store;
    expect(store.sourceConfig('pg')?.password).toBe('s3cret');

    const kept = await put(`/api/v3/catalog/${created.body.id}`, {
      ...created.body,
      config: { ...created.body.config, hostname: 'db2' },
    });
    expect(kept.status).toBe(200);
    expect(kept.body.config.password).toBe(PLACEHOLDER);
    expect(store.sourceConfig('pg')).toMatchObject({ hostname: 'db2', password: 's3cret' });

    const replaced = await put(`/api/v3/catalog/${created.body.id}`, {
      ...kept.body,
      config: { ...kept.body.config, password: 'n3w' },
    });
    expect(replaced.status).toBe(200);
    expect(store.sourceConfig('pg')?.password).toBe('n3w');

    const stale = await put(`/api/v3/catalog/${created.body.id}`, kept.body);
    expect(stale).toEqual({
      status: 409,
      body: {
        errorMessage: `Source [pg] has been updated, and the given configuration is out of date (current tag: ${replaced.body.tag}, given: ${kept.body.tag})`,
      },
    });
    const renamed = await put(`/api/v3/catalog/${created.body.id}`, { ...replaced.body, name: 'pg2' });
    expect(renamed).toMatchObject({ status: 404, body: { errorMessage: 'Source name is immutable.' } });
    const dup = await post('/api/v3/catalog', {
      entityType: 'source',
      name: 'PG',
      type: 'NAS',
      config: { path: tmp },
    });
    expect(dup).toEqual({
      status: 409,
      body: { errorMessage: 'A source with the name [PG] already exists.' },
    });
  });

  it('accepts every type code of the spec and masks each secret field', async () => {
    const cases: Array<[string, Json, string[]]> = [
      [
        'AMAZONELASTIC',
        { hostname: 'h', port: 443, authenticationType: 'ACCESS_KEY', accessKey: 'AK', accessSecret: 's' },
        ['accessSecret'],
      ],
      [
        'REDSHIFT',
        { username: 'u', password: 'p', authenticationType: 'MASTER', connectionString: 'jdbc:x' },
        ['password'],
      ],
      [
        'S3',
        { accessKey: 'AK', accessSecret: 's', secure: true, externalBucketList: ['b'] },
        ['accessSecret'],
      ],
      [
        'ADLS',
        {
          mode: 'CLIENT_KEY',
          accountName: 'a',
          clientId: 'c',
          clientKeyRefreshUrl: 'u',
          clientKeyPassword: 'p',
        },
        ['clientKeyPassword'],
      ],
      [
        'ADL',
        {
          mode: 'CLIENT_KEY',
          accountName: 'a',
          clientId: 'c',
          clientKeyRefreshUrl: 'u',
          clientKeyPassword: 'p',
        },
        ['clientKeyPassword'],
      ],
      [
        'AZURE_STORAGE',
        { accountKind: 'STORAGE_V2', accountName: 'a', accessKey: 'k', enableSSL: true, rootPath: '/' },
        ['accessKey'],
      ],
      [
        'ELASTIC',
        {
          username: 'u',
          password: 'p',
          hostList: [{ hostname: 'h', port: 9200 }],
          authenticationType: 'MASTER',
        },
        ['password'],
      ],
      ['HDFS', { hostname: 'h', port: 8020, rootPath: '/', enableImpersonation: false }, []],
      ['HIVE', { hostname: 'h', port: 9083, kerberosPrincipal: '' }, []],
      ['MAPRFS', { clusterName: 'c', enableImpersonation: false, secure: false, rootPath: '/' }, []],
      [
        'MSSQL',
        { username: 'u', password: 'p', hostname: 'h', port: 1433, authenticationType: 'MASTER' },
        ['password'],
      ],
      [
        'MONGO',
        {
          username: 'u',
          password: 'p',
          hostList: [{ hostname: 'h', port: 27017 }],
          authenticationType: 'MASTER',
        },
        ['password'],
      ],
      [
        'MYSQL',
        { username: 'u', password: 'p', hostname: 'h', port: 3306, authenticationType: 'MASTER' },
        ['password'],
      ],
      [
        'ORACLE',
        {
          username: 'u',
          password: 'p',
          instance: 'ORCL',
          hostname: 'h',
          port: 1521,
          authenticationType: 'MASTER',
        },
        ['password'],
      ],
      ['HBASE', { zkQuorum: 'a,b', port: 2181, isSizeCalcEnabled: false }, []],
      [
        'DB2',
        {
          username: 'u',
          password: 'p',
          hostname: 'h',
          port: 50000,
          databaseName: 'd',
          authenticationType: 'MASTER',
        },
        ['password'],
      ],
    ];
    for (const [type, config, secrets] of cases) {
      const r = await post('/api/v3/catalog', { entityType: 'source', name: `src_${type}`, type, config });
      expect(r.status, type).toBe(200);
      for (const s of secrets) expect(r.body.config[s], `${type}.${s}`).toBe(PLACEHOLDER);
      expect(r.body.config.accessKey, type).toBe(type === 'AZURE_STORAGE' ? PLACEHOLDER : config.accessKey);
    }
    const unknown = await post('/api/v3/catalog', {
      entityType: 'source',
      name: 'x',
      type: 'FANCYDB',
      config: {},
    });
    expect(unknown).toMatchObject({
      status: 400,
      body: { errorMessage: 'An invalid value was found: FANCYDB' },
    });
    const badEnum = await post('/api/v3/catalog', {
      entityType: 'source',
      name: 'y',
      type: 'MYSQL',
      config: { authenticationType: 'KERBEROS' },
    });
    expect(badEnum.body.errorMessage).toBe('Invalid value found at: config.authenticationType');
    const policy = await post('/api/v3/catalog', {
      entityType: 'source',
      name: 'z',
      type: 'S3',
      config: {},
      metadataPolicy: { authTTLMs: 1000 },
    });
    expect(policy.body.errorMessage).toBe(
      'Source metadata policy authTTLMs must be greater than or equal to 60000.',
    );
    const badName = await post('/api/v3/catalog', {
      entityType: 'source',
      name: 'a.b',
      type: 'S3',
      config: {},
    });
    expect(badName.body.errorMessage).toBe(
      'Invalid input \nname: Source name can not contain periods, double quotes or @.',
    );
  });

  it('deletes a source with its tables', async () => {
    const s = await get(byPath('src_S3'));
    expect((await del(`/api/v3/catalog/${s.body.id}?tag=${encodeURIComponent(s.body.tag)}`)).status).toBe(
      204,
    );
    expect((await get(`/api/v3/catalog/${s.body.id}`)).status).toBe(404);
  });
});
