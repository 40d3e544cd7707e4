// The Secret Service client in-process (src/config/secret-service.ts): the items it writes are the ones
// @napi-rs/keyring writes, each reading what the other wrote (a real GNOME Keyring), and the helper process of the
// other platforms (src/config/keyring.ts) still working through that binding; and against a bus of the test's
// own (test/helpers/keyring.ts startFakeBus), what a real keyring will not do on demand: a prompt nobody answers,
// a Completed signal forged by another peer, a malformed message, a reply of the wrong type, two items of one
// account, a bus that refuses dlake, with no Secret Service or none at all. Each bounded: a StoreError, or for a
// command one error line and exit 9, never a hang.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeMessage, type Incoming } from '../../src/config/dbus.js';
import { KeyringHelper } from '../../src/config/keyring.js';
import { StoreError } from '../../src/config/keyring-protocol.js';
import { SecretServiceStore } from '../../src/config/secret-service.js';
import { expectFailure, startFixture } from '../helpers/fixture.js';
import {
  type FakeAnswer,
  itemDetails,
  returns,
  type SecretService,
  secretServiceMissing,
  startFakeBus,
  startSecretService,
  storedInKeyring,
} from '../helpers/keyring.js';

type Binding = typeof import('@napi-rs/keyring');

describe.skipIf(secretServiceMissing())('the same items as @napi-rs/keyring (a real GNOME Keyring)', () => {
  let ss: SecretService;
  let binding: Binding;
  /** The binding's entry of `account`, as dlake's previous versions made it. */
  const entry = (account: string) =>
    new binding.Entry('dlake', account, { linux: { store: 'secret-service' } } as never);
  /** The variables ss.env replaces, as they were: the files after this one in the worker's process need them. */
  const before: Record<string, string | undefined> = {};
  beforeAll(async () => {
    ss = await startSecretService();
    // The binding reads the bus's address from the environment of the process it runs in.
    for (const k of Object.keys(ss.env)) before[k] = process.env[k];
    Object.assign(process.env, ss.env);
    binding = createRequire(import.meta.url)('@napi-rs/keyring') as Binding;
  });
  afterAll(async () => {
    // Put back, not deleted: a HOME removed here left a later file of this worker (the single executable's
    // build, which finds its Node under ~/.cache) without one, and its tests skipped.
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await ss?.close();
  });

  it('a token written by the binding is read in-process, and one written in-process is read by the binding', async () => {
    const store = new SecretServiceStore(ss.env, 5000);
    try {
      entry('old:token:00000001').setPassword('written-by-the-binding');
      expect(await store.get(['old:token:00000001', 'none:token:00000000'])).toEqual({
        'old:token:00000001': 'written-by-the-binding',
        'none:token:00000000': null,
      });
      await store.set({ 'new:token:00000002': 'written-in-process ✓' });
      expect(entry('new:token:00000002').getPassword()).toBe('written-in-process ✓');

      // Replaced in place either way: still one item per account.
      await store.set({ 'old:token:00000001': 'replaced-in-process' });
      expect(entry('old:token:00000001').getPassword()).toBe('replaced-in-process');
      entry('new:token:00000002').setPassword('replaced-by-the-binding');
      expect(await store.get(['new:token:00000002'])).toEqual({
        'new:token:00000002': 'replaced-by-the-binding',
      });

      // The same label and attributes, whoever wrote the item.
      const items = await itemDetails(ss);
      expect(items.map((i) => [i.label, i.attributes]).sort()).toEqual([
        ['keyring:new:token:00000002@dlake', { service: 'dlake', username: 'new:token:00000002' }],
        ['keyring:old:token:00000001@dlake', { service: 'dlake', username: 'old:token:00000001' }],
      ]);

      await store.delete(['old:token:00000001', 'new:token:00000002']);
      expect(await itemDetails(ss)).toEqual([]);
      expect(entry('old:token:00000001').getPassword()).toBeNull();
    } finally {
      store.close();
    }
  });
});

describe.skipIf(secretServiceMissing())(
  'the helper process of the other platforms, run here through the same binding',
  () => {
    it('writes, reads and deletes what the in-process client reads; ends with its input', async () => {
      const ss = await startSecretService();
      const helper = new KeyringHelper(ss.env, 10_000);
      const store = new SecretServiceStore(ss.env, 5000);
      try {
        await helper.set({ 'h:token:00000003': 'through-the-helper' });
        expect(await store.get(['h:token:00000003'])).toEqual({ 'h:token:00000003': 'through-the-helper' });
        await store.set({ 'h:token:00000003': 'in-process' });
        expect(await helper.get(['h:token:00000003'])).toEqual({ 'h:token:00000003': 'in-process' });
        await helper.delete(['h:token:00000003']);
        expect(await itemDetails(ss)).toEqual([]);
      } finally {
        helper.close();
        store.close();
        await ss.close();
      }
    });

    it('a bus that stays silent: no answer within the deadline, the helper killed', async () => {
      const bus = await startFakeBus(() => {});
      const helper = new KeyringHelper({ DBUS_SESSION_BUS_ADDRESS: bus.address }, 1000);
      try {
        const e = (await helper.get(['h:token:00000004']).catch((x: unknown) => x)) as StoreError;
        expect(e.message).toBe('no answer within 1s (a locked keyring waiting for a prompt nobody sees?)');
        // Its connection to the bus closed with it.
        await bus.drained();
      } finally {
        helper.close();
        await bus.close();
      }
    });
  },
);

/** A bus that answers every call with the error `errorName`, its message `message`. */
const errorReply =
  (errorName: string, message: string): FakeAnswer =>
  (call, send) =>
    send({ type: 3, replySerial: call.serial, errorName, signature: 's', body: [message] });

/** A Secret Service whose one item is in a locked collection, the unlock prompting as `prompted` says. */
const lockedStore =
  (prompted: (call: Incoming, send: Parameters<FakeAnswer>[1]) => void): FakeAnswer =>
  (call, send) => {
    const item = '/org/freedesktop/secrets/collection/login/1';
    switch (call.member) {
      case 'OpenSession':
        return send(
          returns(call, 'vo', [{ signature: 's', value: '' }, '/org/freedesktop/secrets/session/s1']),
        );
      case 'SearchItems':
        return send(returns(call, 'aoao', [[], [item]]));
      case 'Unlock':
        return send(returns(call, 'aoo', [[], '/org/freedesktop/secrets/prompt/u1']));
      case 'Prompt':
        send(returns(call, '', []));
        return prompted(call, send);
      case 'GetSecrets':
        return send(
          returns(call, 'a{o(oayays)}', [
            new Map([
              [
                item,
                ['/org/freedesktop/secrets/session/s1', Buffer.alloc(0), Buffer.from('tok'), 'text/plain'],
              ],
            ]),
          ]),
        );
    }
  };

const completed = (sender: string) => ({
  type: 4,
  path: '/org/freedesktop/secrets/prompt/u1',
  interface: 'org.freedesktop.Secret.Prompt',
  member: 'Completed',
  sender,
  signature: 'bv',
  body: [false, { signature: 'ao', value: ['/org/freedesktop/secrets/collection/login/1'] }],
});

describe('a Secret Service that misbehaves (a bus of the test’s own)', () => {
  const fail = async (answer: FakeAnswer, ms = 300, raw?: Parameters<typeof startFakeBus>[1]) => {
    const bus = await startFakeBus(answer, raw);
    const store = new SecretServiceStore({ DBUS_SESSION_BUS_ADDRESS: bus.address }, ms);
    try {
      const error = await store.get(['p:token:0badf00d']).then(
        () => undefined,
        (e: unknown) => e,
      );
      // Once broken, broken: the next call fails the same way without asking.
      const calls = bus.calls.length;
      const again = await store.get(['p:token:0badf00d']).catch((e: unknown) => e);
      return { error: error as StoreError, again, calls: bus.calls, asked: bus.calls.length - calls, bus };
    } finally {
      store.close();
      await bus.drained();
      await bus.close();
    }
  };

  it('the unlock prompt shown and followed: the secret read once the service says it completed', async () => {
    const bus = await startFakeBus(lockedStore((_, send) => send(completed(':1.0'))));
    const store = new SecretServiceStore({ DBUS_SESSION_BUS_ADDRESS: bus.address }, 5000);
    try {
      expect(await store.get(['p:token:0badf00d'])).toEqual({ 'p:token:0badf00d': 'tok' });
      expect(bus.calls.map((c) => c.member)).toEqual([
        'Hello',
        'OpenSession',
        'SearchItems',
        'Unlock',
        'AddMatch',
        'Prompt',
        'GetSecrets',
      ]);
      // The match rule asks for the service's Completed signal of this prompt, nothing wider.
      expect(bus.calls[4]!.body[0]).toBe(
        "type='signal',sender='org.freedesktop.secrets',interface='org.freedesktop.Secret.Prompt',member='Completed',path='/org/freedesktop/secrets/prompt/u1'",
      );
    } finally {
      store.close();
      await bus.close();
    }
  });

  it('a prompt nobody answers: no answer within the deadline, the connection closed', async () => {
    const r = await fail(lockedStore(() => {}));
    expect(r.error).toBeInstanceOf(StoreError);
    expect(r.error.message).toBe(
      'no answer within 0.3s (a locked keyring waiting for a prompt nobody sees?)',
    );
    expect(r.calls.map((c) => c.member)).toContain('Prompt');
    expect([r.again, r.asked]).toEqual([r.error, 0]);
  });

  it('a Completed signal from another peer than the service is not believed', async () => {
    const r = await fail(lockedStore((_, send) => send(completed(':1.66'))));
    expect(r.error.message).toMatch(/^no answer within 0\.3s/);
    expect(r.calls.map((c) => c.member)).not.toContain('GetSecrets');
  });

  it('a dismissed prompt fails the call, not the store', async () => {
    const bus = await startFakeBus(
      lockedStore((_, send) => send({ ...completed(':1.0'), body: [true, { signature: 's', value: '' }] })),
    );
    const store = new SecretServiceStore({ DBUS_SESSION_BUS_ADDRESS: bus.address }, 5000);
    try {
      await expect(store.get(['p:token:0badf00d'])).rejects.toThrow('the unlock prompt was dismissed');
      await expect(store.probe()).resolves.toBeUndefined();
    } finally {
      store.close();
      await bus.close();
    }
  });

  it('a malformed message (a length that lies) breaks the connection: a failure, not a store to fall back from', async () => {
    const r = await fail(
      () => {},
      5000,
      (call, write) => {
        if (call.member !== 'OpenSession') return false;
        // A session path whose length says 1000 bytes, in a message of a few.
        const lie = encodeMessage(7, returns(call, 'vo', [{ signature: 's', value: '' }, '/s/1']));
        lie.writeUInt32LE(1000, Math.ceil((16 + lie.readUInt32LE(12)) / 8) * 8 + 4);
        write(lie);
        return true;
      },
    );
    expect(r.error.message).toMatch(/^the session bus sent a malformed message \(/);
    expect(r.error.unavailable).toBe(false);
  });

  it('a reply of another type than the method returns is refused', async () => {
    const r = await fail((call, send) => {
      if (call.member === 'OpenSession') send(returns(call, 's', ['/org/freedesktop/secrets/session/s1']));
      else if (call.member === 'SearchItems')
        send(returns(call, 'aoao', [['/org/freedesktop/secrets/collection/login/1'], []]));
    }, 5000);
    expect(r.error.message).toBe('the credential store answered with values of type "s" where "vo" was due');
  });

  it('a secret that is not UTF-8 text is refused by name, not read as a token', async () => {
    const item = '/org/freedesktop/secrets/collection/login/1';
    const r = await fail((call, send) => {
      if (call.member === 'OpenSession')
        send(returns(call, 'vo', [{ signature: 's', value: '' }, '/org/freedesktop/secrets/session/s1']));
      else if (call.member === 'SearchItems') send(returns(call, 'aoao', [[item], []]));
      else if (call.member === 'GetSecrets')
        send(
          returns(call, 'a{o(oayays)}', [
            new Map([
              [
                item,
                [
                  '/org/freedesktop/secrets/session/s1',
                  Buffer.alloc(0),
                  Buffer.from([0x74, 0xff]),
                  'text/plain',
                ],
              ],
            ]),
          ]),
        );
    }, 5000);
    expect(r.error.message).toBe("the credential store's item p:token:0badf00d does not hold UTF-8 text");
  });

  it('two items of one account: an error naming them, the store still usable', async () => {
    const bus = await startFakeBus((call, send) => {
      if (call.member === 'OpenSession')
        send(returns(call, 'vo', [{ signature: 's', value: '' }, '/org/freedesktop/secrets/session/s1']));
      else if (call.member === 'SearchItems') send(returns(call, 'aoao', [['/c/login/1'], ['/c/other/4']]));
    });
    const store = new SecretServiceStore({ DBUS_SESSION_BUS_ADDRESS: bus.address }, 5000);
    try {
      await expect(store.get(['p:token:0badf00d'])).rejects.toThrow(
        '2 items of service "dlake" are named p:token:0badf00d: remove all but one (secret-tool clear service dlake username p:token:0badf00d removes them all)',
      );
      // Nothing unlocked, nothing read.
      expect(bus.calls.map((c) => c.member)).not.toContain('Unlock');
      await expect(store.probe()).resolves.toBeUndefined();
    } finally {
      store.close();
      await bus.close();
    }
  });

  it('a bus that refuses dlake is no store; one that answers the handshake with garbage is a failure', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dlake-auth-'));
    try {
      const answer = async (greeting: string) => {
        const path = join(dir, `bus-${greeting.length}`);
        const server = createServer((c) => {
          c.on('error', () => {});
          c.once('data', () => c.write(greeting));
        });
        await new Promise<void>((done) => server.listen(path, done));
        const store = new SecretServiceStore({ DBUS_SESSION_BUS_ADDRESS: `unix:path=${path}` }, 5000);
        const e = (await store.probe().catch((x: unknown) => x)) as StoreError;
        store.close();
        await new Promise((done) => server.close(done));
        return [e.message, e.unavailable];
      };
      expect(await answer('REJECTED EXTERNAL\r\n')).toEqual([
        'the session bus refused dlake (REJECTED EXTERNAL)',
        true,
      ]);
      expect(await answer('x'.repeat(2000))).toEqual([
        'the session bus sent a malformed message (an authentication line too long)',
        false,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the service's failure: one line of an error, its message's first, cut at 300 characters", async () => {
    const failed = await fail(
      errorReply('org.freedesktop.DBus.Error.Failed', `${'w'.repeat(1000)}\nat the service's stack`),
      5000,
    );
    expect([failed.error.message, failed.error.unavailable]).toEqual([
      `org.freedesktop.DBus.Error.Failed: ${'w'.repeat(300)}…`,
      false,
    ]);
  });

  it('no Secret Service on the bus, or no bus to connect to: unavailable (the file is the fallback)', async () => {
    const none = await fail(
      errorReply(
        'org.freedesktop.DBus.Error.ServiceUnknown',
        'The name org.freedesktop.secrets was not provided by any .service files',
      ),
      5000,
    );
    expect([none.error.message, none.error.unavailable]).toEqual([
      'no Secret Service on the session bus (org.freedesktop.DBus.Error.ServiceUnknown: The name org.freedesktop.secrets was not provided by any .service files)',
      true,
    ]);
    const store = new SecretServiceStore(
      { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/dlake/bus' },
      5000,
    );
    const refused = await store.probe().catch((e: StoreError) => e);
    expect([refused?.message, refused?.unavailable]).toEqual([
      'cannot connect to the session bus (ENOENT)',
      true,
    ]);
  });
});

describe('a command whose keyring prompts and nobody answers', () => {
  it('one error line, exit 9, nothing sent to the service, its connection to the bus closed', async () => {
    const [bus, fx] = await Promise.all([startFakeBus(lockedStore(() => {})), startFixture()]);
    try {
      storedInKeyring(fx.configDir, fx.emu.url);
      const r = await fx.spawn(['catalog', 'ls'], {
        env: { DBUS_SESSION_BUS_ADDRESS: bus.address, DLAKE_CREDENTIAL_STORE_TIMEOUT: '1000' },
      });
      expect(r.signal, 'dlake hung').toBeNull();
      expectFailure(
        r,
        9,
        'the credential store failed: no answer within 1s (a locked keyring waiting for a prompt nobody sees?)',
      );
      expect(bus.calls.map((c) => c.member)).toContain('Prompt');
      expect(fx.emu.log.entries).toEqual([]);
      await bus.drained();
    } finally {
      await Promise.all([bus.close(), fx.close()]);
    }
  });
});
