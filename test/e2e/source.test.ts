// `dlake source …` end to end: configs validated per type before sending, secrets kept on update and never
// printed, and the emulator's stored (unmasked) configs and request log checked after every command.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CatalogStore } from 'dlake-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANALYST, expectFailure, type Fixture, startFixture, useFixture } from '../helpers/fixture.js';

const SAMPLES = resolve(import.meta.dirname, '../fixtures/samples');
const PLACEHOLDER = '$SERVICE_EXISTING_VALUE$';
const PASSWORD = 'pg-Secret-Value-7f3';
const NEW_PASSWORD = 'rotated-Secret-9c1';

let tmp: string;

const fx = useFixture({ samplesDir: SAMPLES });
beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'dlake-source-e2e-'));
  expect((await fx.login(ANALYST, 'analyst')).code).toBe(0);
});
afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true });
});

const store = (): CatalogStore => fx.emu.catalog.store;
const run = (args: string[], input?: string) => fx.run(args, { input });
const writes = () => fx.emu.log.entries.filter((e) => e.method !== 'GET');
const cells = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .map((l) => l.split(/ {2,}/));
const json = (text: string) => JSON.parse(text);
function file(name: string, content: unknown): string {
  const p = join(tmp, name);
  writeFileSync(p, JSON.stringify(content));
  return p;
}
function expectNoSecret(...texts: string[]): void {
  for (const t of texts) {
    expect(t).not.toContain(PASSWORD);
    expect(t).not.toContain(NEW_PASSWORD);
  }
}

const PG = {
  hostname: 'db.example.com',
  port: 5432,
  databaseName: 'sales',
  authenticationType: 'MASTER',
  username: 'etl',
  password: PASSWORD,
};

describe('types', () => {
  it('lists every type of the spec with deprecations and the ADL spelling, without a request', async () => {
    const r = await run(['source', 'types']);
    expect(r.code).toBe(0);
    const rows = cells(r.stdout);
    expect(rows[0]).toEqual(['TYPE', 'NAME', 'NOTE']);
    expect(rows.map((row) => row[0])).toEqual([
      'TYPE',
      'AMAZONELASTIC',
      'REDSHIFT',
      'S3',
      'ADLS',
      'AZURE_STORAGE',
      'ELASTIC',
      'HDFS',
      'HIVE',
      'MAPRFS',
      'MSSQL',
      'MONGO',
      'MYSQL',
      'NAS',
      'ORACLE',
      'POSTGRES',
      'HBASE',
      'DB2',
      'ADL',
    ]);
    expect(rows).toContainEqual(['HBASE', 'HBase', 'deprecated: not supported for new sources']);
    expect(rows).toContainEqual(['ADL', 'Azure Data Lake Storage Gen1', 'another spelling of ADLS']);
    expect(fx.emu.log.entries).toEqual([]);
  });

  it('shows the fields of one type: type, required, secret, allowed values', async () => {
    const r = await run(['source', 'types', 'postgres']);
    expect(cells(r.stdout)).toEqual([
      ['FIELD', 'TYPE', 'REQUIRED', 'SECRET', 'VALUES', 'DESCRIPTION'],
      ['username', 'string', 'required when authenticationType is MASTER'],
      ['password', 'string', 'yes', 'required when authenticationType is MASTER'],
      ['authenticationType', 'string', 'ANONYMOUS | MASTER'],
      ['hostname', 'string', 'yes', 'database server host'],
      ['port', 'number', 'yes', 'TCP port (a number; a string of digits is sent as given)'],
      ['fetchSize', 'number', 'rows fetched per round trip; 0 lets the service decide'],
      ['databaseName', 'string', 'yes'],
    ]);
    const data = json((await run(['source', 'types', 'POSTGRES', '-o', 'json'])).stdout);
    expect(data).toMatchObject({ code: 'POSTGRES', label: 'PostgreSQL' });
    expect(data.fields.find((f: { name: string }) => f.name === 'password')).toEqual({
      name: 'password',
      type: 'string',
      required: false,
      secret: true,
      description: 'required when authenticationType is MASTER',
    });
  });

  it('an unknown type: exit 2 listing the types', async () => {
    const r = await run(['source', 'types', 'SNOWFLAKE']);
    expectFailure(r, 2, 'error: unknown source type "SNOWFLAKE"; valid types: AMAZONELASTIC, REDSHIFT, S3,');
  });
});

describe('create', () => {
  it('creates a NAS source from --set, which then lists as healthy', async () => {
    const dir = join(tmp, 'lake');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir);
    const r = await run(['source', 'create', 'lake', '--type', 'nas', '--set', `path=${dir}`]);
    expect(r.code).toBe(0);
    const stored = store().at(['lake'])!;
    expect(stored).toMatchObject({ kind: 'source', type: 'NAS', config: { path: dir } });
    expect(r.stderr).toBe('Created source lake (NAS).\n');
    expect(cells(r.stdout)).toEqual([
      ['NAME', 'TYPE', 'STATE', 'ID'],
      ['lake', 'NAS', 'good', stored.id],
    ]);
    expect(writes().map((w) => [w.method, w.path, w.status])).toEqual([['POST', '/api/v3/catalog', 200]]);

    const list = await run(['source', 'list']);
    expect(cells(list.stdout)).toEqual([
      ['NAME', 'TYPE', 'STATE', 'ID'],
      ['lake', 'NAS', 'good', stored.id],
      ['Samples', 'NAS', 'good', store().at(['Samples'])!.id],
    ]);
  });

  it('creates a source whose state comes back bad: exit 0, and its messages as a warning on stderr', async () => {
    const missing = join(tmp, 'no-such-folder');
    const r = await run(['source', 'create', 'broken', '--type', 'NAS', '--set', `path=${missing}`]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `Created source broken (NAS).\nwarning: source broken was created, but its state is bad: Path [${missing}] does not exist or is not a directory.\n`,
    );
    expect(cells(r.stdout)[1]?.[2]).toBe('bad');
    expect((await run(['source', 'delete', 'broken', '-y'])).code).toBe(0);
  });

  it('creates a POSTGRES source with the password from a file; nothing prints it, not even --debug', async () => {
    const r = await run([
      'source',
      'create',
      'pg',
      '--type',
      'POSTGRES',
      '--config-file',
      file('pg.json', PG),
      '--debug',
      '-v',
    ]);
    expect(r.code).toBe(0);
    expectNoSecret(r.stdout, r.stderr);
    expect(r.stderr).toContain('"password":"[redacted]"');
    expect(store().sourceConfig('pg')).toEqual(PG);

    const get = await run(['source', 'get', 'pg']);
    expectNoSecret(get.stdout, get.stderr);
    const source = store().at(['pg'])!;
    expect(cells(get.stdout).slice(0, 13)).toEqual([
      ['FIELD', 'VALUE'],
      ['name', 'pg'],
      ['type', 'POSTGRES'],
      ['id', source.id],
      ['tag', source.tag],
      ['createdAt', source.createdAt],
      ['state', 'good'],
      // The order of the type's fields, as validated and sent.
      ['config.username', 'etl'],
      ['config.password', PLACEHOLDER],
      ['config.authenticationType', 'MASTER'],
      ['config.hostname', 'db.example.com'],
      ['config.port', '5432'],
      ['config.databaseName', 'sales'],
    ]);
    const asJson = json((await run(['source', 'get', 'pg', '-o', 'json'])).stdout);
    expect(asJson).toMatchObject({
      entityType: 'source',
      id: source.id,
      config: { ...PG, password: PLACEHOLDER },
    });
  });

  it('--dry-run sends nothing and shows no secret', async () => {
    const r = await run(
      ['source', 'create', 'pg2', '--type', 'POSTGRES', '--config-file', '-', '--dry-run', '-o', 'json'],
      JSON.stringify(PG),
    );
    expect(r.code).toBe(0);
    expectNoSecret(r.stdout, r.stderr);
    expect(json(r.stdout)).toEqual({
      dryRun: true,
      method: 'POST',
      url: `${fx.emu.url}/api/v3/catalog`,
      body: {
        entityType: 'source',
        name: 'pg2',
        type: 'POSTGRES',
        config: { ...PG, password: '[redacted]' },
      },
    });
    expect(writes()).toEqual([]);
    expect(store().at(['pg2'])).toBeUndefined();
  });

  it('an unknown type: exit 2 listing the types, nothing sent', async () => {
    const r = await run(['source', 'create', 'x', '--type', 'SNOWFLAKE', '--set', 'a=b']);
    expectFailure(
      r,
      2,
      'error: unknown source type "SNOWFLAKE"; valid types: AMAZONELASTIC, REDSHIFT, S3, ADLS, AZURE_STORAGE',
    );
    expect(r.stderr).toContain('hint: see the fields of each type with: dlake source types');
    expect(fx.emu.log.entries).toEqual([]);
  });

  it('a field of the wrong type or outside its enum: exit 2 naming each field and what it takes', async () => {
    const bad = { ...PG, port: true, authenticationType: 'KERBEROS', fetchSize: 'lots' };
    const r = await run([
      'source',
      'create',
      'bad',
      '--type',
      'POSTGRES',
      '--config-file',
      file('bad.json', bad),
    ]);
    expectFailure(r, 2, 'error: invalid config for source type POSTGRES');
    expect(r.stderr).toContain(
      '  config.authenticationType: must be one of ANONYMOUS, MASTER (got "KERBEROS")\n',
    );
    expect(r.stderr).toContain('  config.port: must be a port number (1-65535) (got true)\n');
    expect(r.stderr).toContain('  config.fetchSize: must be a number (got "lots")\n');
    expect(r.stderr).toContain('hint: see the fields of POSTGRES with: dlake source types POSTGRES');
    expectNoSecret(r.stderr);

    const set = await run(['source', 'create', 'bad', '--type', 'MYSQL', '--set', 'port=abc']);
    expectFailure(set, 2, 'error: --set port: "abc" is not a number');
    const enumSet = await run([
      'source',
      'create',
      'bad',
      '--type',
      'MYSQL',
      '--set',
      'hostname=h',
      '--set',
      'port=3306',
      '--set',
      'authenticationType=NONE',
    ]);
    expectFailure(enumSet, 2, 'error: invalid config for source type MYSQL');
    expect(enumSet.stderr).toContain(
      'config.authenticationType: must be one of ANONYMOUS, MASTER (got "NONE")',
    );
    const unknownField = await run(['source', 'create', 'bad', '--type', 'NAS', '--set', 'root=/x']);
    expectFailure(unknownField, 2, 'error: --set root: NAS has no config field "root"');
    expect(fx.emu.log.entries).toEqual([]);
    expect(store().at(['bad'])).toBeUndefined();
  });

  it('a deprecated type (HBASE, DB2): exit 2 with the reason, nothing sent', async () => {
    expectFailure(
      await run(['source', 'create', 'old', '--type', 'HBASE', '--set', 'zkQuorum=zk1']),
      2,
      'error: source type HBASE is deprecated: not supported for new sources',
    );
    expectFailure(
      await run(['source', 'create', 'old', '--type', 'db2', '--config-file', file('db2.json', PG)]),
      2,
      'error: source type DB2 is deprecated: not supported for new sources (Enterprise edition)',
    );
    expect(fx.emu.log.entries).toEqual([]);
  });

  it('a secret on the command line is refused', async () => {
    const r = await run(['source', 'create', 'x', '--type', 'POSTGRES', '--set', `password=${PASSWORD}`]);
    expectFailure(
      r,
      2,
      'error: --set password: password is a secret and is never taken from the command line',
    );
    expectNoSecret(r.stderr);
  });

  it('a 403 (a non-admin): exit 3, nothing created', async () => {
    const r = await fx.run(['source', 'create', 'mine', '--type', 'S3', '-p', 'analyst']);
    expectFailure(r, 3, 'error: permission denied: User not authorized.');
    expect(store().at(['mine'])).toBeUndefined();
    expect(fx.emu.log.entries.map((e) => [e.method, e.user, e.status])).toEqual([['POST', 'analyst', 403]]);
  });
});

describe('update', () => {
  it('merges --set into the current config and keeps the stored password', async () => {
    const before = store().at(['pg'])!.tag;
    const r = await run([
      'source',
      'update',
      'pg',
      '--set',
      'fetchSize=500',
      '--set',
      'hostname=db2.example.com',
    ]);
    expect(r.code).toBe(0);
    const after = store().at(['pg'])!;
    expect(store().sourceConfig('pg')).toEqual({ ...PG, fetchSize: 500, hostname: 'db2.example.com' });
    expect(after.tag).not.toBe(before);
    expect(r.stderr).toBe(`Updated source pg (tag ${before} → ${after.tag}).\n`);
    expect(cells(r.stdout)[1]).toEqual(['pg', 'POSTGRES', 'good', after.id]);
    expect(writes().map((w) => [w.method, w.path, w.status])).toEqual([
      ['PUT', `/api/v3/catalog/${after.id}`, 200],
    ]);
  });

  it('replaces the password from a file, removes a field set to null, and never prints the secret', async () => {
    const r = await run(
      ['source', 'update', 'pg', '--config-file', '-', '--debug'],
      JSON.stringify({ password: NEW_PASSWORD, fetchSize: null }),
    );
    expect(r.code).toBe(0);
    expectNoSecret(r.stdout, r.stderr);
    expect(store().sourceConfig('pg')).toEqual({
      ...PG,
      hostname: 'db2.example.com',
      password: NEW_PASSWORD,
    });
  });

  it('--dry-run shows the PUT with the secret redacted and sends nothing', async () => {
    const source = store().at(['pg'])!;
    const r = await run(['source', 'update', 'pg', '--set', 'fetchSize=10', '--dry-run', '-o', 'json']);
    expect(r.code).toBe(0);
    expectNoSecret(r.stdout, r.stderr);
    expect(r.stdout).not.toContain(PLACEHOLDER);
    const out = json(r.stdout);
    expect(out).toMatchObject({
      dryRun: true,
      method: 'PUT',
      url: `${fx.emu.url}/api/v3/catalog/${source.id}`,
    });
    expect(out.body).toMatchObject({ id: source.id, tag: source.tag, name: 'pg', type: 'POSTGRES' });
    expect(out.body.config).toEqual({
      ...PG,
      hostname: 'db2.example.com',
      password: '[redacted]',
      fetchSize: 10,
    });
    expect(writes()).toEqual([]);
    expect(store().sourceConfig('pg')!.fetchSize).toBeUndefined();
  });

  it('refuses nothing to change, a wrong value, a secret in --set, and a name that is not a source', async () => {
    expectFailure(
      await run(['source', 'update', 'pg']),
      2,
      'error: nothing to change: give --config-file or --set',
    );
    const wrong = await run(
      ['source', 'update', 'pg', '--config-file', '-'],
      '{"authenticationType": "OAUTH"}',
    );
    expectFailure(wrong, 2, 'error: invalid config for source type POSTGRES');
    expect(wrong.stderr).toContain(
      'config.authenticationType: must be one of ANONYMOUS, MASTER (got "OAUTH")',
    );
    expectFailure(await run(['source', 'update', 'pg', '--set', 'password=x']), 2, 'password is a secret');
    expectFailure(
      await run(['source', 'update', 'pg', '--config-file', '-'], '[1]'),
      2,
      'must hold a JSON object',
    );
    expectFailure(
      await run(['source', 'update', 'nope', '--set', 'fetchSize=1']),
      4,
      'error: not found: source "nope"',
    );
    expect(writes()).toEqual([]);
    expect(store().sourceConfig('pg')).toEqual({
      ...PG,
      hostname: 'db2.example.com',
      password: NEW_PASSWORD,
    });
  });

  it('catalog update of a source with a whole new config keeps the secrets the file leaves out', async () => {
    const { password: _, ...withoutSecret } = { ...PG, hostname: 'db3.example.com' };
    const r = await run(
      ['catalog', 'update', 'pg', '--file', '-'],
      JSON.stringify({ config: withoutSecret }),
    );
    expect(r.code).toBe(0);
    expectNoSecret(r.stdout, r.stderr);
    expect(store().sourceConfig('pg')).toEqual({ ...withoutSecret, password: NEW_PASSWORD });
  });

  it('a name that is a space is not a source: exit 4', async () => {
    store().insert({ ...store().stamp(), kind: 'space', path: ['Space1'] });
    expectFailure(await run(['source', 'get', 'Space1']), 4, 'error: "Space1" is a space, not a source');
  });
});

describe('delete', () => {
  it('without a terminal and without --yes: exit 2, nothing deleted', async () => {
    const r = await run(['source', 'delete', 'lake']);
    expectFailure(r, 2, 'error: refusing to delete source lake and its datasets without confirmation');
    expect(store().at(['lake'])).toBeDefined();
    expect(writes()).toEqual([]);
  });

  it('--dry-run prints the DELETE and sends nothing', async () => {
    const source = store().at(['lake'])!;
    const r = await run(['source', 'rm', 'lake', '--dry-run']);
    expect(cells(r.stdout)).toEqual([
      ['DRY RUN', 'URL', 'BODY'],
      ['DELETE', `${fx.emu.url}/api/v3/catalog/${source.id}?tag=${encodeURIComponent(source.tag)}`],
    ]);
    expect(writes()).toEqual([]);
  });

  it('with --yes deletes it, sending the tag', async () => {
    const source = store().at(['lake'])!;
    const r = await run(['source', 'delete', 'lake', '-y']);
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: 'Deleted source lake.\n' });
    expect(store().at(['lake'])).toBeUndefined();
    expect(writes().map((w) => [w.method, w.path, w.query, w.status])).toEqual([
      ['DELETE', `/api/v3/catalog/${source.id}`, { tag: source.tag }, 204],
    ]);
    const list = json((await run(['source', 'list', '-o', 'json'])).stdout);
    expect(list.map((s: { name: string }) => s.name)).toEqual(['pg', 'Samples']);
  });
});

// Real servers mask secrets with their own text (`$DREMIO_EXISTING_VALUE$`, …), not the spec's constant. An
// update must send back exactly what the server showed, or the server stores the constant as the password.
describe('a server that masks secrets with another placeholder', () => {
  const OTHER = '$DREMIO_EXISTING_VALUE$';
  let other: Fixture;
  beforeAll(async () => {
    other = await startFixture({ secretPlaceholder: OTHER });
    expect((await other.login()).code).toBe(0);
    const created = await other.run(['source', 'create', 'pg', '--type', 'POSTGRES', '--config-file', '-'], {
      input: JSON.stringify(PG),
    });
    expect(created.code).toBe(0);
  });
  afterAll(() => other.close());
  const otherStore = (): CatalogStore => other.emu.catalog.store;

  it('source get shows the server masking; source update keeps the secret', async () => {
    const got = JSON.parse((await other.run(['source', 'get', 'pg', '-o', 'json'])).stdout);
    expect(got.config.password).toBe(OTHER);

    const r = await other.run(['source', 'update', 'pg', '--set', 'fetchSize=500']);
    expect(r.code).toBe(0);
    expectNoSecret(r.stdout, r.stderr);
    expect(otherStore().sourceConfig('pg')).toEqual({ ...PG, fetchSize: 500 });
  });

  it('catalog update of an edited `get -o json` keeps the secret too', async () => {
    const got = JSON.parse((await other.run(['catalog', 'get', 'pg', '-o', 'json'])).stdout);
    got.config.databaseName = 'sales2';
    const r = await other.run(['catalog', 'update', 'pg', '--file', '-'], { input: JSON.stringify(got) });
    expect(r.code).toBe(0);
    expect(otherStore().sourceConfig('pg')).toMatchObject({ password: PASSWORD, databaseName: 'sales2' });
  });

  it('a new secret replaces the stored one', async () => {
    const r = await other.run(['source', 'update', 'pg', '--config-file', '-'], {
      input: JSON.stringify({ password: NEW_PASSWORD }),
    });
    expect(r.code).toBe(0);
    expect(otherStore().sourceConfig('pg')?.password).toBe(NEW_PASSWORD);
  });
});
