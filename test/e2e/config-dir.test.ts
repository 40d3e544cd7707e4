// A DLAKE_CONFIG_DIR that cannot be used: under /proc (where Node's recursive mkdir never
// returns), read-only or immutable, or a file. Never a hang, one `error:` line naming the folder, exit 2,
// and the store is checked before the service is contacted: no session is created that cannot be kept.
// Spawned: only a process shows a hang (the kill timer below ends it and the exit code says so).
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectFailure, SERVICE_USER, useFixture } from '../helpers/fixture.js';
import { canMountTmpfs, mountTmpfs, unmount } from '../helpers/tmpfs.js';

/** Not logged in: each test makes the config folder it tries under the fixture's and sets it for each run. */
const fx = useFixture({}, { login: false });

const run = (dir: string, args: string[], input?: string, env: Record<string, string> = {}) =>
  fx.spawn(args, { env: { DLAKE_CONFIG_DIR: dir, ...env }, input, killAfterMs: 20_000 });
const passwordLogin = (dir: string) =>
  run(dir, ['login', '-u', 'admin', '--password-stdin'], 'admin-pass-1\n');

/**
 * A folder that cannot be written: `chattr +i` when running as root (root ignores permission modes),
 * mode 0500 otherwise. Undefined where neither works (no chattr, or a file system without the flag).
 */
function lockedFolder(name: string): { dir: string; unlock: () => void } | undefined {
  const dir = join(fx.configDir, name);
  mkdirSync(dir);
  if (process.getuid?.() === 0) {
    try {
      execFileSync('chattr', ['+i', dir], { stdio: 'ignore' });
    } catch {
      return undefined;
    }
    return { dir, unlock: () => execFileSync('chattr', ['-i', dir]) };
  }
  chmodSync(dir, 0o500);
  return { dir, unlock: () => chmodSync(dir, 0o700) };
}

const onLinux = process.platform === 'linux';

describe('an unusable config folder', () => {
  it.runIf(onLinux)(
    'under /proc: login ends at once with exit 2 naming the folder, and sends nothing',
    async () => {
      const dir = '/proc/dlake-test/config';
      const r = await passwordLogin(dir);
      expect(r.signal, 'dlake hung and was killed').toBeNull();
      expectFailure(r, 2, `cannot use the config folder ${dir}`);
      expect(fx.emu.log.entries).toEqual([]);
    },
  );

  it.runIf(onLinux)('under /proc: profile set, token exchange and logout end the same way', async () => {
    const dir = '/proc/dlake-test/config';
    for (const [args, input] of [
      [['profile', 'set', 'prod', '--url', fx.emu.url]],
      [
        [
          'token',
          'exchange',
          'client-credentials',
          '--client-id',
          SERVICE_USER.clientId,
          '--client-secret-stdin',
        ],
        SERVICE_USER.clientSecret,
      ],
    ] as Array<[string[], string?]>) {
      const r = await run(dir, args, input);
      expect(r.signal, `${args.join(' ')}: dlake hung and was killed`).toBeNull();
      expectFailure(r, 2, `cannot use the config folder ${dir}`);
    }
    expect(fx.emu.log.entries).toEqual([]);
  });

  it('read-only or immutable: login is refused before the service creates a session', async () => {
    const locked = lockedFolder('locked');
    if (!locked) return; // no way to make a folder unwritable for this user here
    try {
      const r = await passwordLogin(locked.dir);
      expectFailure(r, 2, `cannot use the config folder ${locked.dir}: permission denied`);
      expect(r.stderr).toContain('hint: set DLAKE_CONFIG_DIR');
      expect(fx.emu.log.find('POST', '/apiv2/login')).toEqual([]);
      expect(readdirSync(locked.dir)).toEqual([]);
    } finally {
      locked.unlock();
    }
  });

  it('read-only after a login: logout keeps the session rather than lose track of it', async () => {
    const dir = join(fx.configDir, 'later-locked');
    expect((await passwordLogin(dir)).code).toBe(0);
    const locked = lockedFolder('unused-probe');
    if (!locked) return;
    locked.unlock();
    // Lock the logged-in folder itself.
    const isRoot = process.getuid?.() === 0;
    if (isRoot) execFileSync('chattr', ['+i', dir]);
    else chmodSync(dir, 0o500);
    try {
      fx.emu.log.clear();
      const r = await run(dir, ['logout']);
      expectFailure(r, 2, `cannot use the config folder ${dir}`);
      expect(fx.emu.log.find('DELETE', '/apiv2/login')).toEqual([]);
      // Reading still works: the stored token is used.
      const ls = await run(dir, ['catalog', 'ls']);
      expect(ls.code, ls.stderr).toBe(0);
    } finally {
      if (isRoot) execFileSync('chattr', ['-i', dir]);
      else chmodSync(dir, 0o700);
    }
  });

  it('made read-only by its owner (chmod 555): exit 2 before any request, even for root, its mode kept', async () => {
    const dir = join(fx.configDir, 'read-only');
    mkdirSync(dir, { mode: 0o555 });
    chmodSync(dir, 0o555);
    try {
      const r = await passwordLogin(dir);
      expectFailure(r, 2, `cannot use the config folder ${dir}: it is read-only (mode 0555)`);
      expect(fx.emu.log.entries).toEqual([]);
      expect(statSync(dir).mode & 0o777).toBe(0o555);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      chmodSync(dir, 0o700);
    }
  });

  it('a symbolic link planted as credentials.json: login refused before any request, its target untouched', async () => {
    const dir = join(fx.configDir, 'planted');
    mkdirSync(dir, { mode: 0o700 });
    const target = join(fx.configDir, 'victim.txt');
    writeFileSync(target, 'precious', { mode: 0o644 });
    chmodSync(target, 0o644);
    symlinkSync(target, join(dir, 'credentials.json'));
    const r = await passwordLogin(dir);
    expectFailure(r, 2, `${join(dir, 'credentials.json')} is a symbolic link, not a file dlake wrote`);
    expect(fx.emu.log.entries).toEqual([]);
    expect([readFileSync(target, 'utf8'), statSync(target).mode & 0o777]).toEqual(['precious', 0o644]);
  });

  it('a config lock that is not one dlake made: exit 9 before the service is contacted', async () => {
    const dir = join(fx.configDir, 'foreign-lock');
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, '.lock'), '');
    const r = await passwordLogin(dir);
    expectFailure(r, 9, `cannot lock the config folder: ${join(dir, '.lock')} is not a folder`);
    expect(fx.emu.log.entries).toEqual([]);
  });

  it.skipIf(!canMountTmpfs())(
    'on a full disk (a file can still be created, not written): exit 9 before the service is contacted',
    async () => {
      const dir = join(fx.configDir, 'full');
      mkdirSync(dir, { mode: 0o700 });
      mountTmpfs([dir], 'size=64k,mode=0700');
      try {
        // Fill it: an empty file still fits (an inode), a byte more does not.
        try {
          writeFileSync(join(dir, 'filler'), Buffer.alloc(1024 * 1024));
        } catch {}
        const r = await passwordLogin(dir);
        expectFailure(r, 9, `cannot write the config folder ${dir}: no space left on the device`);
        expect(fx.emu.log.entries).toEqual([]);
      } finally {
        unmount([dir]);
      }
    },
  );

  it('a file where the folder should be: exit 2 in words', async () => {
    const file = join(fx.configDir, 'a-file');
    writeFileSync(file, '');
    const r = await passwordLogin(join(file, 'dlake'));
    expectFailure(r, 2, 'is a file, not a folder');
    expect(fx.emu.log.entries).toEqual([]);
  });

  it.runIf(onLinux)(
    'a renewal that cannot be stored is used for the command alone, with a warning',
    async () => {
      const r = await run('/proc/dlake-test/config', ['catalog', 'ls'], undefined, {
        DLAKE_CLIENT_ID: SERVICE_USER.clientId,
        DLAKE_CLIENT_SECRET: SERVICE_USER.clientSecret,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(
        'warning: the renewed token is used for this command only: cannot use the config folder',
      );
      expect(fx.emu.log.entries.map((e) => `${e.method} ${e.path}`)).toEqual([
        'POST /oauth/token',
        'GET /api/v3/catalog',
      ]);
    },
  );
});
