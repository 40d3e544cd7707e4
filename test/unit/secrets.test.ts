// Where the secrets of stored tokens go (src/config/secrets.ts), against a fake credential store that can fail
// at any call: a move into the store that fails midway leaves credentials.json as it was, a value that does not
// read back equal never leaves the file, and the items a write replaced are removed. The real store is tested in
// test/e2e/keyring.test.ts.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../src/config/keyring-protocol.js';
import type { StoredToken } from '../../src/config/schema.js';
import { SecretVault, type StoreClient } from '../../src/config/secrets.js';
import { ConfigStore } from '../../src/config/store.js';
import { LocalIOError } from '../../src/errors.js';

/** A credential store in memory; `failAt` makes its Nth call (from 1) fail, `corrupt` changes what it gives back. */
class FakeStore implements StoreClient {
  readonly items = new Map<string, string>();
  calls = 0;
  failAt?: number;
  unavailable = false;
  corrupt = false;
  private step(): void {
    this.calls++;
    if (this.unavailable) throw new StoreError('org.freedesktop.secrets was not provided', true);
    if (this.calls === this.failAt) throw new StoreError('the keyring is locked');
  }
  async get(accounts: string[]) {
    this.step();
    return Object.fromEntries(
      accounts.map((a) => [a, this.items.has(a) ? `${this.items.get(a)}${this.corrupt ? 'x' : ''}` : null]),
    );
  }
  async set(items: Record<string, string>) {
    this.step();
    for (const [a, v] of Object.entries(items)) this.items.set(a, v);
  }
  async delete(accounts: string[]) {
    this.step();
    for (const a of accounts) this.items.delete(a);
  }
  async probe() {
    this.step();
  }
  close() {}
}

const BUS = { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' };
const session = (token: string): StoredToken => ({
  kind: 'session',
  token,
  obtainedVia: 'password',
  expiresAt: '2099-01-01T00:00:00.000Z',
});

let dir: string;
let fake: FakeStore;
/** The store as a command that keeps its secrets in the file (DLAKE_CREDENTIAL_STORE=file) writes it. */
let fileOnly: ConfigStore;
let store: ConfigStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-secrets-'));
  fake = new FakeStore();
  fileOnly = new ConfigStore(dir, new SecretVault({ DLAKE_CREDENTIAL_STORE: 'file' }));
  store = new ConfigStore(dir, new SecretVault(BUS, { store: fake }));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const fileText = () => readFileSync(join(dir, 'credentials.json'), 'utf8');
const twoInTheFile = () =>
  fileOnly.update((s) => {
    s.credentials.tokens.a = session('secret-a');
    s.credentials.tokens.b = { ...session('secret-b'), refreshToken: 'refresh-b' };
  });

describe('moving the secrets of credentials.json into the credential store', () => {
  it('moves every secret, each item read back equal before it leaves the file', async () => {
    await twoInTheFile();
    await store.migrateSecrets();
    const { tokens } = store.read().credentials;
    expect(fileText()).not.toMatch(/secret-|refresh-b/);
    expect(tokens.b).toMatchObject({ keyring: { items: ['token', 'refresh-token'] } });
    expect(await store.reveal('b', tokens.b!)).toMatchObject({
      token: 'secret-b',
      refreshToken: 'refresh-b',
    });
    expect(await store.reveal('a', tokens.a!)).toMatchObject({ token: 'secret-a' });
  });

  it.each([1, 2, 3, 4])(
    'a store failing at its call %i leaves the file byte for byte as it was',
    async (n) => {
      await twoInTheFile();
      const before = fileText();
      fake.failAt = n;
      await store.migrateSecrets();
      expect(fileText()).toBe(before);
      // What it had written for the move that did not happen is removed again.
      expect([...fake.items.keys()]).toEqual([]);
    },
  );

  it('a value the store gives back changed never leaves the file', async () => {
    await twoInTheFile();
    const before = fileText();
    fake.corrupt = true;
    await store.migrateSecrets();
    expect(fileText()).toBe(before);
  });

  it('no store on the bus: the file stays, and no move is tried again the same day', async () => {
    await twoInTheFile();
    fake.unavailable = true;
    await store.migrateSecrets();
    expect(store.read().credentials.tokens.a?.token).toBe('secret-a');
    expect(store.read().credentials.storeAbsent?.why).toMatch(/org\.freedesktop\.secrets was not provided/);
    const calls = fake.calls;
    await store.migrateSecrets();
    expect(fake.calls).toBe(calls);
  });
});

describe('writes', () => {
  it('a login in keyring mode with a failing store is exit 9 and writes no file', async () => {
    const strict = new ConfigStore(
      dir,
      new SecretVault({ ...BUS, DLAKE_CREDENTIAL_STORE: 'keyring' }, { store: fake }),
    );
    fake.failAt = 1;
    const write = strict.update((s) => {
      s.credentials.tokens.a = session('secret-a');
    });
    await expect(write).rejects.toThrow(LocalIOError);
    await expect(write).rejects.toThrow('the credential store failed: the keyring is locked');
    expect(() => fileText()).toThrow(/ENOENT/);
  });

  it('a renewal keeps the items of the profile (same id), a logout removes them', async () => {
    await store.update((s) => {
      s.credentials.tokens.a = { ...session('one'), refreshToken: 'r1' };
    });
    const id = store.read().credentials.tokens.a?.keyring?.id;
    await store.update((s) => {
      s.credentials.tokens.a = session('two');
    });
    expect(store.read().credentials.tokens.a?.keyring).toEqual({ id, items: ['token'] });
    // The refresh token the renewal no longer carries is gone from the store.
    expect([...fake.items]).toEqual([[`a:token:${id}`, 'two']]);
    await store.update((s) => {
      delete s.credentials.tokens.a;
    });
    expect(fake.items.size).toBe(0);
  });

  it('a logout whose store fails says which items are left, and still forgets the token', async () => {
    await store.update((s) => {
      s.credentials.tokens.a = session('one');
    });
    fake.failAt = fake.calls + 1;
    const after = await store.update((s) => {
      delete s.credentials.tokens.a;
    });
    expect(after.secretsWarning).toMatch(
      /^could not remove 1 item\(s\) of service "dlake" .*: remove them by hand \(a:token:[0-9a-f]{8}\)$/,
    );
    expect(store.read().credentials.tokens).toEqual({});
  });
});
