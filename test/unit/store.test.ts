import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';
import { UsageError } from '../../src/errors.js';

let dir: string;
let store: ConfigStore;

beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'dlake-store-')), 'cfg');
  store = new ConfigStore(dir);
});
afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

const token = {
  kind: 'session',
  token: 't0k3n',
  obtainedVia: 'password',
  expiresAt: '2030-01-01T00:00:00.000Z',
} as const;

describe('ConfigStore', () => {
  it('reads an empty store when nothing exists yet', () => {
    const s = store.read();
    expect(s.config.profiles).toEqual({});
    expect(s.credentials.tokens).toEqual({});
  });

  it('writes both files with mode 0600 in a 0700 folder, even under a permissive umask', async () => {
    const old = process.umask(0);
    try {
      await store.update((s) => {
        s.config.profiles.a = { url: 'http://x' };
        s.credentials.tokens.a = { ...token };
      });
    } finally {
      process.umask(old);
    }
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(store.configPath).mode & 0o777).toBe(0o600);
    expect(statSync(store.credentialsPath).mode & 0o777).toBe(0o600);
    expect(store.read().credentials.tokens.a?.token).toBe('t0k3n');
  });

  it('tightens a file made too open by hand, and leaves the folder at the mode its owner gave it', async () => {
    await store.update((s) => {
      s.config.profiles.a = { url: 'http://x' };
    });
    chmodSync(dir, 0o755);
    chmodSync(store.configPath, 0o644);
    await store.update((s) => {
      s.config.currentProfile = 'a';
    });
    expect(statSync(dir).mode & 0o777).toBe(0o755);
    expect(statSync(store.configPath).mode & 0o777).toBe(0o600);
  });

  it('refuses a folder made read-only (exit 2), even for root, and changes nothing in or of it', async () => {
    await store.update((s) => {
      s.config.profiles.a = { url: 'http://x' };
    });
    chmodSync(dir, 0o555);
    try {
      const before = readFileSync(store.configPath, 'utf8');
      for (const attempt of [
        () => store.checkUsable(),
        () => store.update((s) => void delete s.config.profiles.a),
      ])
        await expect(async () => attempt()).rejects.toThrow(
          expect.objectContaining({
            name: 'UsageError',
            message: `cannot use the config folder ${dir}: it is read-only (mode 0555)`,
          }),
        );
      expect(statSync(dir).mode & 0o777).toBe(0o555);
      expect(readFileSync(store.configPath, 'utf8')).toBe(before);
      expect(readdirSync(dir).sort()).toEqual(['config.json']);
    } finally {
      chmodSync(dir, 0o700);
    }
  });

  describe('a symbolic link planted in place of a file of the folder', () => {
    let target: string;
    beforeEach(() => {
      mkdirSync(dir);
      target = join(dir, '..', 'elsewhere.txt');
      writeFileSync(target, "not dlake's", { mode: 0o644 });
      chmodSync(target, 0o644);
    });
    const untouched = () => {
      expect(readFileSync(target, 'utf8')).toBe("not dlake's");
      expect(statSync(target).mode & 0o777).toBe(0o644);
    };

    it('credentials.json: nothing written or chmod-ed through it, not even by a fresh login', async () => {
      symlinkSync(target, store.credentialsPath);
      expect(store.read().credentialsProblem).toMatch(/is not valid \(it is a symbolic link/);
      for (const replaceCorruptCredentials of [false, true])
        await expect(
          store.update(
            (s) => {
              s.credentials.tokens.a = { ...token };
            },
            { replaceCorruptCredentials },
          ),
        ).rejects.toThrow(new RegExp(`${store.credentialsPath} is a symbolic link, not a file dlake wrote`));
      expect(() => store.checkUsable()).toThrow(UsageError);
      untouched();
      expect(lstatSync(store.credentialsPath).isSymbolicLink()).toBe(true);
    });

    it('config.json: refused on read (exit 2, naming it), never followed nor chmod-ed', async () => {
      symlinkSync(target, store.configPath);
      expect(() => store.read()).toThrow(UsageError);
      expect(() => store.read()).toThrow(/config\.json is not valid: .*symbolic link/);
      await expect(
        store.update((s) => {
          s.config.currentProfile = 'a';
        }),
      ).rejects.toThrow(UsageError);
      untouched();
    });
  });

  it('refuses a corrupt config.json with an error naming the file, and leaves it untouched', async () => {
    await store.update((s) => {
      s.config.profiles.a = { url: 'http://x' };
    });
    writeFileSync(store.configPath, '{"profiles": {');
    expect(() => store.read()).toThrow(UsageError);
    expect(() => store.read()).toThrow(store.configPath);
    await expect(store.update(() => {})).rejects.toThrow(UsageError);
    expect(readFileSync(store.configPath, 'utf8')).toBe('{"profiles": {');
  });

  it('treats a hand-edited config.json of the wrong shape as an error', () => {
    mkdirSync(dir);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { a: { output: 'yaml' } } }));
    expect(() => store.read()).toThrow(/profiles\.a\.output/);
  });

  it('counts a corrupt credentials.json as logged out, and never overwrites it by accident', async () => {
    await store.update((s) => {
      s.credentials.tokens.a = { ...token };
    });
    writeFileSync(store.credentialsPath, 'garbage');
    const s = store.read();
    expect(s.credentials.tokens).toEqual({});
    expect(s.credentialsProblem).toMatch(/credentials\.json/);
    await expect(
      store.update((x) => {
        x.credentials.tokens.b = { ...token };
      }),
    ).rejects.toThrow(/not overwriting/);
    expect(readFileSync(store.credentialsPath, 'utf8')).toBe('garbage');
    // A fresh login may replace it.
    await store.update(
      (x) => {
        x.credentials.tokens.b = { ...token };
      },
      { replaceCorruptCredentials: true },
    );
    expect(store.read().credentials.tokens.b?.token).toBe('t0k3n');
  });

  it('keeps fields it does not know (written by a newer dlake)', async () => {
    await store.update((s) => {
      s.config.profiles.a = { url: 'http://x' };
    });
    const raw = JSON.parse(readFileSync(store.configPath, 'utf8'));
    raw.futureSetting = { on: true };
    writeFileSync(store.configPath, JSON.stringify(raw));
    await store.update((s) => {
      s.config.currentProfile = 'a';
    });
    expect(JSON.parse(readFileSync(store.configPath, 'utf8')).futureSetting).toEqual({ on: true });
  });

  it("removes the write probe a killed dlake left behind, and only that: not a live process's, not other files", () => {
    store.checkUsable();
    // A process id that cannot exist (above Linux's largest), a live one (this test's parent), other names.
    const left = ['.probe-99999999', `.probe-${process.ppid}`, '.probe-x', 'notes.txt'];
    for (const f of left) writeFileSync(join(dir, f), '');
    store.checkUsable();
    expect(readdirSync(dir).sort()).toEqual([`.probe-${process.ppid}`, '.probe-x', 'notes.txt']);
  });

  it('loses no write when many updates race', async () => {
    const other = new ConfigStore(dir);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? store : other).update((s) => {
          s.config.profiles[`p${i}`] = { url: `http://h${i}` };
          s.credentials.tokens[`p${i}`] = { ...token, token: `tok${i}` };
        }),
      ),
    );
    const s = store.read();
    expect(Object.keys(s.config.profiles)).toHaveLength(20);
    expect(Object.keys(s.credentials.tokens)).toHaveLength(20);
  });
});
