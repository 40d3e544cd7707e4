import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
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

  it('tightens a folder and a file that were made too open by hand', async () => {
    await store.update((s) => {
      s.config.profiles.a = { url: 'http://x' };
    });
    chmodSync(dir, 0o755);
    chmodSync(store.configPath, 0o644);
    await store.update((s) => {
      s.config.currentProfile = 'a';
    });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(store.configPath).mode & 0o777).toBe(0o600);
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
