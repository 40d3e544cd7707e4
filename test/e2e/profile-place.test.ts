// Where a profile points (docs/cli-contract.md "Identity"): a login, a token exchange or `profile set` given
// another URL, edition or project points the profile there and says so; what it stored for its old place
// (token endpoint, Flight endpoint, edition, project) goes with it, so no credential reaches another host. The
// hosted edition away from api.dremio.cloud: --project-id implies it, and a 404 on the proof request says so.
import { chmodSync, mkdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type EmulatorProcess, startEmulatorCommand } from '../../emulator/test/command.js';
import { runCli } from '../../src/runtime.js';
import { cleanEnv } from '../helpers/dlake.js';
import { ADMIN, expectFailure, SERVICE_USER, useFixture } from '../helpers/fixture.js';
import { until as waitUntil } from '../helpers/until.js';

const PID = '11111111-2222-4333-8444-555555555555';
const soft = useFixture({}, { login: false });
const cloud = useFixture({ edition: 'cloud', cloud: { projectId: PID } }, { login: false });
let cloudPat: string;

beforeAll(() => {
  cloudPat = cloud.emu.state.issueToken(cloud.emu.state.userByName('admin')!.id, 'pat', 3_600_000).token;
});
beforeEach(() => {
  // Each test starts with no profiles, in the software fixture's folder (the cloud emulator is named by --url).
  for (const f of ['config.json', 'credentials.json']) writeFileSync(join(soft.configDir, f), '{}');
});

/** dlake with the software fixture's config folder and no DLAKE_URL: every URL is on the command line. */
const run = (args: string[], input?: string) => soft.run(args, { url: false, input });
const login = (url: string, ...more: string[]) =>
  run(['login', '--url', url, '-u', ADMIN.name, '--password-stdin', ...more], `${ADMIN.password}\n`);
const localhost = () => soft.emu.url.replace('127.0.0.1', 'localhost');

describe('a login with --url on an existing profile', () => {
  it('points the profile at the new URL, says so, and the next command goes there', async () => {
    expect((await login(soft.emu.url)).code).toBe(0);
    const r = await login(localhost());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `Logged in to ${localhost()} as admin (profile "default" now points at ${localhost()}; was ${soft.emu.url})`,
    );
    expect(soft.readJson('config.json').profiles.default.url).toBe(localhost());
    expect(soft.readJson('credentials.json').tokens.default.url).toBe(localhost());
    soft.emu.log.clear();
    const ls = await run(['catalog', 'ls']);
    expect(ls.code, ls.stderr).toBe(0);
    expect(soft.emu.log.entries.at(-1)).toMatchObject({ tokenKind: 'session', status: 200 });
  });

  it('drops the token and Flight endpoints of the old host, so no credential is sent there', async () => {
    writeFileSync(
      join(soft.configDir, 'config.json'),
      JSON.stringify({
        currentProfile: 'default',
        profiles: {
          default: {
            url: 'http://old.invalid:9047',
            authUrl: 'http://login.old.invalid',
            flightUrl: 'grpc://old.invalid:32010',
            routes: { users: 1 },
          },
        },
      }),
    );
    const r = await run(
      ['login', '--url', soft.emu.url, '--token-stdin'],
      `${soft.emu.state.issueToken(soft.emu.state.userByName('admin')!.id, 'pat', 3_600_000).token}\n`,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `profile "default" now points at ${soft.emu.url}; was http://old.invalid:9047`,
    );
    const profile = soft.readJson('config.json').profiles.default;
    expect(profile).toMatchObject({ url: soft.emu.url, authMethod: 'pat' });
    expect(profile).not.toHaveProperty('authUrl');
    expect(profile).not.toHaveProperty('flightUrl');
    expect(profile).not.toHaveProperty('routes');
  });

  it('a token exchange with --url points the profile there too', async () => {
    expect((await login(soft.emu.url)).code).toBe(0);
    const r = await run(
      [
        'token',
        'exchange',
        'client-credentials',
        '--url',
        localhost(),
        '--client-id',
        SERVICE_USER.clientId,
        '--client-secret-stdin',
      ],
      `${SERVICE_USER.clientSecret}\n`,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`profile "default" now points at ${localhost()}; was ${soft.emu.url}`);
    expect(soft.readJson('config.json').profiles.default.url).toBe(localhost());
    expect((await run(['catalog', 'ls'])).code).toBe(0);
  });

  it('says nothing of a move when the URL is the same', async () => {
    expect((await login(soft.emu.url)).code).toBe(0);
    const r = await login(soft.emu.url);
    expect(r.stderr).toContain(`as admin (profile "default");`);
    expect(r.stderr).not.toContain('now points');
  });
});

describe('the hosted edition, and back', () => {
  it('--project-id implies the hosted edition away from api.dremio.cloud', async () => {
    const r = await run(
      ['login', '--url', cloud.emu.url, '--project-id', PID, '--token-stdin'],
      `${cloudPat}\n`,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(soft.readJson('config.json').profiles.default).toMatchObject({
      url: cloud.emu.url,
      edition: 'cloud',
      projectId: PID,
    });
    expect(cloud.emu.log.entries.map((e) => e.path)).toEqual([`/v0/projects/${PID}/catalog`]);
    const ls = await run(['catalog', 'ls']);
    expect(ls.code, ls.stderr).toBe(0);
  });

  it('a 404 on the proof request of a self-hosted login hints at --edition cloud', async () => {
    const r = await run(['login', '--url', cloud.emu.url, '--token-stdin'], `${cloudPat}\n`);
    expectFailure(r, 4, `${cloud.emu.url} has no self-hosted REST API`);
    expect(r.stderr).toContain('hint: if it serves the hosted edition, add `--edition cloud --project-id');
    expect(() => soft.readJson('config.json').profiles.default.url).toThrow();
  });

  it('--project-id with --edition software is refused, not ignored', async () => {
    const r = await run(
      ['login', '--url', cloud.emu.url, '--edition', 'software', '--project-id', PID, '--token-stdin'],
      `${cloudPat}\n`,
    );
    expectFailure(r, 2, '--project-id names a project of the hosted edition');
    expect(cloud.emu.log.entries).toEqual([]);
  });

  it('after a hosted login, a password login to a self-hosted URL works and points the profile there', async () => {
    await run(['login', '--url', cloud.emu.url, '--project-id', PID, '--token-stdin'], `${cloudPat}\n`);
    // Without a URL the profile is still the hosted one: refused, with a hint that is a command that works.
    const refused = await run(['login', '-u', 'admin', '--password-stdin'], 'x\n');
    expectFailure(refused, 2, 'the hosted edition (profile "default") takes a personal access token');
    expect(refused.stderr).toContain('`dlake login --url URL --edition software -u NAME`');
    const r = await login(soft.emu.url, '--edition', 'software');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `now points at ${soft.emu.url}; was ${cloud.emu.url} (cloud edition, project ${PID})`,
    );
    const profile = soft.readJson('config.json').profiles.default;
    expect(profile).toEqual({ url: soft.emu.url, authMethod: 'password', username: 'admin' });
    const ls = await run(['catalog', 'ls']);
    expect(ls.code, ls.stderr).toBe(0);
    // The hosted PAT never went to the self-hosted server.
    expect(soft.emu.log.entries.every((e) => e.tokenKind !== 'pat')).toBe(true);
  });

  it('--edition software on the same URL points the profile at that edition', async () => {
    // A profile left on the hosted edition for a URL that serves the self-hosted one.
    writeFileSync(
      join(soft.configDir, 'config.json'),
      JSON.stringify({ profiles: { default: { url: soft.emu.url, edition: 'cloud', projectId: PID } } }),
    );
    const r = await run(
      ['login', '--edition', 'software', '-u', 'admin', '--password-stdin'],
      `${ADMIN.password}\n`,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `now points at ${soft.emu.url}; was ${soft.emu.url} (cloud edition, project ${PID})`,
    );
    expect(soft.readJson('config.json').profiles.default).toEqual({
      url: soft.emu.url,
      authMethod: 'password',
      username: 'admin',
    });
    expect((await run(['catalog', 'ls'])).code).toBe(0);
  });
});

describe('profile set and delete', () => {
  it('sets --edition and --project-id, and drops neither', async () => {
    expect((await run(['profile', 'set', 'lab', '--url', cloud.emu.url, '--project-id', PID])).code).toBe(0);
    expect(soft.readJson('config.json').profiles.lab).toEqual({
      url: cloud.emu.url,
      edition: 'cloud',
      projectId: PID,
    });
    const r = await run(['profile', 'set', 'lab', '--url', soft.emu.url, '--edition', 'software']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `now points at ${soft.emu.url}; was ${cloud.emu.url} (cloud edition, project ${PID})`,
    );
    expect(soft.readJson('config.json').profiles.lab).toEqual({ url: soft.emu.url, edition: 'software' });
  });

  it("after profile set --url, the old token shows as the old URL's only, and is not sent", async () => {
    expect((await login(soft.emu.url)).code).toBe(0);
    expect((await run(['profile', 'set', 'default', '--url', localhost()])).code).toBe(0);
    const list = await run(['profile', 'list', '-o', 'json']);
    expect(JSON.parse(list.stdout)[0].token).toBe(`session for ${soft.emu.url} only`);
    soft.emu.log.clear();
    expectFailure(await run(['catalog', 'ls']), 3, `not logged in to ${localhost()}`);
    expect(soft.emu.log.entries).toEqual([]);
  });

  it('refuses what a profile does not store, and a project with the software edition', async () => {
    expect((await run(['profile', 'set', 'lab', '--url', soft.emu.url])).code).toBe(0);
    expectFailure(
      await run(['profile', 'set', 'lab', '--timeout', '5s']),
      2,
      'a profile does not store --timeout',
    );
    expectFailure(
      await run(['profile', 'set', 'lab', '--edition', 'software', '--project-id', PID]),
      2,
      '--project-id names a project of the hosted edition',
    );
    expect(soft.readJson('config.json').profiles.lab).toEqual({ url: soft.emu.url });
  });

  it('delete takes -y, and without it and a terminal refuses (exit 2)', async () => {
    expect((await login(soft.emu.url)).code).toBe(0);
    expectFailure(await run(['profile', 'delete', 'default']), 2, 'refusing to delete profile "default"');
    expect(soft.readJson('config.json').profiles).toHaveProperty('default');
    const r = await run(['profile', 'delete', 'default', '-y']);
    expect(r.code, r.stderr).toBe(0);
    expect(soft.readJson('config.json').profiles).toEqual({});
    expect(soft.readJson('credentials.json').tokens).toEqual({});
  });
});

describe('URL userinfo is never printed', () => {
  it('whoami, profile list/show and errors mask http://user:PASSWORD@host', async () => {
    const withSecret = soft.emu.url.replace('http://', 'http://user:PASSWORD-1@');
    const who = await run(['whoami', '--url', withSecret]);
    expect(who.code, who.stderr).toBe(0);
    expect(who.stdout).toContain(soft.emu.url.replace('http://', 'http://***@'));
    writeFileSync(
      join(soft.configDir, 'config.json'),
      JSON.stringify({
        profiles: { hand: { url: withSecret, authUrl: 'https://u:PASSWORD-2@login.example.com' } },
      }),
    );
    for (const args of [
      ['profile', 'list'],
      ['profile', 'show', 'hand', '-o', 'json'],
      ['whoami', '-p', 'hand'],
    ]) {
      const r = await run(args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout + r.stderr).not.toMatch(/PASSWORD|user:/);
      expect(r.stdout).toContain('***@');
    }
    const bad = await run(['whoami', '--check', '--url', 'ftp://user:PASSWORD-3@x.example']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).not.toContain('PASSWORD');
    expect(bad.stderr).toContain('ftp://***@x.example');
  });
});

describe('the config folder', () => {
  it('repairs a credentials.json that others may read, with a warning', async () => {
    expect((await login(soft.emu.url)).code).toBe(0);
    const creds = join(soft.configDir, 'credentials.json');
    chmodSync(creds, 0o666);
    const r = await run(['profile', 'list']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `warning: ${creds} could be read or written by others (mode 0666): made it 0600`,
    );
    expect(statSync(creds).mode & 0o777).toBe(0o600);
    const again = await run(['profile', 'list']);
    expect(again.stderr).toBe('');
  });

  it('a lock that is not a dlake lock is exit 9 naming what to remove', async () => {
    const lock = join(soft.configDir, '.lock');
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'x'), '');
      const r = await run(['profile', 'set', 'a', '--url', soft.emu.url]);
      expectFailure(r, 9, `cannot lock the config folder: ${lock} has files in it`);
      expect(r.stderr).toContain(`hint: if no other dlake is running, remove it (rm -r '${lock}')`);
      rmSync(lock, { recursive: true });
      writeFileSync(lock, '');
      expectFailure(await run(['profile', 'set', 'a', '--url', soft.emu.url]), 9, `${lock} is not a folder`);
      // An empty folder, but dated in the future: never stale, so it would be waited on for 20 s in vain.
      rmSync(lock);
      mkdirSync(lock);
      const later = new Date(Date.now() + 3_600_000);
      utimesSync(lock, later, later);
      expectFailure(
        await run(['profile', 'set', 'a', '--url', soft.emu.url]),
        9,
        `${lock} is dated in the future`,
      );
      expect(soft.readJson('config.json')).toEqual({});
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  });
});

describe('profile list of a huge config', () => {
  it('prints 150,000 profiles on a terminal (wide, not deep: no "nested too deeply", exit 0)', async () => {
    const profiles: Record<string, { url: string }> = {};
    // URLs too wide for 80 columns: the record layout, after the table was measured against the width.
    for (let i = 0; i < 150_000; i++)
      profiles[`p${i}`] = { url: `http://h${i}.${'x'.repeat(80)}.example.com` };
    writeFileSync(join(soft.configDir, 'config.json'), JSON.stringify({ profiles }));
    const out = new Capture(true);
    const err = new Capture(false);
    const code = await runCli(['node', 'dlake', 'profile', 'list'], {
      env: cleanEnv({ DLAKE_CONFIG_DIR: soft.configDir, COLUMNS: '80' }),
      streams: {
        stdin: Readable.from([]) as unknown as NodeJS.ReadStream,
        stdout: out as unknown as NodeJS.WriteStream,
        stderr: err as unknown as NodeJS.WriteStream,
      },
    });
    expect(err.text).toBe('');
    expect(code).toBe(0);
    expect(out.text.split('\n').filter((l) => l.startsWith('NAME')).length).toBe(150_000);
  });
});

/** A stream that keeps what is written; a terminal when `tty`. */
class Capture extends Writable {
  text = '';
  constructor(readonly isTTY: boolean) {
    super();
  }
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

describe("the cloud emulator's banner", () => {
  let emu: EmulatorProcess | undefined;
  afterAll(async () => {
    await emu?.stop();
  });

  it('offers no password, and the login it prints works', async () => {
    emu = await startEmulatorCommand(['--edition', 'cloud', '--port', '0']);
    const banner = await until(emu, /^ {2}analyst: \S+$/m);
    expect(banner).not.toMatch(/password [a-z]/i);
    const command = /echo PAT \| dlake (login .*)$/m.exec(banner)?.[1];
    const pat = /^ {2}admin: (\S+)$/m.exec(banner)?.[1];
    expect(command).toBeDefined();
    const r = await run(command!.split(' '), `${pat}\n`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Verified and stored the personal access token of admin');
  });
});

/**
 * The emulator's output once it matches `re` (the banner is one write, but may arrive in pieces; a loaded
 * machine can take many seconds to start the emulator).
 */
async function until(p: EmulatorProcess, re: RegExp): Promise<string> {
  await waitUntil(() => re.test(p.stdout()), `the emulator prints ${re}`, 60_000);
  return p.stdout();
}
