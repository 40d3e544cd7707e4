// `dlake access why` against the emulator: roles held (PUBLIC, nested roles), grants on the entity and its
// containers, which grant gives which privilege, --privilege answering with the exit code, bad principals and
// entities, names with quotes, the community and hosted editions.
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFailure, type Fixture, useCommunityFixture, useFixture } from '../helpers/fixture.js';

/** A dataset whose name has a quote, in a folder whose name has a space. */
const E = "Sales/eu west/bob's orders";
const ok = async (args: string[]) => {
  const r = await fx.run(args);
  expect(r.code, r.stderr).toBe(0);
  return r;
};

const fx = useFixture();
beforeAll(async () => {
  const post = (body: unknown) => ok(['api', 'POST', 'catalog', '--data', JSON.stringify(body)]);
  await post({ entityType: 'space', name: 'Sales' });
  await post({ entityType: 'folder', path: ['Sales', 'eu west'] });
  await post({
    entityType: 'dataset',
    type: 'VIRTUAL_DATASET',
    path: ['Sales', 'eu west', "bob's orders"],
    sql: 'SELECT 1 AS id',
  });
  await ok(['user', 'create', 'bob']);
  await ok(['user', 'create', 'carol']);
  await ok(['role', 'create', 'team']);
  await ok(['role', 'create', "o'reilly readers"]);
  // bob is in team; team is a member of analysts (nested); carol holds nothing but PUBLIC.
  await ok(['role', 'add-member', 'team', '--user', 'bob']);
  await ok(['role', 'add-member', 'analysts', '--role', 'team']);
  await ok(['role', 'add-member', "o'reilly readers", '--user', 'carol']);
  await ok([
    'catalog',
    'grants',
    'Sales',
    '--grant',
    'role:analysts:SELECT',
    '--grant',
    'role:PUBLIC:VIEW_REFLECTION',
  ]);
  await ok(['catalog', 'grants', E, '--grant', 'user:bob:ALTER']);
  await ok(['catalog', 'grants', 'Sales/eu west', '--grant', "role:o'reilly readers:ALTER_REFLECTION"]);
});

const json = async (...args: string[]) =>
  JSON.parse((await ok(['access', 'why', ...args, '-o', 'json'])).stdout);

describe('dlake access why', () => {
  it('names the grant behind each privilege: on the entity, on a container, through nested roles and PUBLIC', async () => {
    const r = await json('bob', E);
    expect(r.principal).toBe('user:bob');
    expect(r.entity).toBe(E);
    const via = Object.fromEntries(
      r.privileges.map((p: { privilege: string; via: unknown }) => [p.privilege, p.via]),
    );
    expect(via.ALTER).toEqual({ grantee: 'user:bob', on: E });
    expect(via.SELECT).toEqual({ grantee: 'role:analysts', on: 'Sales' });
    expect(via.VIEW_REFLECTION).toEqual({ grantee: 'role:PUBLIC', on: 'Sales' });
    expect(r.missing).toEqual(['ALTER_REFLECTION', 'MANAGE_GRANTS']);
    expect(r.roles).toEqual(
      expect.arrayContaining([{ name: 'PUBLIC' }, { name: 'team' }, { name: 'analysts', via: 'team' }]),
    );
    // Only reads: the user, each role once, the entity and its two containers, and three grants.
    const log = fx.emu.log.entries;
    expect(log.every((e) => e.method === 'GET')).toBe(true);
    expect(log.filter((e) => e.path.includes('/grants'))).toHaveLength(3);
  });

  it('table output: the principal, its roles, the grants of the chain, and a row per privilege', async () => {
    const r = await ok(['access', 'why', 'user:bob', E]);
    expect(r.stdout).toContain('Principal: user bob');
    expect(r.stdout).toMatch(/Roles: +.*analysts \(through team\)/);
    expect(r.stdout).toContain(`Entity:    ${E} (dataset)`);
    expect(r.stdout).toContain('  on Sales:\n    role analysts: SELECT  (applies: held through team)\n');
    expect(r.stdout).toContain("    role o'reilly readers: ALTER_REFLECTION\n");
    expect(r.stdout).toMatch(/^SELECT\s+yes\s+role analysts\s+Sales$/m);
    expect(r.stdout).toMatch(/^MANAGE_GRANTS\s+no\s*$/m);
  });

  it('--privilege held: exit 0 and says through what', async () => {
    const r = await ok(['access', 'why', 'bob', E, '--privilege', 'select', '-o', 'json']);
    expect(r.stderr).toContain(`user bob holds SELECT on ${E} through a grant to role analysts on Sales`);
  });

  it('--privilege not held: exit 10 ("no", not 1, a bug), one error line, and the nearest grant that would give it', async () => {
    const r = await fx.run(['access', 'why', 'carol', E, '--privilege', 'SELECT']);
    expect(r.code).toBe(10);
    expect(r.stderr.match(/^error:/gm)).toHaveLength(1);
    expect(r.stderr).toContain(`error: user carol does not hold SELECT on ${E}`);
    expect(r.stderr).toContain(
      `hint: the nearest grant is: dlake catalog grants 'Sales/eu west/bob'\\''s orders' --grant user:carol:SELECT (or add SELECT to the grant of role o'reilly readers on Sales/eu west)`,
    );
    // The rest of the answer is still printed.
    expect(r.stdout).toMatch(/^ALTER_REFLECTION\s+yes\s+role o'reilly readers\s+Sales\/eu west$/m);
  });

  it('a role as principal: its own grants and those of the roles it is a member of', async () => {
    const r = await json('role:team', E);
    expect(r.principal).toBe('role:team');
    expect(r.privileges.map((p: { privilege: string }) => p.privilege)).toEqual(['SELECT']);
    expect(r.roles).toEqual([{ name: 'analysts', via: 'team' }]);
  });

  it('a member of ADMIN holds everything, implicitly', async () => {
    const r = await json('admin', 'Sales');
    expect(r.missing).toEqual([]);
    expect(r.privileges.find((p: { privilege: string }) => p.privilege === 'DROP').via).toEqual({
      grantee: 'role:ADMIN',
      on: 'Sales',
      implicit: 'admin',
    });
  });

  it('unknown user, role or entity: exit 4 with a hint; a privilege the entity does not offer: exit 2', async () => {
    const u = await fx.run(['access', 'why', 'nobody', 'Sales']);
    expectFailure(u, 4, 'not found: user "nobody"');
    expect(u.stderr).toMatch(/^hint: /m);
    const role = await fx.run(['access', 'why', 'role:ghosts', 'Sales']);
    expectFailure(role, 4, 'not found: role "ghosts"');
    expect(role.stderr).toContain('hint: list the roles with: dlake role list');
    const e = await fx.run(['access', 'why', 'bob', 'Sales/nope']);
    expectFailure(e, 4, 'not found');
    expect(e.stderr).toMatch(/^hint: /m);
    const p = await fx.run(['access', 'why', 'bob', 'Sales', '--privilege', 'FLY']);
    expectFailure(p, 2, 'Sales offers no privilege "FLY"');
    expectFailure(await fx.run(['access', 'why', 'user:', 'Sales']), 2, 'names no one');
  });

  it('roles that are members of each other: each is read once, and the answer ends', async () => {
    await ok(['user', 'create', 'dave']);
    await ok(['role', 'create', 'loop-a']);
    await ok(['role', 'create', 'loop-b']);
    await ok(['role', 'add-member', 'loop-a', '--user', 'dave', '--role', 'loop-b']);
    await ok(['role', 'add-member', 'loop-b', '--role', 'loop-a']);
    await ok(['catalog', 'grants', 'Sales', '--grant', 'role:loop-b:ALTER']);
    fx.emu.log.clear();
    const r = await json('dave', 'Sales');
    expect(r.roles).toEqual([{ name: 'PUBLIC' }, { name: 'loop-a' }, { name: 'loop-b', via: 'loop-a' }]);
    expect(r.privileges.find((p: { privilege: string }) => p.privilege === 'ALTER').via).toEqual({
      grantee: 'role:loop-b',
      on: 'Sales',
    });
    const roleReads = fx.emu.log.entries.filter((e) => e.path.startsWith('/api/v3/role/'));
    expect(new Set(roleReads.map((e) => e.path)).size).toBe(roleReads.length);
  });

  it('the hosted edition: exit 2 naming it, nothing sent', async () => {
    const r = await fx.run([
      'access',
      'why',
      'bob',
      'Sales',
      '--edition',
      'cloud',
      '--project-id',
      '48ca6975-39ad-47cb-9bb5-de73060380f6',
    ]);
    expectFailure(r, 2, 'the hosted edition (--edition cloud) does not say which roles');
    expect(fx.emu.log.entries).toHaveLength(0);
  });
});

describe('dlake access why on the community edition', () => {
  let cfx: Fixture;
  useCommunityFixture((f) => {
    cfx = f;
  });
  it('says the edition has no roles or grants (exit 4)', async () => {
    expect(
      (await cfx.run(['api', 'POST', 'catalog', '--data', '{"entityType":"space","name":"Reports"}'])).code,
    ).toBe(0);
    const r = await cfx.run(['access', 'why', 'admin', 'Reports']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/Enterprise only/);
  });
});
