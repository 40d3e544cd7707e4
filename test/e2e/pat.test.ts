// `dlake pat list|create` against the emulator: the token alone on stdout (so `$(…)` captures it), never
// anywhere else; lifetimes refused before any request; admin-only; PATs disabled; community edition.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, tempConfigDir } from '../helpers/dlake.js';
import {
  ANALYST,
  expectFailure,
  type Fixture,
  startFixture,
  useCommunityFixture,
  useFixture,
} from '../helpers/fixture.js';

const fx = useFixture();
beforeAll(async () => {
  for (const name of ['bob', 'carl']) expect((await fx.run(['user', 'create', name])).code).toBe(0);
});
beforeEach(() => {
  fx.emu.faults.clear();
  fx.emu.log.clear();
});

const DAY = 24 * 60 * 60 * 1000;
const patsOf = (name: string) =>
  [...fx.emu.state.tokens.values()].filter(
    (t) => t.kind === 'pat' && t.userId === fx.emu.state.userByName(name)!.id,
  );

/** Runs a shell script in which `dlake` is the built binary, in this fixture's environment. */
function sh(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', `dlake() { "$NODE_BIN" "$DLAKE_BIN" "$@"; }\n${script}`], {
      env: cleanEnv({
        DLAKE_CONFIG_DIR: fx.configDir,
        DLAKE_URL: fx.emu.url,
        NODE_BIN: process.execPath,
        DLAKE_BIN: BIN,
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('dlake pat create', () => {
  it('writes the token alone to stdout, notices to stderr, and the token works for login', async () => {
    const r = await fx.run(['pat', 'create', 'bob', '--label', 'ci', '--expires', '30d']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^[A-Za-z0-9_\-.~+/=]+\n$/);
    const token = r.stdout.trimEnd();
    expect(r.stderr).toContain('Created personal access token "ci" for bob, valid 30d');
    expect(r.stderr).not.toContain(token);

    const [pat] = patsOf('bob');
    expect(pat).toMatchObject({ token, label: 'ci' });
    expect(Math.abs(pat!.expiresAt - pat!.createdAt - 30 * DAY)).toBeLessThan(1000);
    // A POST that creates something is sent once.
    expect(fx.emu.log.find('POST', '/api/v3/user/')).toHaveLength(1);

    fx.emu.log.clear();
    const login = await fx.run(['login', '-p', 'bob', '--token-stdin'], { input: `${token}\n` });
    expect(login.code, login.stderr).toBe(0);
    expect(fx.emu.log.entries.at(-1)).toMatchObject({ user: 'bob', tokenKind: 'pat', authScheme: 'Bearer' });
  });

  it('TOKEN=$(dlake pat create …) captures exactly the token, and login --token-stdin takes it', async () => {
    const r = await sh(
      'TOKEN=$(dlake pat create carl --label shell --expires 2h) || exit 9\n' +
        'printf "[%s]" "$TOKEN"\n' +
        'printf "%s\\n" "$TOKEN" | dlake login -p carl --token-stdin -q || exit 8\n' +
        'dlake -p carl api GET /api/v3/catalog -q > /dev/null || exit 7',
    );
    expect(r.code, r.stderr).toBe(0);
    const carl = patsOf('carl').find((t) => t.label === 'shell')!;
    expect(r.stdout).toBe(`[${carl.token}]`);
    expect(r.stderr).not.toContain(carl.token);
    expect(fx.emu.log.find('GET', '/api/v3/catalog').at(-1)).toMatchObject({
      user: 'carl',
      tokenKind: 'pat',
    });
  });

  it('--debug traces the exchange but never the token', async () => {
    const r = await fx.run(['pat', 'create', 'bob', '--label', 'debug', '--expires', '1h', '--debug']);
    expect(r.code, r.stderr).toBe(0);
    const token = r.stdout.trimEnd();
    expect(token).toBe(patsOf('bob').find((t) => t.label === 'debug')!.token);
    expect(r.stderr).toContain('debug: > POST');
    expect(r.stderr).not.toContain(token);
  });

  it('--dry-run prints the request with the lifetime in ms and creates nothing', async () => {
    const before = patsOf('bob').length;
    const r = await fx.run([
      'pat',
      'create',
      'bob',
      '--label',
      'dry',
      '--expires',
      '7d',
      '--dry-run',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).body).toEqual({ label: 'dry', millisecondsToExpire: 7 * DAY });
    expect(fx.emu.log.find('POST', '/')).toEqual([]);
    expect(patsOf('bob')).toHaveLength(before);
  });

  it('an --expires that does not parse, or beyond 180 days: exit 2 before any request', async () => {
    const bad = await fx.run(['pat', 'create', 'bob', '--label', 'x', '--expires', 'soon']);
    expectFailure(bad, 2, '--expires: invalid duration "soon"');
    const long = await fx.run(['pat', 'create', 'bob', '--label', 'x', '--expires', '181d']);
    expectFailure(long, 2, 'the service allows at most 180d');
    const short = await fx.run(['pat', 'create', 'bob', '--label', 'x', '--expires', '10s']);
    expectFailure(short, 2, 'too short');
    const noLabel = await fx.run(['pat', 'create', 'bob', '--expires', '1d']);
    expectFailure(noLabel, 2, "required option '--label <label>' not specified");
    expect(fx.emu.log.entries).toEqual([]);
  });

  it('an unknown user: exit 4 and nothing created', async () => {
    const before = fx.emu.state.tokens.size;
    expectFailure(
      await fx.run(['pat', 'create', 'nobody', '--label', 'x']),
      4,
      'error: not found: user "nobody"',
    );
    expect(fx.emu.state.tokens.size).toBe(before);
  });
});

describe('dlake pat list', () => {
  it('lists TID, LABEL, CREATED and EXPIRES, never the tokens', async () => {
    const created = await fx.run(['pat', 'create', 'carl', '--label', 'listed', '--expires', '90d']);
    const token = created.stdout.trimEnd();
    const r = await fx.run(['pat', 'list', 'carl']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^TID\s+LABEL\s+CREATED\s+EXPIRES$/);
    const pat = patsOf('carl').find((t) => t.label === 'listed')!;
    expect(r.stdout).toMatch(new RegExp(`^${pat.patId}\\s+listed\\s+\\S+Z\\s+\\S+Z$`, 'm'));
    const json = await fx.run(['pat', 'list', fx.emu.state.userByName('carl')!.id, '-o', 'json']);
    expect(JSON.parse(json.stdout)).toContainEqual(
      expect.objectContaining({ tid: pat.patId, label: 'listed', uid: pat.userId }),
    );
    for (const out of [r.stdout, r.stderr, json.stdout]) expect(out).not.toContain(token);
  });

  it('a user without tokens: an empty table and a note on stderr', async () => {
    expect((await fx.run(['user', 'create', 'tokenless'])).code).toBe(0);
    const r = await fx.run(['pat', 'list', 'tokenless']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('No personal access tokens for tokenless.');
  });

  it('a non-admin listing or creating tokens of another user: exit 3 with the reason', async () => {
    expect((await fx.login(ANALYST, 'analyst')).code).toBe(0);
    const list = await fx.run(['pat', 'list', 'bob', '-p', 'analyst']);
    expectFailure(list, 3, 'permission denied');
    expect(list.stderr).toContain('hint: listing and creating personal access tokens needs an admin');
    const before = fx.emu.state.tokens.size;
    expectFailure(
      await fx.run(['pat', 'create', 'bob', '--label', 'x', '-p', 'analyst']),
      3,
      'permission denied',
    );
    expect(fx.emu.state.tokens.size).toBe(before);
  });

  it('an unknown user: exit 4', async () => {
    expectFailure(await fx.run(['pat', 'list', 'nobody']), 4, 'error: not found: user "nobody"');
  });
});

describe('dlake pat list without a user', () => {
  it('lists your own tokens (the user the profile logged in as)', async () => {
    const created = await fx.run(['pat', 'create', 'admin', '--label', 'mine']);
    expect(created.code, created.stderr).toBe(0);
    fx.emu.log.clear();
    const r = await fx.run(['pat', 'list', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).map((p: { label: string }) => p.label)).toContain('mine');
    expect(fx.emu.log.find('GET', '/api/v3/user/by-name/admin')).toHaveLength(1);
  });

  it('with a bearer token that does not say whose it is: exit 2 asking for the user', async () => {
    const created = await fx.run(['pat', 'create', 'admin', '--label', 'env']);
    // A config folder without any login: only the token says who calls.
    const bare = tempConfigDir();
    const r = await fx.run(['pat', 'list'], {
      env: { DLAKE_TOKEN: created.stdout.trim(), DLAKE_CONFIG_DIR: bare.dir },
    });
    bare.cleanup();
    expectFailure(r, 2, 'cannot tell which user you are');
    expect(r.stderr).toContain('hint: name the user');
  });
});

describe('dlake pat delete', () => {
  it('revokes one token by id; the others stay', async () => {
    for (const label of ['one', 'two']) {
      expect((await fx.run(['pat', 'create', 'bob', '--label', label])).code).toBe(0);
    }
    const one = patsOf('bob').find((t) => t.label === 'one')!;
    const r = await fx.run(['pat', 'delete', 'bob', one.patId!, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Revoked personal access token ${one.patId} of bob.`);
    expect(patsOf('bob').map((t) => t.label)).not.toContain('one');
    expect(patsOf('bob').map((t) => t.label)).toContain('two');
  });

  it('--all revokes every token of the user; --dry-run sends nothing', async () => {
    expect((await fx.run(['pat', 'create', 'carl', '--label', 'a'])).code).toBe(0);
    const dry = await fx.run(['pat', 'delete', 'carl', '--all', '--dry-run', '-o', 'json']);
    expect(dry.code, dry.stderr).toBe(0);
    const carl = fx.emu.state.userByName('carl')!.id;
    expect(JSON.parse(dry.stdout)).toMatchObject({
      method: 'DELETE',
      url: `${fx.emu.url}/api/v3/user/${carl}/token`,
    });
    expect(patsOf('carl').length).toBeGreaterThan(0);
    const r = await fx.run(['pat', 'revoke', 'carl', '--all', '-y']);
    expect(r.code, r.stderr).toBe(0);
    expect(patsOf('carl')).toEqual([]);
  });

  it('bad input: no token and no --all, both, a token id that is not one, no --yes without a TTY (exit 2)', async () => {
    expectFailure(await fx.run(['pat', 'delete', 'bob']), 2, 'which token?');
    const both = await fx.run(['pat', 'delete', 'bob', '6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b', '--all']);
    expectFailure(both, 2, 'either a token id or --all');
    expectFailure(await fx.run(['pat', 'delete', 'bob', '../../token', '-y']), 2, 'is not a token id');
    expectFailure(await fx.run(['pat', 'delete', 'bob', '--all']), 2, 'without confirmation');
    expect(fx.emu.log.entries.filter((e) => e.method === 'DELETE')).toEqual([]);
  });

  it('an unknown token or user: exit 4', async () => {
    const r = await fx.run(['pat', 'delete', 'bob', '6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b', '-y']);
    expectFailure(r, 4, 'not found');
    expectFailure(
      await fx.run(['pat', 'delete', 'nobody', '--all', '-y']),
      4,
      'error: not found: user "nobody"',
    );
  });
});

describe('when the service has PATs switched off', () => {
  let off: Fixture;
  beforeAll(async () => {
    off = await startFixture({ patsEnabled: false });
    expect((await off.login()).code).toBe(0);
  });
  afterAll(() => off.close());

  it('pat list and create say so (exit 3)', async () => {
    const list = await off.run(['pat', 'list', 'admin']);
    expectFailure(list, 3, 'error: personal access tokens are disabled on this service');
    expect(list.stderr).toContain('hint: an administrator can enable them');
    const create = await off.run(['pat', 'create', 'analyst', '--label', 'x']);
    expectFailure(create, 3, 'personal access tokens are disabled on this service');
    expect([...off.emu.state.tokens.values()].filter((t) => t.kind === 'pat')).toEqual([]);
  });
});

describe('on a community-edition server', () => {
  let cx!: Fixture;
  useCommunityFixture((f) => {
    cx = f;
  });

  it('pat list and create end with one sentence about the edition (exit 4)', async () => {
    const sentence = "error: this service's edition does not offer personal access tokens (Enterprise only)";
    const list = await cx.run(['pat', 'list', 'admin']);
    expectFailure(list, 4, sentence);
    expect(list.stderr).not.toContain('HTTP 404');
    expectFailure(await cx.run(['pat', 'create', 'analyst', '--label', 'x']), 4, sentence);
    expectFailure(await cx.run(['pat', 'delete', 'analyst', '--all', '-y']), 4, sentence);
  });
});
