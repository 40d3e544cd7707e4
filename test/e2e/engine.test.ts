// `dlake project list|get` and `dlake engine …` against the emulator's hosted edition: human units in and out,
// updates that keep what was not given, --dry-run, confirmation, admin-only, and refusal on the self-hosted
// edition.
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFailure, useFixture } from '../helpers/fixture.js';

const PID = '21111111-2222-4333-8444-555555555555';
const engines = () => fx.emu.cloud!.engines;
const byName = (name: string) => fx.emu.cloud!.engineByName(name);
const writes = () => fx.emu.log.entries.filter((e) => e.method !== 'GET');

async function loginPat(user: string, profile: string): Promise<void> {
  const token = fx.emu.state.issueToken(fx.emu.state.userByName(user)!.id, 'pat', 3_600_000).token;
  const r = await fx.run(
    ['--edition', 'cloud', '--project-id', PID, 'login', '-p', profile, '--token-stdin'],
    {
      input: `${token}\n`,
    },
  );
  expect(r.code, r.stderr).toBe(0);
}

const fx = useFixture({ edition: 'cloud', cloud: { projectId: PID } }, { login: false });
beforeAll(async () => {
  await loginPat('admin', 'default');
  await loginPat('analyst', 'analyst');
});

describe('dlake project', () => {
  it('lists the projects, marking the one in force, and gets one by name', async () => {
    const r = await fx.run(['project', 'list']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/default-project \*/);
    const g = await fx.run(['project', 'get', 'default-project', '-o', 'json']);
    expect(JSON.parse(g.stdout).id).toBe(PID);
    expect(fx.emu.log.entries.map((e) => e.path)).toEqual(['/v0/projects', '/v0/projects']);
  });

  it('is refused on the self-hosted edition before any request', async () => {
    const r = await fx.run(['project', 'list', '--edition', 'software']);
    expectFailure(r, 2, 'projects exist on the hosted edition only');
    expect(fx.emu.log.entries).toEqual([]);
  });
});

describe('dlake engine', () => {
  it('creates an engine from human units and prints them back', async () => {
    const r = await fx.run([
      'engine',
      'create',
      '--name',
      'etl',
      '--size',
      'medium_v1',
      '--max-replicas',
      '4',
      '--auto-stop-delay',
      '10m',
      '--runtime-limit',
      '2h',
      '--cloud-tag',
      'team=bi',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(byName('etl')).toMatchObject({
      size: 'MEDIUM_V1',
      maxReplicas: 4,
      autoStopDelaySeconds: 600,
      runtimeLimitSeconds: 7200,
      cloudTags: [{ key: 'team', value: 'bi' }],
    });
    expect(r.stdout).toMatch(/autoStopDelay\s+10m/);
    expect(r.stdout).toMatch(/runtimeLimit\s+2h/);
    expect(writes().map((e) => `${e.method} ${e.path}`)).toEqual([`POST /v0/projects/${PID}/engines`]);
  });

  it('updates only what is given, sending the engine back whole; --dry-run sends nothing', async () => {
    const dry = await fx.run([
      'engine',
      'update',
      'etl',
      '--max-concurrency',
      '8',
      '--dry-run',
      '-o',
      'json',
    ]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({
      dryRun: true,
      method: 'PUT',
      body: { maxConcurrency: 8 },
    });
    expect(writes()).toEqual([]);
    const r = await fx.run(['engine', 'update', 'etl', '--max-concurrency', '8']);
    expect(r.code, r.stderr).toBe(0);
    expect(byName('etl')).toMatchObject({ maxConcurrency: 8, maxReplicas: 4, size: 'MEDIUM_V1' });
    expect(r.stderr).toContain('Updated engine etl: maxConcurrency.');
  });

  it('disables and enables an engine', async () => {
    expect((await fx.run(['engine', 'disable', 'etl'])).code).toBe(0);
    expect(byName('etl')!.state).toBe('DISABLED');
    expect((await fx.run(['engine', 'enable', 'etl'])).code).toBe(0);
    expect(byName('etl')!.state).toBe('ENABLED');
  });

  it('lists engines in human units', async () => {
    const r = await fx.run(['engine', 'list']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/etl\s+ENABLED\s+MEDIUM_V1/);
  });

  it('is admin-only', async () => {
    const r = await fx.run(['engine', 'create', '--name', 'x', '-p', 'analyst']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('creating engines needs an admin');
    expect(byName('x')).toBeUndefined();
  });

  it('replaces the rules from a file, with the tag just read', async () => {
    const r = await fx.run(['engine', 'rules', '--file', '-'], {
      input: JSON.stringify({
        ruleInfos: [{ name: 'etl jobs', condition: "USER = 'svc-ci'", engineName: 'etl', action: 'ROUTE' }],
        ruleInfoDefault: fx.emu.cloud!.ruleSet.ruleInfoDefault,
      }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(fx.emu.cloud!.ruleSet.ruleInfos.map((x) => x.name)).toEqual(['etl jobs']);
    const list = await fx.run(['engine', 'rules']);
    expect(list.stdout).toMatch(/1\s+etl jobs\s+ROUTE\s+etl/);
  });

  it('--dry-run prints the PUT of the rules with the tag just read, and changes nothing', async () => {
    const before = structuredClone(fx.emu.cloud!.ruleSet);
    const r = await fx.run(['engine', 'rules', '--file', '-', '--dry-run', '-o', 'json'], {
      input: JSON.stringify({ ruleInfos: [], ruleInfoDefault: before.ruleInfoDefault }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      method: 'PUT',
      body: { ruleSet: { ruleInfos: [], tag: before.tag } },
    });
    expect(writes()).toEqual([]);
    expect(fx.emu.cloud!.ruleSet).toEqual(before);
  });

  it('deletes after confirmation (--yes without a terminal)', async () => {
    const no = await fx.run(['engine', 'delete', 'etl']);
    expect(no.code).toBe(2);
    expect(byName('etl')).toBeDefined();
    const id = byName('etl')!.id;
    await fx.run(['engine', 'rules', '--file', '-'], { input: JSON.stringify({ ruleInfos: [] }) });
    const yes = await fx.run(['engine', 'delete', 'etl', '--yes']);
    expect(yes.code, yes.stderr).toBe(0);
    expect(engines().has(id)).toBe(false);
  });
});
