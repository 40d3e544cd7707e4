// One command across several profiles (docs/cli-contract.md "Fleets"): a self-hosted and a hosted emulator side
// by side and a profile whose server is down. Each profile runs with its own credentials and edition; the
// results are merged (a table with PROFILE, a JSON array of {profile, ok, data | error}, NDJSON with profile);
// one profile's failure stops no other; the exit code is the first failing profile's; writes take one profile.
import { beforeAll, describe, expect, it } from 'vitest';
import { ANALYST, expectFailure, startFixture, useFixture } from '../helpers/fixture.js';

const PID = '31111111-2222-4333-8444-555555555555';
/** The fixtures' own logins are not used: every profile is stored in the self-hosted fixture's config folder. */
const self = useFixture({}, { login: false });
const hosted = useFixture({ edition: 'cloud', cloud: { projectId: PID } }, { login: false });
/** dlake with the self-hosted fixture's config folder, where every profile is stored; no DLAKE_URL. */
const run = (args: string[]) => self.run(args, { url: false });

beforeAll(async () => {
  const ok = async (args: string[], input?: string) => {
    const r = await self.run(args, { url: false, input });
    expect(r.code, r.stderr).toBe(0);
  };
  await ok(
    ['login', '-p', 'dev', '--url', self.emu.url, '-u', 'admin', '--password-stdin'],
    'admin-pass-1\n',
  );
  await ok(
    ['login', '-p', 'dev-analyst', '--url', self.emu.url, '-u', ANALYST.name, '--password-stdin'],
    `${ANALYST.password}\n`,
  );
  await ok(
    [
      '--edition',
      'cloud',
      '--project-id',
      PID,
      'login',
      '-p',
      'prod-cloud',
      '--url',
      hosted.emu.url,
      '--token-stdin',
    ],
    `${hosted.pat()}\n`,
  );
  // A profile logged in to a server that has gone away since.
  const gone = await startFixture();
  await ok(
    ['login', '-p', 'prod-down', '--url', gone.emu.url, '-u', 'admin', '--password-stdin'],
    'admin-pass-1\n',
  );
  await gone.close();
  await ok([
    '-p',
    'dev',
    'api',
    'POST',
    'catalog',
    '--data',
    JSON.stringify({ entityType: 'space', name: 'DevSpace' }),
  ]);
});

describe('fleets', () => {
  it('JSON: one entry per profile in the order given, each from its own server and credentials', async () => {
    const r = await run(['-p', 'dev,prod-cloud', '-p', 'prod-down', 'catalog', 'ls', '-o', 'json']);
    const out = JSON.parse(r.stdout);
    expect(out.map((e: { profile: string; ok: boolean }) => [e.profile, e.ok])).toEqual([
      ['dev', true],
      ['prod-cloud', true],
      ['prod-down', false],
    ]);
    expect(out[0].data.map((i: { path: string[] }) => i.path[0])).toContain('DevSpace');
    expect(out[1].data.map((i: { path: string[] }) => i.path[0])).not.toContain('DevSpace');
    expect(out[2].error.message).toMatch(/cannot reach/);
    // The exit code is the down profile's, and said once more in the summary.
    expect(r.code).toBe(out[2].error.exitCode);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^\[prod-down\] error: .*cannot reach/m);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe('1 of 3 profiles failed');
    // Each server saw only its own profile's requests, with that profile's credentials.
    expect(new Set(self.emu.log.entries.map((e) => e.user))).toEqual(new Set(['admin']));
    expect(
      hosted.emu.log.entries.every((e) => e.path.startsWith(`/v0/projects/${PID}/`) && e.tokenKind === 'pat'),
    ).toBe(true);
    expect(hosted.emu.log.entries.length).toBeGreaterThan(0);
  });

  it('a table with a leading PROFILE column, a glob naming profiles, exit 0 when all succeed', async () => {
    const r = await run(['-p', 'dev*', 'catalog', 'ls']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^PROFILE\s+/);
    const profiles = lines.slice(1).map((l) => l.split(/\s+/)[0]);
    expect(new Set(profiles)).toEqual(new Set(['dev', 'dev-analyst']));
    expect(profiles.indexOf('dev-analyst')).toBeGreaterThan(profiles.lastIndexOf('dev'));
    expect(r.stderr).not.toMatch(/profiles failed/);
  });

  it('NDJSON: every line carries its profile; a failed profile is a line of its own', async () => {
    const r = await run(['-p', 'prod-down,dev', 'catalog', 'ls', '-o', 'ndjson']);
    const lines = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({
      profile: 'prod-down',
      ok: false,
      error: { message: expect.any(String) },
    });
    expect(lines.slice(1).length).toBeGreaterThan(0);
    for (const l of lines.slice(1)) expect(l.profile).toBe('dev');
    expect(r.code).toBe(lines[0].error.exitCode);
  });

  it('--parallel 1 runs one profile after the other, each with its own login', async () => {
    const r = await run(['-p', 'dev,dev-analyst', '--parallel', '1', 'user', 'get', 'admin', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const users = self.emu.log.entries.map((e) => e.user);
    expect(users.length).toBeGreaterThan(1);
    expect(users.indexOf('analyst')).toBeGreaterThan(users.lastIndexOf('admin'));
  });

  it('a command that changes something refuses several profiles, sending nothing', async () => {
    const r = await run(['-p', 'dev,prod-cloud', 'role', 'create', 'team']);
    expectFailure(r, 2, 'runs on one profile at a time, not on 2');
    expect(self.emu.log.entries).toEqual([]);
    expect(hosted.emu.log.entries).toEqual([]);
  });

  it('a glob that matches nothing, and a --parallel that is no number, are usage errors', async () => {
    expectFailure(await run(['-p', 'staging-*', 'catalog', 'ls']), 2, '-p staging-* matches no profile');
    expectFailure(await run(['-p', 'dev,prod-cloud', '--parallel', '0', 'catalog', 'ls']), 2, '--parallel');
    expect(self.emu.log.entries).toEqual([]);
  });

  it('one profile is not a fleet: the command prints as usual', async () => {
    const r = await run(['-p', 'dev', 'catalog', 'ls', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(Array.isArray(JSON.parse(r.stdout))).toBe(true);
    expect(JSON.parse(r.stdout)[0].profile).toBeUndefined();
  });
});
