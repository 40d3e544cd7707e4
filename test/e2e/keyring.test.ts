// The OS credential store, for real: GNOME Keyring's Secret Service on a private D-Bus session bus
// (test/helpers/keyring.ts), asked by dlake in-process over D-Bus (src/config/secret-service.ts). Each login
// method, renewal, logout and profile delete, the Flight token, dlake mcp and the SQL shell, migration from the
// file, a locked keyring, the fallback without a bus, a store that never answers or stops answering, two
// processes at once, and no secret in any file of the config folder or HOME.
// Skipped only on a developer's machine without gnome-keyring; on CI (which installs it) its absence fails.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv } from '../helpers/dlake.js';
import { ADMIN, expectFailure, type Fixture, SERVICE_USER, startFixture } from '../helpers/fixture.js';
import {
  processesWith,
  type SecretService,
  secretServiceMissing,
  startBusProxy,
  startSecretService,
  storedInKeyring,
} from '../helpers/keyring.js';
import { startMcp } from '../helpers/mcp.js';
import { startShellInProcess } from '../helpers/shell-in-process.js';
import { until } from '../helpers/until.js';

/** Every file under `dirs` whose bytes hold one of `secrets`. */
function filesHolding(dirs: string[], secrets: string[]): string[] {
  const found: string[] = [];
  for (const dir of dirs)
    for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (!e.isFile()) continue;
      const file = join(e.parentPath, e.name);
      const bytes = readFileSync(file);
      if (secrets.some((s) => bytes.includes(s))) found.push(file);
    }
  return found;
}

describe.skipIf(secretServiceMissing())('the OS credential store (a real Secret Service)', () => {
  let ss: SecretService;
  let fx: Fixture;
  let privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  let flightUrl: string;

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey;
    [ss, fx] = await Promise.all([
      startSecretService(),
      startFixture({ jwtPublicKeyPem: await exportSPKI(pair.publicKey), flightPort: 0 }),
    ]);
    flightUrl = fx.emu.flight!.url;
  });
  afterAll(async () => {
    await Promise.all([ss?.close(), fx?.close()]);
  });
  beforeEach(() => {
    for (const f of ['config.json', 'credentials.json']) rmSync(join(fx.configDir, f), { force: true });
    fx.emu.log.clear();
  });

  const run = (args: string[], opts: { input?: string; env?: Record<string, string> } = {}) =>
    fx.run(args, { ...opts, env: { ...ss.env, ...opts.env } });
  const spawn = (args: string[], opts: { input?: string; env?: Record<string, string> } = {}) =>
    fx.spawn(args, { ...opts, env: { ...ss.env, ...opts.env } });
  /** The profile's entry in credentials.json. */
  const entry = (profile = 'default') => fx.readJson('credentials.json').tokens[profile];
  /** The profile's items in the store, by kind. */
  const itemsOf = async (profile = 'default'): Promise<Record<string, string>> => {
    const id = entry(profile)?.keyring?.id;
    const all = await ss.items();
    return Object.fromEntries(
      Object.entries(all)
        .filter(([account]) => account.startsWith(`${profile}:`) && account.endsWith(`:${id}`))
        .map(([account, secret]) => [account.split(':')[1]!, secret]),
    );
  };
  const noSecretInFiles = (secrets: string[]) =>
    expect(filesHolding([fx.configDir, ss.dir], secrets)).toEqual([]);

  it('password login: the session in the store, none in a file; commands use it; whoami and profile show say so', async () => {
    const login = await run(['login', '-u', ADMIN.name, '--password-stdin'], {
      input: `${ADMIN.password}\n`,
    });
    expect([login.code, login.stderr]).toEqual([0, expect.stringMatching(/^Logged in to [^\n]*\n$/)]);
    const stored = entry();
    expect(stored).toMatchObject({ kind: 'session', obtainedVia: 'password', keyring: { items: ['token'] } });
    expect(stored.token).toBeUndefined();
    const { token } = await itemsOf();
    expect(token).toMatch(/^\S{16,}$/);

    const ls = await run(['catalog', 'ls', '-o', 'json']);
    expect(ls.code, ls.stderr).toBe(0);
    expect(fx.emu.log.entries.at(-1)).toMatchObject({ authScheme: '_service', user: 'admin', status: 200 });

    const who = await run(['whoami']);
    expect(who.stdout).toMatch(/^stored in +keyring \(the credential store, service "dlake"\) +profile$/m);
    const show = await run(['profile', 'show', '-o', 'json']);
    expect(JSON.parse(show.stdout)).toMatchObject({ storedIn: 'keyring', token: 'session via password' });
    noSecretInFiles([token!]);
  });

  it('PAT login, then PAT exchange; the expired access token renewed by a new exchange, in place', async () => {
    await run(['login', '-u', ADMIN.name, '--password-stdin'], { input: `${ADMIN.password}\n` });
    const pat = (await run(['pat', 'create', 'analyst', '--label', 'kr', '--expires', '5d'])).stdout.trim();
    const login = await run(['login', '-p', 'ana', '--token-stdin'], { input: `${pat}\n` });
    expect(login.code, login.stderr).toBe(0);
    expect(entry('ana')).toMatchObject({ obtainedVia: 'pat', keyring: { items: ['token'] } });
    expect(await itemsOf('ana')).toEqual({ token: pat });

    const exchange = await run(['token', 'exchange', 'pat', '-p', 'ana']);
    expect(exchange.code, exchange.stderr).toBe(0);
    const { id } = entry('ana').keyring;
    expect(entry('ana')).toMatchObject({
      obtainedVia: 'pat-exchange',
      keyring: { id, items: ['token', 'pat'] },
    });
    const first = await itemsOf('ana');
    expect(first.pat).toBe(pat);
    expect(first.token).not.toBe(pat);

    // Expired: the next command exchanges the stored PAT again and stores the new token under the same item.
    const creds = fx.readJson('credentials.json');
    creds.tokens.ana.expiresAt = '2020-01-01T00:00:00.000Z';
    writeFileSync(join(fx.configDir, 'credentials.json'), JSON.stringify(creds));
    fx.emu.log.clear();
    expect((await run(['catalog', 'ls', '-p', 'ana'])).code).toBe(0);
    expect(fx.emu.log.find('POST', '/oauth/token')).toHaveLength(1);
    const renewed = await itemsOf('ana');
    expect(entry('ana').keyring.id).toBe(id);
    expect(renewed.pat).toBe(pat);
    expect(renewed.token).not.toBe(first.token);
    noSecretInFiles([pat, first.token!, renewed.token!]);
  });

  it('client credentials and JWT exchanges; a refresh-token renewal in one process is seen by the next', async () => {
    const cc = await run(
      [
        'token',
        'exchange',
        'client-credentials',
        '--client-id',
        SERVICE_USER.clientId,
        '--client-secret-stdin',
      ],
      { input: SERVICE_USER.clientSecret },
    );
    expect(cc.code, cc.stderr).toBe(0);
    expect(entry().keyring.items).toEqual(['token', 'refresh-token']);
    const before = await itemsOf();

    const creds = fx.readJson('credentials.json');
    creds.tokens.default.expiresAt = '2020-01-01T00:00:00.000Z';
    writeFileSync(join(fx.configDir, 'credentials.json'), JSON.stringify(creds));
    fx.emu.log.clear();
    const first = await spawn(['catalog', 'ls']);
    expect(first.code, first.stderr).toBe(0);
    expect(fx.emu.log.entries.filter((e) => e.grant).map((e) => e.grant)).toEqual(['refresh_token']);
    const second = await spawn(['catalog', 'ls']);
    expect(second.code, second.stderr).toBe(0);
    // The second process used the renewed token from the store: no second renewal.
    expect(fx.emu.log.entries.filter((e) => e.grant)).toHaveLength(1);
    const after = await itemsOf();
    expect(after.token).not.toBe(before.token);

    const jwtFile = join(fx.configDir, '..', `kr-jwt-${process.pid}.txt`);
    writeFileSync(
      jwtFile,
      await new SignJWT({})
        .setProtectedHeader({ alg: 'RS256' })
        .setSubject('analyst')
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(privateKey),
    );
    const jwt = await run(['token', 'exchange', 'jwt', '-p', 'j', '--subject-token-file', jwtFile]);
    rmSync(jwtFile);
    expect(jwt.code, jwt.stderr).toBe(0);
    expect(entry('j')).toMatchObject({ obtainedVia: 'jwt', keyring: { items: ['token'] } });
    noSecretInFiles([before.token!, before['refresh-token']!, after.token!, (await itemsOf('j')).token!]);
  });

  it("a password login's Flight bearer token is an item of its own, and an export over Flight uses it", async () => {
    const login = await run(['--flight-url', flightUrl, 'login', '-u', ADMIN.name, '--password-stdin'], {
      input: `${ADMIN.password}\n`,
    });
    expect(login.code, login.stderr).toBe(0);
    const items = await itemsOf();
    expect(Object.keys(items).sort()).toEqual(['flight-token', 'token']);
    expect(entry().flight).toEqual({ url: flightUrl });
    const out = join(fx.configDir, '..', `kr-${process.pid}.csv`);
    const r = await run(['sql', 'SELECT 1 AS a', '--out', out, '--transport', 'flight']);
    rmSync(out, { force: true });
    expect(r.code, r.stderr).toBe(0);
    expect(fx.emu.flight!.calls.at(-1)).toMatchObject({ authScheme: 'Bearer' });
    noSecretInFiles(Object.values(items));
  });

  it("logout and profile delete remove the profile's items", async () => {
    await run(['login', '-u', ADMIN.name, '--password-stdin'], { input: `${ADMIN.password}\n` });
    await run(['login', '-p', 'other', '-u', ADMIN.name, '--password-stdin'], {
      input: `${ADMIN.password}\n`,
    });
    const [mine, other] = [entry().keyring.id, entry('other').keyring.id];
    expect((await run(['logout'])).code).toBe(0);
    // The session ended on the service with the token read from the store.
    expect(fx.emu.log.find('DELETE', '/apiv2/login')).toHaveLength(1);
    const accounts = Object.keys(await ss.items());
    expect(accounts.filter((a) => a.endsWith(mine))).toEqual([]);
    expect(accounts).toContain(`other:token:${other}`);
    const deleted = await run(['profile', 'delete', 'other', '-y']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(Object.keys(await ss.items()).filter((a) => a.endsWith(other))).toEqual([]);
  });

  it('a token kept in the file moves to the store on the next command, removed from the file once read back', async () => {
    const login = await run(['login', '-u', ADMIN.name, '--password-stdin'], {
      input: `${ADMIN.password}\n`,
      env: { DLAKE_CREDENTIAL_STORE: 'file' },
    });
    expect(login.code, login.stderr).toBe(0);
    const token = entry().token as string;
    expect(token).toBeTruthy();
    expect((await run(['whoami'])).stdout).toMatch(/^stored in +file \(.*credentials\.json, mode 0600\)/m);

    const ls = await run(['catalog', 'ls']);
    expect([ls.code, ls.stderr]).toEqual([0, '']);
    expect(entry().token).toBeUndefined();
    expect(await itemsOf()).toEqual({ token });
    expect((await run(['catalog', 'ls'])).code).toBe(0);
    expect(fx.emu.log.find('POST', '/apiv2/login')).toHaveLength(1);
    noSecretInFiles([token]);
  });

  it('dlake mcp and the SQL shell send the token read from the store', async () => {
    await run(['login', '-u', ADMIN.name, '--password-stdin'], { input: `${ADMIN.password}\n` });
    const where = { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url };
    fx.emu.log.clear();
    const mcp = await startMcp([], { ...cleanEnv(where), ...ss.env });
    try {
      const r = await mcp.call('run_sql', { sql: 'SELECT 1 AS one' });
      expect(r.isError, r.text).toBe(false);
    } finally {
      await mcp.close();
    }
    const shell = startShellInProcess({ ...where, ...ss.env });
    await shell.waitFor('dlake> ');
    shell.type('SELECT 2 AS two;\r');
    await shell.waitFor(/two\n2\n/, 'stdout');
    shell.type('\x04');
    expect(await shell.done).toBe(0);
    const sent = fx.emu.log.entries.filter((e) => e.path === '/api/v3/sql');
    expect(sent.map((e) => [e.authScheme, e.user, e.status])).toEqual([
      ['_service', 'admin', 200],
      ['_service', 'admin', 200],
    ]);
    noSecretInFiles(Object.values(await itemsOf()));
  });

  it('a command reads its token in-process: one connection to the bus, no helper process, no socket of its own', async () => {
    const login = await run(['login', '-u', ADMIN.name, '--password-stdin'], {
      input: `${ADMIN.password}\n`,
    });
    expect(login.code, login.stderr).toBe(0);
    const before = await ss.connectionsSoFar();
    // A mark in its environment that any process it started would inherit.
    const mark = `KEYRING_TEST_RUN=${process.pid}-${Date.now()}`;
    const ls = await spawn(['catalog', 'ls', '-o', 'json'], {
      env: { KEYRING_TEST_RUN: mark.split('=')[1]! },
    });
    expect([ls.code, ls.stderr]).toEqual([0, '']);
    expect(fx.emu.log.entries.at(-1)).toMatchObject({ authScheme: '_service', user: 'admin', status: 200 });
    // Two more: the command's own, and the asker's.
    expect(await ss.connectionsSoFar()).toBe(before + 2);
    // Nothing of dlake's is left in the runtime folder, and no process of it runs on.
    expect(readdirSync(ss.env.XDG_RUNTIME_DIR).sort()).toEqual(['bus', 'keyring']);
    expect(processesWith(mark)).toEqual([]);
  });

  it('a store that stops answering between two commands: one error line, exit 9, nothing sent, its connection closed', async () => {
    const proxy = await startBusProxy(ss.env.DBUS_SESSION_BUS_ADDRESS);
    try {
      const env = { DBUS_SESSION_BUS_ADDRESS: proxy.address };
      const login = await run(['login', '-u', ADMIN.name, '--password-stdin'], {
        input: `${ADMIN.password}\n`,
        env,
      });
      expect(login.code, login.stderr).toBe(0);
      proxy.freeze();
      fx.emu.log.clear();
      const r = await spawn(['catalog', 'ls'], { env: { ...env, DLAKE_CREDENTIAL_STORE_TIMEOUT: '1000' } });
      expect(r.signal, 'dlake hung').toBeNull();
      expectFailure(
        r,
        9,
        'the credential store failed: no answer within 1s (a locked keyring waiting for a prompt nobody sees?)',
      );
      expect(fx.emu.log.entries).toEqual([]);
      await proxy.drained();
    } finally {
      await proxy.close();
    }
  });

  it('two processes logging in at once: both tokens kept, each in its own items', async () => {
    const [a, b] = await Promise.all(
      ['p1', 'p2'].map((p) =>
        spawn(['login', '-p', p, '-u', ADMIN.name, '--password-stdin'], { input: `${ADMIN.password}\n` }),
      ),
    );
    expect([a!.code, b!.code]).toEqual([0, 0]);
    const [one, two] = [await itemsOf('p1'), await itemsOf('p2')];
    expect(one.token).toBeTruthy();
    expect(two.token).toBeTruthy();
    expect(one.token).not.toBe(two.token);
    for (const p of ['p1', 'p2']) expect((await spawn(['catalog', 'ls', '-p', p])).code).toBe(0);
  });
});

describe.skipIf(secretServiceMissing())('a locked keyring', () => {
  it('a command that needs its token: one error line, exit 9, nothing sent', async () => {
    const [ss, fx] = await Promise.all([startSecretService(), startFixture()]);
    try {
      const env = { ...ss.env };
      const login = await fx.run(['login', '-u', ADMIN.name, '--password-stdin'], {
        input: `${ADMIN.password}\n`,
        env,
      });
      expect(login.code, login.stderr).toBe(0);
      await ss.lock();
      fx.emu.log.clear();
      // No prompter to ask the user (a session nobody sees): the store dismisses the unlock at once.
      const r = await fx.spawn(['catalog', 'ls'], {
        env: { ...env, DLAKE_CREDENTIAL_STORE_TIMEOUT: '5000' },
      });
      expect(r.signal, 'dlake hung').toBeNull();
      expectFailure(
        r,
        9,
        /^error: the credential store failed: .*(unlock prompt was dismissed|no answer within 5s)/,
      );
      expect(r.stderr).toContain('hint: unlock the keyring and run the command again');
      expect(fx.emu.log.entries).toEqual([]);
    } finally {
      await Promise.all([ss.close(), fx.close()]);
    }
  });
});

describe('without a credential store', () => {
  let fx: Fixture;
  let silent: Server;
  const connections = new Set<Socket>();
  let dir: string;
  beforeAll(async () => {
    fx = await startFixture();
    dir = mkdtempSync(join(tmpdir(), 'dlake-silent-bus-'));
    // A "bus" that accepts a connection and never says a word: not even the handshake's OK.
    silent = createServer((c) => {
      connections.add(c);
      // Read (and drop) what it sends, so that its end is seen.
      c.resume();
      c.on('close', () => connections.delete(c));
    });
    await new Promise<void>((done) => silent.listen(join(dir, 'bus'), done));
  });
  afterAll(async () => {
    // Each connection was a command's, destroyed at its deadline; one left open would keep the server open.
    await until(() => connections.size === 0, "every command's connection to the silent bus closed");
    await new Promise((done) => silent.close(done));
    rmSync(dir, { recursive: true, force: true });
    await fx.close();
  });
  beforeEach(() => {
    for (const f of ['config.json', 'credentials.json']) rmSync(join(fx.configDir, f), { force: true });
    fx.emu.log.clear();
  });
  const silentBus = () => ({ DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dir, 'bus')}` });

  it('no session bus: the 0600 file, said once by the login that stores the token', async () => {
    const login = await fx.run(['login', '-u', ADMIN.name, '--password-stdin'], {
      input: `${ADMIN.password}\n`,
    });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr.split('\n')[1]).toBe(
      `note: no credential store available (no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set): the token is kept in ${join(fx.configDir, 'credentials.json')}, mode 0600`,
    );
    expect(fx.readJson('credentials.json').tokens.default.token).toBeTruthy();
    const ls = await fx.run(['catalog', 'ls']);
    expect([ls.code, ls.stderr]).toEqual([0, '']);
  });

  it('--credential-store keyring (and DLAKE_CREDENTIAL_STORE=keyring) with none: exit 9 naming why, nothing sent', async () => {
    for (const [args, env] of [
      [['--credential-store', 'keyring'], {}],
      [[], { DLAKE_CREDENTIAL_STORE: 'keyring' }],
    ] as const) {
      const r = await fx.run(['login', '-u', ADMIN.name, '--password-stdin', ...args], {
        input: `${ADMIN.password}\n`,
        env,
      });
      expectFailure(
        r,
        9,
        'no credential store available (no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set)',
      );
    }
    expect(fx.emu.log.entries).toEqual([]);
    const bad = await fx.run(['login', '-u', ADMIN.name, '--password-stdin'], {
      input: `${ADMIN.password}\n`,
      env: { DLAKE_CREDENTIAL_STORE: 'vault' },
    });
    expectFailure(bad, 2, 'DLAKE_CREDENTIAL_STORE: unknown credential store "vault"');
    expect(fx.emu.log.entries).toEqual([]);
  });

  it('a store that never answers: login is one error line, exit 9, before the service is contacted', async () => {
    const r = await fx.spawn(['login', '-u', ADMIN.name, '--password-stdin'], {
      input: `${ADMIN.password}\n`,
      env: { ...silentBus(), DLAKE_CREDENTIAL_STORE_TIMEOUT: '1000' },
    });
    expect(r.signal, 'dlake hung').toBeNull();
    expectFailure(
      r,
      9,
      'the credential store failed: no answer within 1s (a locked keyring waiting for a prompt nobody sees?)',
    );
    expect(fx.emu.log.entries).toEqual([]);
  });

  it('a token in the store that cannot be read (the store hangs): exit 9, never a hang', async () => {
    // Kept "in the store" by an earlier login; the store now never answers.
    storedInKeyring(fx.configDir, fx.emu.url);
    const r = await fx.spawn(['catalog', 'ls'], {
      env: { ...silentBus(), DLAKE_CREDENTIAL_STORE_TIMEOUT: '1000' },
    });
    expect(r.signal, 'dlake hung').toBeNull();
    expectFailure(
      r,
      9,
      'the credential store failed: no answer within 1s (a locked keyring waiting for a prompt nobody sees?)',
    );
    expect(fx.emu.log.entries).toEqual([]);
  });
});
