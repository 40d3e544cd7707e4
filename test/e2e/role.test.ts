// `dlake role …` against the emulator: output, exit codes, and what the emulator holds afterwards (the
// roles a PUT must keep, members changed in one request, system roles refused before any write).
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ANALYST, expectFailure, type Fixture, useCommunityFixture, useFixture } from '../helpers/fixture.js';

const fx = useFixture();
beforeAll(async () => {
  for (const name of ['bob', 'carol']) expect((await fx.run(['user', 'create', name])).code).toBe(0);
});
beforeEach(() => {
  fx.emu.log.clear();
});

const writes = () => fx.emu.log.entries.filter((e) => e.method !== 'GET');
const roleJson = async (name: string) =>
  JSON.parse((await fx.run(['role', 'get', name, '-o', 'json'])).stdout);

describe('dlake role create, list, get', () => {
  it('creates a role, lists it and shows it with its member count', async () => {
    const r = await fx.run(['role', 'create', 'loaders', '--description', 'Nightly ETL']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^Created role loaders \(id [0-9a-f-]{36}\)\.$/m);
    const list = await fx.run(['role', 'list']);
    expect(list.stdout.split('\n')[0]).toMatch(/^NAME\s+ID\s+TYPE\s+MEMBERS\s+DESCRIPTION$/);
    expect(list.stdout).toMatch(/^loaders\s+[0-9a-f-]{36}\s+INTERNAL\s+0\s+Nightly ETL$/m);
    expect(list.stdout).toMatch(/^ADMIN\s+\S+\s+SYSTEM\s/m);
    const get = await fx.run(['role', 'get', 'LOADERS']);
    expect(get.stdout).toMatch(/^memberCount\s+0$/m);
    expect(get.stdout).toMatch(/^description\s+Nightly ETL$/m);
  });

  it('--filter goes to the service', async () => {
    const r = await fx.run(['role', 'list', '--filter', "type=='SYSTEM'", '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(
      JSON.parse(r.stdout)
        .map((x: { name: string }) => x.name)
        .sort(),
    ).toEqual(['ADMIN', 'PUBLIC']);
  });

  it('a name taken: exit 5; --dry-run creates nothing; an unknown role: exit 4', async () => {
    expectFailure(await fx.run(['role', 'create', 'loaders']), 5, 'a role named "loaders" already exists');
    const dry = await fx.run(['role', 'create', 'dry-role', '--dry-run', '-o', 'json']);
    expect(JSON.parse(dry.stdout)).toMatchObject({ method: 'POST', body: { name: 'dry-role' } });
    expectFailure(await fx.run(['role', 'get', 'no-such-role']), 4, 'error: not found: role "no-such-role"');
    expect(writes().filter((w) => w.status < 400)).toEqual([]);
  });
});

describe('dlake role add-member, remove-member', () => {
  it('adds users and a role in one request; memberCount follows; remove takes them out', async () => {
    expect((await fx.run(['role', 'create', 'team'])).code).toBe(0);
    fx.emu.log.clear();
    const add = await fx.run([
      'role',
      'add-member',
      'team',
      '--user',
      'bob',
      '--user',
      'carol',
      '--role',
      'loaders',
    ]);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stderr).toContain('Added to role team: user bob, user carol, role loaders.');
    expect(fx.emu.log.find('PATCH', /\/api\/v3\/role\/.*\/member$/)).toHaveLength(1);
    expect(fx.emu.state.userByName('bob')!.roles).toContain('team');
    expect((await roleJson('team')).memberCount).toBe(3);
    expect((await roleJson('loaders')).roles.map((r: { name: string }) => r.name)).toEqual(['team']);
    const rm = await fx.run(['role', 'remove-member', 'team', '--user', 'bob']);
    expect(rm.code, rm.stderr).toBe(0);
    expect(fx.emu.state.userByName('bob')!.roles).not.toContain('team');
    expect((await roleJson('team')).memberCount).toBe(2);
  });

  it('bad input: no member, an unknown user or role, PUBLIC, itself: nothing changed', async () => {
    expectFailure(await fx.run(['role', 'add-member', 'team']), 2, 'no member given');
    expectFailure(
      await fx.run(['role', 'add-member', 'team', '--user', 'nobody']),
      4,
      'error: not found: user "nobody"',
    );
    expectFailure(
      await fx.run(['role', 'add-member', 'team', '--role', 'nope']),
      4,
      'error: not found: role "nope"',
    );
    expectFailure(await fx.run(['role', 'add-member', 'PUBLIC', '--user', 'bob']), 2, 'it is a system role');
    expectFailure(
      await fx.run(['role', 'add-member', 'team', '--role', 'team']),
      2,
      'cannot be a member of itself',
    );
    expectFailure(
      await fx.run(['role', 'add-member', 'ghost', '--user', 'bob']),
      4,
      'error: not found: role "ghost"',
    );
    expect(writes()).toEqual([]);
  });
});

describe('dlake role update', () => {
  it('changes the description and keeps the roles it is a member of (the PUT would drop them)', async () => {
    // loaders is a member of team (above).
    const r = await fx.run(['role', 'update', 'loaders', '--description', 'ETL, hourly']);
    expect(r.code, r.stderr).toBe(0);
    const after = await roleJson('loaders');
    expect(after.description).toBe('ETL, hourly');
    expect(after.roles.map((x: { name: string }) => x.name)).toEqual(['team']);
  });

  it('the emulator PUT removes what the body leaves out (the quirk the command works around)', async () => {
    const id = (await roleJson('loaders')).id;
    const r = await fx.run(['api', 'PUT', `role/${id}`, '--data', `{"id":"${id}","name":"loaders"}`]);
    expect(r.code, r.stderr).toBe(0);
    const after = await roleJson('loaders');
    expect(after.roles).toEqual([]);
    expect(after.description).toBeUndefined();
  });

  it('system roles, nothing to change, unknown role: refused before any write', async () => {
    const admin = await fx.run(['role', 'update', 'ADMIN', '--description', 'x']);
    expectFailure(admin, 2, 'cannot change "ADMIN": it is a system role');
    expectFailure(await fx.run(['role', 'update', 'loaders']), 2, 'nothing to change');
    expectFailure(
      await fx.run(['role', 'update', 'ghost', '--description', 'x']),
      4,
      'error: not found: role "ghost"',
    );
    expect(writes()).toEqual([]);
  });
});

describe('dlake role delete', () => {
  it('asks without --yes (exit 2, nothing deleted); --dry-run sends nothing; -y deletes', async () => {
    expect((await fx.run(['role', 'create', 'doomed'])).code).toBe(0);
    fx.emu.log.clear();
    expectFailure(await fx.run(['role', 'delete', 'doomed']), 2, 'without confirmation');
    const dry = await fx.run(['role', 'delete', 'doomed', '--dry-run', '-o', 'json']);
    expect(JSON.parse(dry.stdout).method).toBe('DELETE');
    expect(writes()).toEqual([]);
    const r = await fx.run(['role', 'rm', 'doomed', '-y']);
    expect(r.code, r.stderr).toBe(0);
    expectFailure(await fx.run(['role', 'get', 'doomed']), 4, 'not found: role');
  });

  it('a system role is refused in one sentence; a non-admin gets exit 3', async () => {
    const r = await fx.run(['role', 'delete', 'PUBLIC', '-y']);
    expectFailure(r, 2, 'cannot delete "PUBLIC": it is a system role, built into the service');
    expect(writes()).toEqual([]);
    expect((await fx.login(ANALYST, 'analyst')).code).toBe(0);
    expectFailure(await fx.run(['role', 'delete', 'team', '-y', '-p', 'analyst']), 3, 'permission denied');
  });
});

describe('on a community-edition server', () => {
  let cx!: Fixture;
  useCommunityFixture((f) => {
    cx = f;
  });

  it('every role command says so in one sentence (exit 4)', async () => {
    const sentence = "error: this service's edition does not offer roles (Enterprise only)";
    for (const args of [
      ['role', 'list'],
      ['role', 'get', 'x'],
      ['role', 'create', 'x'],
      ['role', 'delete', 'x', '-y'],
    ]) {
      expectFailure(await cx.run(args), 4, sentence);
    }
  });
});
