// The promotion workflow of definitions as code, in-process against Enterprise emulators: `pull --prune`,
// users and roles as kinds with `--map`, targets (`plan REF`), saved plans (`plan --out`, `apply --plan`) and
// `--refresh-secrets`; each checked against the emulators' state and request logs.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgSource, ok, tree } from '../helpers/ascode.js';
import { expectFailure, type Fixture, startFixture } from '../helpers/fixture.js';

const SAMPLES = resolve(import.meta.dirname, '../fixtures/samples');
const PG_PASSWORD = 'pg-secret-Promote-41';

let a: Fixture;
let tmp: string;
const fixtures: Fixture[] = [];

const dir = (name: string) => join(tmp, name);
const writes = (fx: Fixture) =>
  fx.emu.log.entries.filter((e) => e.method !== 'GET').map((e) => `${e.method} ${e.path}`);

async function fresh(): Promise<Fixture> {
  const fx = await startFixture({ samplesDir: SAMPLES });
  fixtures.push(fx);
  ok(await fx.login());
  return fx;
}

const entity = (fx: Fixture, value: Record<string, unknown>) =>
  fx.run(['catalog', 'create', '--file', '-'], { input: JSON.stringify(value) }).then(ok);
const view = (fx: Fixture, path: string[], sql: string) =>
  entity(fx, { entityType: 'dataset', type: 'VIRTUAL_DATASET', path, sql });

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'dlake-promote-'));
  a = await fresh();
});
afterAll(async () => {
  for (const fx of fixtures) await fx.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('pull --prune', () => {
  it('removes only the files pull writes of entities gone from what is pulled, and names them', async () => {
    const fx = await fresh();
    await entity(fx, { entityType: 'space', name: 'Sales' });
    await entity(fx, { entityType: 'space', name: 'Other' });
    await view(fx, ['Sales', 'keep'], 'SELECT 1 AS k');
    await view(fx, ['Sales', 'gone'], 'SELECT 2 AS g');
    await entity(fx, { entityType: 'folder', path: ['Sales', 'old'] });
    await view(fx, ['Sales', 'old', 'v'], 'SELECT 3 AS v');
    await view(fx, ['Other', 'ov'], 'SELECT 4 AS o');
    ok(await fx.run(['queue', 'create', '--name', 'tmpq']));
    const d = dir('pull-prune');
    ok(await fx.run(['pull', '--dir', d, '--kinds', 'queue']));
    // Not pull's: a YAML file that is no definition, a definition in a layout of the user's, another file.
    writeFileSync(join(d, 'notes.yaml'), 'owner: data team\n');
    mkdirSync(join(d, 'custom'));
    writeFileSync(join(d, 'custom', 'ghost.yaml'), 'kind: view\npath: [Sales, ghost]\nsql: SELECT 9\n');
    writeFileSync(join(d, 'README.md'), '# lake\n');
    ok(await fx.run(['catalog', 'delete', 'Sales/gone', '--yes']));
    ok(await fx.run(['catalog', 'delete', 'Sales/old', '--yes']));
    ok(await fx.run(['catalog', 'delete', 'Other/ov', '--yes']));
    ok(await fx.run(['queue', 'delete', 'tmpq', '--yes']));

    // Without --prune, pull keeps them.
    const before = Object.keys(tree(d));
    ok(await fx.run(['pull', '--dir', d]));
    expect(Object.keys(tree(d))).toEqual(before);

    // Under a REF, only what lies below it; queues only when their kind is pulled.
    fx.emu.log.clear();
    const scoped = ok(await fx.run(['pull', 'Sales', '--dir', d, '--prune']));
    expect(scoped.stderr).toContain('removed Sales/gone.yaml (no longer on the service)');
    expect(scoped.stderr).toContain('Removed 3 files.');
    expect(writes(fx)).toEqual([]);
    expect(Object.keys(tree(d))).toEqual([
      '.queues/default.yaml',
      '.queues/tmpq.yaml',
      'Other/ov.yaml',
      'Other.yaml',
      'README.md',
      'Sales/keep.yaml',
      'Sales.yaml',
      'Samples.yaml',
      'custom/ghost.yaml',
      'notes.yaml',
    ]);
    // The emptied folder Sales/old went with its files.
    expect(existsSync(join(d, 'Sales', 'old'))).toBe(false);

    const all = ok(await fx.run(['pull', '--dir', d, '--prune', '--kinds', 'queue']));
    expect(all.stderr).toContain('removed .queues/tmpq.yaml (no longer on the service)');
    expect(all.stderr).toContain('removed Other/ov.yaml (no longer on the service)');
    expect(all.stderr).toContain('Removed 2 files.');
    expect(Object.keys(tree(d))).toEqual([
      '.queues/default.yaml',
      'Other.yaml',
      'README.md',
      'Sales/keep.yaml',
      'Sales.yaml',
      'Samples.yaml',
      'custom/ghost.yaml',
      'notes.yaml',
    ]);
  });
});

describe('users and roles', () => {
  let d: string;
  beforeAll(async () => {
    ok(await a.run(['user', 'create', 'carol', '--first-name', 'Carol', '--email', 'carol@example.com']));
    ok(await a.run(['user', 'create', 'dave']));
    ok(await a.run(['role', 'create', 'etl', '--description', 'Nightly loads']));
    ok(await a.run(['role', 'add-member', 'etl', '--user', 'carol']));
    ok(await a.run(['role', 'add-member', 'etl', '--role', 'analysts']));
    await entity(a, { entityType: 'space', name: 'Ops' });
    ok(
      await a.run(['catalog', 'grants', 'Ops', '--grant', 'user:carol:SELECT', '--grant', 'role:etl:ALTER']),
    );
    const rules = JSON.parse(ok(await a.run(['queue', 'rules', '-o', 'json'])).stdout);
    ok(
      await a.run(['queue', 'rules', '--file', '-'], {
        input: JSON.stringify({
          ...rules,
          rules: [
            {
              name: 'loads',
              conditions: "USER IN ('carol', 'dave') OR is_member('etl')",
              action: 'PLACE',
              acceptName: 'default',
            },
          ],
        }),
      }),
    );
    d = dir('people');
    ok(await a.run(['pull', '--dir', d, '--kinds', 'user,role,grant,rule']));
  });

  it('pull writes one file per local user and role: names, email, description, members; no password, id or tag', () => {
    const files = tree(d);
    expect(Object.keys(files).filter((f) => /^\.(users|roles)\//.test(f))).toEqual([
      '.roles/analysts.yaml',
      '.roles/etl.yaml',
      '.users/admin.yaml',
      '.users/analyst.yaml',
      '.users/carol.yaml',
      '.users/dave.yaml',
    ]);
    expect(files['.users/carol.yaml']).toBe(
      'kind: user\npath:\n  - carol\nemail: carol@example.com\nfirstName: Carol\n',
    );
    expect(files['.roles/etl.yaml']).toBe(
      [
        'kind: role',
        'path:',
        '  - etl',
        'description: Nightly loads',
        'members:',
        '  roles:',
        '    - analysts',
        '  users:',
        '    - carol',
        '',
      ].join('\n'),
    );
    const text = Object.values(files).join('\n');
    for (const secret of ['admin-pass-1', 'analyst-pass-1', ...a.emu.state.tokens.keys()])
      expect(text).not.toContain(secret);
    for (const u of a.emu.state.users.values()) {
      expect(text).not.toContain(u.id);
      expect(text).not.toContain(u.tag);
    }
  });

  it('apply creates them (users without a password are reported); then the plan is empty and a second apply writes nothing', async () => {
    const b = await fresh();
    await entity(b, { entityType: 'space', name: 'Ops' });
    b.emu.log.clear();
    const r = ok(await b.run(['apply', '--dir', d]));
    expect(r.stderr).toContain(
      'user carol was created without a password: set one with dlake user update carol --password-stdin, unless it signs in through an external identity provider',
    );
    expect(r.stderr).toContain('user dave was created without a password');
    expect(r.stderr).not.toContain('user admin was created');
    const posts = writes(b);
    expect(posts.filter((w) => w === 'POST /api/v3/user')).toHaveLength(2);
    expect(posts).toContain('POST /api/v3/role');
    // The role's members are added after the users exist, and before the grant naming the role is written.
    expect(posts.indexOf('POST /api/v3/role')).toBeGreaterThan(posts.lastIndexOf('POST /api/v3/user'));
    const carol = [...b.emu.state.users.values()].find((u) => u.name === 'carol')!;
    expect(carol).toMatchObject({ firstName: 'Carol', email: 'carol@example.com', roles: ['etl'] });
    expect(carol.password).toBeUndefined();
    const etl = JSON.parse(ok(await b.run(['role', 'get', 'etl', '-o', 'json'])).stdout);
    expect(etl).toMatchObject({ description: 'Nightly loads', memberCount: 2 });
    const analysts = JSON.parse(ok(await b.run(['role', 'get', 'analysts', '-o', 'json'])).stdout);
    expect(analysts.roles.map((x: { name: string }) => x.name)).toEqual(['etl']);

    expect(ok(await b.run(['plan', '--dir', d])).stdout).toBe(
      'Plan: 0 to create, 0 to update, 0 to delete.\n',
    );
    b.emu.log.clear();
    ok(await b.run(['apply', '--dir', d]));
    expect(writes(b)).toEqual([]);
  });

  it('an edit to a user or a role is an update; prune deletes users and roles no file names, only with --prune', async () => {
    const b = await fresh();
    await entity(b, { entityType: 'space', name: 'Ops' });
    ok(await b.run(['apply', '--dir', d]));
    const e = dir('people-edit');
    ok(await a.run(['pull', '--dir', e, '--kinds', 'user,role']));
    writeFileSync(join(e, '.users', 'carol.yaml'), 'kind: user\npath: [carol]\nfirstName: Caroline\n');
    writeFileSync(
      join(e, '.roles', 'etl.yaml'),
      'kind: role\npath: [etl]\nmembers:\n  users: [carol, dave]\n',
    );
    rmSync(join(e, '.users', 'dave.yaml'));
    rmSync(join(e, '.roles', 'analysts.yaml'));
    // dave is still named as a member: deleting him would fail that file, so keep his file.
    writeFileSync(join(e, '.users', 'dave.yaml'), 'kind: user\npath: [dave]\n');
    ok(await b.run(['role', 'create', 'stale']));
    ok(await b.run(['user', 'create', 'eve']));
    const plan = ok(await b.run(['plan', '--dir', e]));
    expect(plan.stdout).toBe(
      [
        '~ update user carol',
        '    email: "carol@example.com" → (none)',
        '    firstName: "Carol" → "Caroline"',
        '~ update role etl',
        '    description: "Nightly loads" → (none)',
        '    members.roles: ["analysts"] → (none)',
        '    members.users: ["carol"] → ["carol","dave"]',
        'Plan: 0 to create, 2 to update, 0 to delete.',
        '',
      ].join('\n'),
    );
    const pruned = ok(await b.run(['plan', '--dir', e, '--prune']));
    expect(pruned.stdout).toMatch(
      /^Read \d+ definition files in .* \(3 folders\)\.\n- delete user eve\n- delete role analysts\n- delete role stale\n~ update user carol/,
    );
    b.emu.log.clear();
    ok(await b.run(['apply', '--dir', e]));
    expect(writes(b).filter((w) => w.startsWith('DELETE'))).toEqual([]);
    const carol = [...b.emu.state.users.values()].find((u) => u.name === 'carol')!;
    expect(carol).toMatchObject({ firstName: 'Caroline', roles: ['etl'] });
    expect(carol.email || undefined).toBeUndefined();
    const dave = [...b.emu.state.users.values()].find((u) => u.name === 'dave')!;
    expect(dave.roles).toEqual(['etl']);

    b.emu.log.clear();
    const applied = ok(await b.run(['apply', '--dir', e, '--prune', '--yes']));
    expect(applied.stderr).toContain('Applied: 0 created, 0 updated, 3 deleted, 0 failed.');
    expect(writes(b).filter((w) => w.startsWith('DELETE'))).toHaveLength(3);
    expect([...b.emu.state.users.values()].map((u) => u.name)).not.toContain('eve');
    const roleNames = JSON.parse(ok(await b.run(['role', 'list', '-o', 'json'])).stdout).map(
      (x: { name: string }) => x.name,
    );
    expect(roleNames.sort()).toEqual(['ADMIN', 'PUBLIC', 'etl']);
    expect(ok(await b.run(['plan', '--dir', e, '--prune'])).stdout).toBe(
      'Plan: 0 to create, 0 to update, 0 to delete.\n',
    );
  });

  it('a saved plan of users and roles: a user whose tag moved, or a role changed since, is refused alone', async () => {
    const b = await fresh();
    await entity(b, { entityType: 'space', name: 'Ops' });
    ok(await b.run(['apply', '--dir', d]));
    const e = dir('people-saved');
    ok(await a.run(['pull', '--dir', e, '--kinds', 'user,role']));
    writeFileSync(join(e, '.users', 'carol.yaml'), 'kind: user\npath: [carol]\nfirstName: Caro\n');
    writeFileSync(join(e, '.users', 'dave.yaml'), 'kind: user\npath: [dave]\nlastName: Davis\n');
    writeFileSync(
      join(e, '.roles', 'etl.yaml'),
      'kind: role\npath: [etl]\ndescription: Loads\nmembers:\n  users: [carol]\n',
    );
    const saved = join(tmp, 'people-plan.json');
    ok(await b.run(['plan', '--dir', e, '--out', saved]));
    const text = readFileSync(saved, 'utf8');
    expect(text).not.toMatch(/password/i);
    // Meanwhile: dave is edited, and a member is added to etl.
    ok(await b.run(['user', 'update', 'dave', '--first-name', 'Dave']));
    ok(await b.run(['role', 'add-member', 'etl', '--user', 'dave']));
    b.emu.log.clear();
    const r = await b.run(['apply', '--plan', saved]);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain('Applied: 0 created, 1 updated, 2 failed.');
    expect(r.stderr).toMatch(/error: user dave: /);
    expect(r.stderr).toContain('role etl was changed since the plan was made');
    const users = [...b.emu.state.users.values()];
    expect(users.find((u) => u.name === 'carol')).toMatchObject({ firstName: 'Caro' });
    expect(users.find((u) => u.name === 'dave')).toMatchObject({ firstName: 'Dave', roles: ['etl'] });
    // Two user PUTs (dave's refused by the service for its tag), nothing sent for the role.
    const sent = b.emu.log.entries.filter((x) => x.method !== 'GET');
    expect(sent.map((x) => `${x.method} ${x.path.replace(/[^/]+$/, 'ID')} ${x.status}`).sort()).toEqual([
      'PUT /api/v3/user/ID 200',
      'PUT /api/v3/user/ID 409',
    ]);
    expectFailure(await b.run(['apply']), 2, 'apply needs --dir DIR (the definition files) or --plan FILE');
    const system = dir('system-role');
    mkdirSync(system);
    writeFileSync(join(system, 'admin.yaml'), 'kind: role\npath: [Admin]\nmembers:\n  users: [carol]\n');
    b.emu.log.clear();
    expectFailure(
      await b.run(['plan', '--dir', system]),
      2,
      'admin.yaml: Admin is a system role, built into the service: it cannot be defined in a file',
    );
    expect(b.emu.log.entries).toEqual([]);
  });

  it('--map renames users and roles in their files, members, grants and rule conditions', async () => {
    const c = await fresh();
    await entity(c, { entityType: 'space', name: 'Ops' });
    const map = join(tmp, 'prod-names.yaml');
    writeFileSync(map, 'users:\n  carol: carol.prod\n  carl: carl.prod\nroles:\n  ETL: etl_prod\n');
    c.emu.log.clear();
    const applied = ok(await c.run(['apply', '--dir', d, '--map', map]));
    expect(applied.stderr).toContain(`no file names the user carl of ${map}`);
    const names = [...c.emu.state.users.values()].map((u) => u.name);
    expect(names).toContain('carol.prod');
    expect(names).not.toContain('carol');
    const role = JSON.parse(ok(await c.run(['role', 'get', 'etl_prod', '-o', 'json'])).stdout);
    expect(role).toMatchObject({ description: 'Nightly loads', memberCount: 2 });
    expectFailure(await c.run(['role', 'get', 'etl']), 4, 'not found: role "etl"');
    const carol = [...c.emu.state.users.values()].find((u) => u.name === 'carol.prod')!;
    expect(carol.roles).toEqual(['etl_prod']);
    const grants = JSON.parse(ok(await c.run(['catalog', 'grants', 'Ops', '-o', 'json'])).stdout);
    expect(
      grants.grants.map((g: { name: string; privileges: string[] }) => `${g.name}:${g.privileges}`).sort(),
    ).toEqual(['carol.prod:SELECT', 'etl_prod:ALTER']);
    expect(c.emu.queues!.ruleset.rules[0]!.conditions).toBe(
      "USER IN ('carol.prod', 'dave') OR is_member('etl_prod')",
    );
    expect(ok(await c.run(['plan', '--dir', d, '--map', map])).stdout).toBe(
      'Plan: 0 to create, 0 to update, 0 to delete.\n',
    );
    // A map that is not one is refused before anything is read.
    writeFileSync(map, 'users: [carol]\n');
    c.emu.log.clear();
    expectFailure(await c.run(['plan', '--dir', d, '--map', map]), 2, 'is not a map of users and roles');
    expect(c.emu.log.entries).toEqual([]);
  });
});

describe('targets, saved plans and secrets', () => {
  let s: Fixture;
  let t: Fixture;
  let d: string;
  const stored = (fx: Fixture, path: string[]) =>
    // biome-ignore lint/suspicious/noExplicitAny: tests inspect the stored JSON freely
    fx.emu.catalog.store.at(path) as unknown as Record<string, any>;
  const marks = (text: string) => text.split('\n').filter((l) => /^[+~-] /.test(l));

  beforeAll(async () => {
    s = await fresh();
    t = await fresh();
    await entity(s, { entityType: 'space', name: 'Marketing' });
    await view(s, ['Marketing', 'x'], 'SELECT 1 AS a');
    await entity(s, { entityType: 'space', name: 'Sales' });
    await entity(s, { entityType: 'folder', path: ['Sales', 'reports'] });
    await view(s, ['Sales', 'reports', 'r1'], 'SELECT * FROM Marketing.x');
    await view(s, ['Sales', 'reports', 'r2'], 'SELECT 2 AS b');
    await entity(s, { entityType: 'folder', path: ['Sales', 'other'] });
    await view(s, ['Sales', 'other', 'c'], 'SELECT 3 AS c');
    await createPgSource((args) => s.run(args), tmp, PG_PASSWORD);
    d = dir('promote');
    ok(await s.run(['pull', '--dir', d]));
    await entity(t, { entityType: 'space', name: 'Sales' });
  });

  it('plan and apply REFs: only what lies below them is planned and written; a missing dependency is named', async () => {
    t.emu.log.clear();
    const plan = ok(await t.run(['plan', '--dir', d, 'Sales/reports']));
    expect(marks(plan.stdout)).toEqual([
      '+ create folder Sales/reports',
      '+ create view Sales/reports/r1',
      '+ create view Sales/reports/r2',
    ]);
    expect(plan.stdout).toContain('Plan: 3 to create, 0 to update, 0 to delete.');
    expect(plan.stderr).toContain(
      'Sales/reports/r1 reads Marketing/x, which a file defines outside the REFs and the service does not have yet',
    );
    expect(writes(t)).toEqual([]);

    ok(await t.run(['apply', '--dir', d, 'Marketing']));
    expect(writes(t)).toEqual(['POST /api/v3/catalog', 'POST /api/v3/catalog']);
    t.emu.log.clear();
    const applied = ok(await t.run(['apply', '--dir', d, 'Sales/reports']));
    expect(applied.stderr).toContain('Applied: 3 created, 0 updated, 0 failed.');
    expect(applied.stderr).not.toContain('outside the REFs');
    expect(writes(t)).toHaveLength(3);
    expect(stored(t, ['Sales', 'reports', 'r1'])).toMatchObject({ sql: 'SELECT * FROM Marketing.x' });
    expect(t.emu.catalog.store.at(['Sales', 'other'])).toBeUndefined();
    expect(t.emu.catalog.store.at(['pg'])).toBeUndefined();
    // An id names its entity as well as its path does.
    const id = stored(t, ['Sales', 'reports']).id;
    expect(ok(await t.run(['plan', '--dir', d, id])).stdout).toBe(
      'Plan: 0 to create, 0 to update, 0 to delete.\n',
    );
  });

  it('plan --out saves the tags read and no secret; apply --plan applies exactly it, a moved tag refused for that entity alone', async () => {
    ok(await t.run(['apply', '--dir', d], { env: { PG_PASSWORD } }));
    const edit = (file: string, from: string, to: string) =>
      writeFileSync(join(d, file), readFileSync(join(d, file), 'utf8').replace(from, to));
    edit('Sales/reports/r2.yaml', 'SELECT 2 AS b', 'SELECT 22 AS b');
    edit('Marketing/x.yaml', 'SELECT 1 AS a', 'SELECT 11 AS a');
    edit('pg.yaml', 'port: 5432', 'port: 5433');
    const saved = join(tmp, 'plan.json');
    const plan = ok(await t.run(['plan', '--dir', d, '--out', saved]));
    expect(marks(plan.stdout)).toEqual([
      '~ update view Marketing/x',
      '~ update view Sales/reports/r2',
      '~ update source pg',
    ]);
    expect(plan.stderr).toContain(`Saved the plan to ${saved}: apply it with dlake apply --plan ${saved}`);
    const text = readFileSync(saved, 'utf8');
    expect(text).not.toContain(PG_PASSWORD);
    expect(text).toContain(`\${env:PG_PASSWORD}`);
    expect(text).toContain(JSON.stringify(stored(t, ['Sales', 'reports', 'r2']).tag));

    // The files change again and someone edits Marketing/x: the saved plan is what is applied, and Marketing/x,
    // whose tag moved, is refused.
    edit('Sales/reports/r2.yaml', 'SELECT 22 AS b', 'SELECT 222 AS b');
    ok(
      await t.run(['catalog', 'update', 'Marketing/x', '--file', '-'], {
        input: JSON.stringify({ sql: 'SELECT 5 AS a' }),
      }),
    );
    t.emu.log.clear();
    const bad = await t.run(['apply', '--plan', saved, '--dir', d]);
    expectFailure(bad, 2, "option '--plan <file>' cannot be used with option '--dir <dir>'");
    const refs = await t.run(['apply', '--plan', saved, 'Sales']);
    expectFailure(refs, 2, '--plan applies the saved plan as it is: REFs cannot go with it');
    expect(t.emu.log.entries).toHaveLength(0);
    t.emu.log.clear();
    const r = await t.run(['apply', '--plan', saved], { env: { PG_PASSWORD: 'rotated-Pw-2' } });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain('Applied: 0 created, 2 updated, 1 failed.');
    expect(r.stderr).toMatch(/error: Marketing\/x: /);
    expect(stored(t, ['Marketing', 'x'])).toMatchObject({ sql: 'SELECT 5 AS a' });
    expect(stored(t, ['Sales', 'reports', 'r2'])).toMatchObject({ sql: 'SELECT 22 AS b' });
    expect(stored(t, ['pg']).config).toMatchObject({ port: 5433, password: 'rotated-Pw-2' });
    // Only writes of the plan, and no file read again: nothing was planned.
    expect(writes(t).filter((w) => w.startsWith('PUT'))).toHaveLength(3);

    // A plan against another service is refused; so is one that would hold a secret.
    const other = await t.run(['apply', '--plan', saved], { env: { DLAKE_URL: s.emu.url } });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`was made against ${t.emu.url}, not ${s.emu.url}`);
    const literal = dir('literal');
    mkdirSync(literal);
    writeFileSync(
      join(literal, 'pg.yaml'),
      readFileSync(join(d, 'pg.yaml'), 'utf8')
        .replace(`\${env:PG_PASSWORD}`, 'Literal-Pw-9')
        .replace('port: 5433', 'port: 5434'),
    );
    const refused = await t.run(['plan', '--dir', literal, '--out', join(tmp, 'never.json')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`config.password of pg is a value, not \${env:NAME}`);
    expect(refused.stderr).not.toContain('Literal-Pw-9');
    expect(existsSync(join(tmp, 'never.json'))).toBe(false);
  });

  it('--refresh-secrets sends the environment secrets though nothing else changed; without it no plan shows them', async () => {
    ok(await t.run(['apply', '--dir', d], { env: { PG_PASSWORD } }));
    expect(ok(await t.run(['plan', '--dir', d])).stdout).toBe(
      'Plan: 0 to create, 0 to update, 0 to delete.\n',
    );
    const plan = ok(await t.run(['plan', '--dir', d, '--refresh-secrets']));
    expect(plan.stdout).toBe('~ update source pg (secrets)\nPlan: 0 to create, 1 to update, 0 to delete.\n');
    const json = JSON.parse(ok(await t.run(['plan', '--dir', d, '--refresh-secrets', '-o', 'json'])).stdout);
    expect(json).toEqual([
      { action: 'update', kind: 'source', path: ['pg'], changes: [], secrets: ['password'] },
    ]);
    const before = stored(t, ['pg']).config.password;
    t.emu.log.clear();
    ok(await t.run(['apply', '--dir', d], { env: { PG_PASSWORD: 'rotated-Pw-3' } }));
    expect(writes(t)).toEqual([]);
    expect(stored(t, ['pg']).config.password).toBe(before);
    const r = ok(
      await t.run(['apply', '--dir', d, '--refresh-secrets'], { env: { PG_PASSWORD: 'rotated-Pw-3' } }),
    );
    expect(r.stderr).toContain('Applied: 0 created, 1 updated, 0 failed.');
    expect(writes(t)).toEqual([`PUT /api/v3/catalog/${stored(t, ['pg']).id}`]);
    expect(stored(t, ['pg']).config).toMatchObject({ password: 'rotated-Pw-3', port: 5433 });
  });

  it('--prune under REFs deletes only below them, and a delete read by a view outside them is refused', async () => {
    await view(t, ['Marketing', 'stray'], 'SELECT 8 AS s');
    await view(t, ['Sales', 'reports', 'legacy'], 'SELECT 7 AS l');
    await view(t, ['Sales', 'other', 'uses'], 'SELECT * FROM Sales.reports.legacy');
    writeFileSync(
      join(d, 'Sales', 'other', 'uses.yaml'),
      'kind: view\npath: [Sales, other, uses]\nsql: SELECT * FROM Sales.reports.legacy\n',
    );
    const plan = ok(await t.run(['plan', '--dir', d, 'Sales/reports', '--prune']));
    // What was read to decide the delete comes first.
    const [read, ...lines] = plan.stdout.split('\n');
    expect(read).toMatch(/^Read \d+ definition files in /);
    expect(lines.join('\n')).toBe(
      [
        '- delete view Sales/reports/legacy',
        '    ! breaks Sales/other/uses',
        'Plan: 0 to create, 0 to update, 1 to delete.',
        '',
      ].join('\n'),
    );
    t.emu.log.clear();
    const r = await t.run(['apply', '--dir', d, 'Sales/reports', '--prune', '--yes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('would break views that remain');
    expect(writes(t)).toEqual([]);
    expect(t.emu.catalog.store.at(['Sales', 'reports', 'legacy'])).toBeDefined();
    expect(t.emu.catalog.store.at(['Marketing', 'stray'])).toBeDefined();
  });
});
