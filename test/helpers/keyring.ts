// A real credential store for tests: GNOME Keyring's Secret Service on a private D-Bus session bus of its own
// (Debian's `dbus` and `gnome-keyring`; .ci/run installs them), unlocked with a known password, in a HOME of its
// own. Never the machine user's bus or keyring: test/helpers/dlake.ts cleanEnv drops those variables.
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  decodeMessage,
  encodeMessage,
  type Incoming,
  METHOD_RETURN,
  messageLength,
  type Outgoing,
} from '../../src/config/dbus.js';

const run = promisify(execFile);

/** Whether the programs are installed; CI must have them (see `requireSecretService`). */
export function hasSecretService(): boolean {
  return ['dbus-daemon', 'dbus-send', 'gnome-keyring-daemon', 'secret-tool'].every(
    (p) => spawnSync('sh', ['-c', `command -v ${p}`]).status === 0,
  );
}

/**
 * Skipping where the store cannot be had is for a developer's machine only: on CI (CI=true), which installs
 * it, a missing store is a failure, so that these tests cannot silently stop running.
 */
export function secretServiceMissing(): boolean {
  const missing = !hasSecretService();
  if (missing && process.env.CI)
    throw new Error(
      'CI: dbus-daemon, gnome-keyring-daemon and secret-tool must be installed (.ci/run does it)',
    );
  return missing;
}

export interface SecretService {
  /** The variables that point dlake at this store (the bus, and the HOME the keyring lives in). */
  env: { DBUS_SESSION_BUS_ADDRESS: string; HOME: string; XDG_RUNTIME_DIR: string; XDG_DATA_HOME: string };
  /** The items of service `dlake`, as `secret-tool search` prints them: `{ account: secret }`. */
  items(): Promise<Record<string, string>>;
  /** Writes an item as another program would (an item dlake did not write). */
  store(account: string, secret: string): Promise<void>;
  /** Locks the keyring, as the desktop does when the screen locks; without a prompter nothing can unlock it. */
  lock(): Promise<void>;
  /**
   * How many connections the bus has accepted so far, the asker's own included (the serial of the newest unique
   * name, `:1.N`): two asks around a command differ by one when the command opened none.
   */
  connectionsSoFar(): Promise<number>;
  /** The folder that holds the bus socket and the keyring's HOME (to search for secrets in files). */
  dir: string;
  close(): Promise<void>;
}

/**
 * The bus's configuration: a session bus on `address` that starts no service (no service folders: a call to a
 * name nobody owns is an error, never a daemon started with the machine's HOME) and lets everything through.
 */
const busConfig = (
  address: string,
) => `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>${address}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`;

/** Ends a child and waits until it has (SIGKILL when SIGTERM was not enough). */
async function stop(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

export async function startSecretService(): Promise<SecretService> {
  const dir = mkdtempSync(join(tmpdir(), 'dlake-secret-service-'));
  const home = join(dir, 'home');
  const runtime = join(dir, 'run');
  mkdirSync(home);
  mkdirSync(runtime, { mode: 0o700 });
  const address = `unix:path=${join(runtime, 'bus')}`;
  const env = {
    DBUS_SESSION_BUS_ADDRESS: address,
    HOME: home,
    XDG_RUNTIME_DIR: runtime,
    XDG_DATA_HOME: join(home, '.local', 'share'),
  };
  const full = { ...process.env, ...env };
  writeFileSync(join(dir, 'bus.conf'), busConfig(address));
  const children: ChildProcess[] = [];
  let closing = false;
  const close = async () => {
    closing = true;
    // The daemon first (it would otherwise see its bus go), then the bus; each waited for, so none outlives this.
    for (const child of children.reverse()) await stop(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const bus: ChildProcess = spawn(
      'dbus-daemon',
      [`--config-file=${join(dir, 'bus.conf')}`, '--nofork', '--nopidfile', '--print-address=1'],
      { stdio: ['ignore', 'pipe', 'ignore'], env: full },
    );
    children.push(bus);
    // The bus is ready when it prints its address.
    await new Promise<void>((ready, failed) => {
      bus.once('error', failed);
      bus.once('exit', (code) => failed(new Error(`dbus-daemon exited (${code})`)));
      bus.stdout!.once('data', () => ready());
    });
    // --unlock creates the login keyring with the password read from stdin; in the foreground, the daemon is this
    // process's child, ended by close().
    const daemon = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], {
      env: full,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    children.push(daemon);
    daemon.on('error', () => {});
    // A daemon that dies under a test fails it as the bus sees it ("disconnected … without replying"); this says
    // how it died, in the test's output.
    daemon.once('exit', (code, signal) => {
      if (!closing)
        console.error(`gnome-keyring-daemon exited under the tests (code ${code}, signal ${signal})`);
    });
    daemon.stdin!.end('test-keyring-password');
    // Ready once it has its name on the bus and has made the login keyring the default collection.
    const ask = async (dest: string, path: string, method: string, ...args: string[]) =>
      (
        await run('dbus-send', ['--session', `--dest=${dest}`, '--print-reply', path, method, ...args], {
          env: full,
        }).catch((e: { stdout?: string; stderr?: string }) => ({ stdout: `${e.stdout}${e.stderr}` }))
      ).stdout;
    const waitFor = async (what: string, ready: () => Promise<boolean>) => {
      for (let tries = 0; !(await ready()); tries++) {
        if (daemon.exitCode !== null) throw new Error(`gnome-keyring-daemon exited (${daemon.exitCode})`);
        if (tries > 1000) throw new Error(`GNOME Keyring: timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    await waitFor('its name on the bus', async () =>
      (
        await ask(
          'org.freedesktop.DBus',
          '/org/freedesktop/DBus',
          'org.freedesktop.DBus.NameHasOwner',
          'string:org.freedesktop.secrets',
        )
      ).includes('boolean true'),
    );
    await waitFor('its default collection', async () =>
      /object path "\/org\/freedesktop\/secrets\/collection\//.test(
        await ask(
          'org.freedesktop.secrets',
          '/org/freedesktop/secrets',
          'org.freedesktop.Secret.Service.ReadAlias',
          'string:default',
        ),
      ),
    );
  } catch (e) {
    await close();
    throw e;
  }
  const items = async () => {
    const { stdout, stderr } = await run('secret-tool', ['search', '--all', '--unlock', 'service', 'dlake'], {
      env: full,
    });
    // secret-tool prints each item's attributes on stderr and its secret on stdout, in the same order.
    const accounts = [...stderr.matchAll(/^attribute\.username = (.*)$/gm)].map((m) => m[1]!);
    const secrets = [...stdout.matchAll(/^secret = (.*)$/gm)].map((m) => m[1]!);
    return Object.fromEntries(accounts.map((a, i) => [a, secrets[i]!]));
  };
  return {
    env,
    dir,
    items,
    store: async (account, secret) => {
      const child = execFile(
        'secret-tool',
        ['store', '--label', account, 'service', 'dlake', 'username', account],
        {
          env: full,
        },
      );
      child.stdin!.end(secret);
      await new Promise((done) => child.once('exit', done));
    },
    lock: async () => {
      await run(
        'dbus-send',
        [
          '--session',
          '--dest=org.freedesktop.secrets',
          '--print-reply',
          '/org/freedesktop/secrets',
          'org.freedesktop.Secret.Service.Lock',
          'array:objpath:/org/freedesktop/secrets/collection/login',
        ],
        { env: full },
      );
    },
    connectionsSoFar: async () => {
      const { stdout } = await run(
        'dbus-send',
        [
          '--session',
          '--dest=org.freedesktop.DBus',
          '--print-reply',
          '/org/freedesktop/DBus',
          'org.freedesktop.DBus.ListNames',
        ],
        { env: full },
      );
      return Math.max(...[...stdout.matchAll(/"::?\d+\.(\d+)"/g)].map((m) => Number(m[1])));
    },
    close,
  };
}

export interface BusProxy {
  /** The address to give dlake instead of the bus's own. */
  address: string;
  /** From now on nothing the bus says reaches the proxy's clients, and new connections are met with silence. */
  freeze(): void;
  /** Resolves once no connection is open through the proxy (each was closed by its client, or its process ended). */
  drained(): Promise<void>;
  close(): Promise<void>;
}

/** A Unix socket server in a folder of its own that knows its open connections (a test's bus or proxy). */
async function socketServer(prefix: string, onConnection: (c: Socket) => void) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const path = join(dir, 'bus');
  const open = new Set<Socket>();
  let onDrained: (() => void) | undefined;
  const server = createServer((c) => {
    open.add(c);
    c.on('error', () => {});
    c.on('close', () => {
      open.delete(c);
      if (open.size === 0) onDrained?.();
    });
    onConnection(c);
  });
  await new Promise<void>((done) => server.listen(path, done));
  return {
    address: `unix:path=${path}`,
    /** Resolves once no connection is open (each was closed by its client, or its process ended). */
    drained: () =>
      open.size === 0
        ? Promise.resolve()
        : new Promise<void>((done) => {
            onDrained = done;
          }),
    close: async () => {
      for (const c of open) c.destroy();
      await new Promise((done) => server.close(done));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A proxy in front of a bus, that can go silent at any moment: a store that answered and then stops answering. */
export async function startBusProxy(busAddress: string): Promise<BusProxy> {
  const target = busAddress.replace(/^unix:path=/, '');
  let frozen = false;
  const server = await socketServer('dlake-bus-proxy-', (client) => {
    if (frozen) return void client.resume();
    const bus = connect(target);
    bus.on('error', () => client.destroy());
    client.on('close', () => bus.destroy());
    client.on('data', (d) => {
      if (!frozen) bus.write(d);
    });
    bus.on('data', (d) => {
      if (!frozen) client.write(d);
    });
  });
  return {
    ...server,
    freeze: () => {
      frozen = true;
    },
  };
}

/**
 * A credentials.json whose default profile's token is in the store (item id 0badf00d), as an earlier login left
 * it: a command then needs the store to run.
 */
export function storedInKeyring(configDir: string, url: string): void {
  writeFileSync(
    join(configDir, 'credentials.json'),
    JSON.stringify({
      version: 1,
      tokens: {
        default: {
          kind: 'session',
          obtainedVia: 'password',
          expiresAt: '2099-01-01T00:00:00.000Z',
          url,
          keyring: { id: '0badf00d', items: ['token'] },
        },
      },
    }),
  );
}

/** The processes whose environment holds `variable` (NAME=VALUE): none of dlake's may outlive its command. */
export function processesWith(variable: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d) && Number(d) !== process.pid)
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/environ`, 'latin1').split('\0').includes(variable);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Each item of service `dlake` as `secret-tool search` shows it: its label, every attribute, its secret. */
export async function itemDetails(
  ss: SecretService,
): Promise<{ label: string; attributes: Record<string, string>; secret: string }[]> {
  const { stdout, stderr } = await run('secret-tool', ['search', '--all', '--unlock', 'service', 'dlake'], {
    env: { ...process.env, ...ss.env },
  });
  // Each item: a block on stdout (label, secret…) and its attributes on stderr, the items in the same order.
  const blocks = stdout.split(/^\[/m).slice(1);
  const attrs = [...stderr.matchAll(/^attribute\.([^ ]+) = (.*)$/gm)].map((m) => [m[1]!, m[2]!] as const);
  // secret-tool prints the attributes of each item together; an item's run begins again at a repeated name.
  const perItem: Record<string, string>[] = [];
  for (const [k, v] of attrs) {
    if (perItem.length === 0 || k in perItem.at(-1)!) perItem.push({});
    perItem.at(-1)![k] = v;
  }
  return blocks.map((b, i) => ({
    label: /^label = (.*)$/m.exec(b)?.[1] ?? '',
    secret: /^secret = (.*)$/m.exec(b)?.[1] ?? '',
    attributes: perItem[i] ?? {},
  }));
}

/** What a fake bus answers a call with (`send` one or more messages), or nothing at all. */
export type FakeAnswer = (call: Incoming, send: (m: Outgoing) => void) => void;

export interface FakeBus {
  address: string;
  /** Every call dlake made, Hello and AddMatch included. */
  calls: Incoming[];
  /** Resolves once no connection is open (its client closed or destroyed it). */
  drained(): Promise<void>;
  close(): Promise<void>;
}

/** The method return of `call`, from the Secret Service's unique name `:1.0`. */
export function returns(call: Incoming, signature: string, body: unknown[]): Outgoing {
  return { type: METHOD_RETURN, replySerial: call.serial, sender: ':1.0', signature, body };
}

/**
 * A session bus of the test's own, speaking the wire protocol: it accepts the handshake and answers Hello and
 * AddMatch as a bus does, and every other call as `answer` says (a Secret Service that prompts and never
 * completes, sends a forged signal, a malformed message, a wrong signature…). `raw` writes bytes as they are.
 */
export async function startFakeBus(
  answer: FakeAnswer,
  raw?: (call: Incoming, write: (b: Buffer) => void) => boolean,
): Promise<FakeBus> {
  const calls: Incoming[] = [];
  const server = await socketServer('dlake-fake-bus-', (c) => {
    let input = Buffer.alloc(0);
    let authenticated = false;
    let serial = 100;
    const send = (m: Outgoing) => c.write(encodeMessage(serial++, m));
    c.on('data', (d: Buffer) => {
      input = Buffer.concat([input, d]);
      if (!authenticated) {
        const begin = input.indexOf('BEGIN\r\n');
        if (begin < 0) return;
        authenticated = true;
        c.write(`OK ${'0123456789abcdef'.repeat(2)}\r\n`);
        input = input.subarray(begin + 7);
      }
      for (let n = messageLength(input); n !== undefined && input.length >= n; n = messageLength(input)) {
        const call = decodeMessage(input.subarray(0, n));
        input = input.subarray(n);
        calls.push(call);
        if (raw?.(call, (b) => c.write(b))) continue;
        if (call.member === 'Hello')
          send({ ...returns(call, 's', [':1.9']), sender: 'org.freedesktop.DBus' });
        else if (call.member === 'AddMatch')
          send({ ...returns(call, '', []), sender: 'org.freedesktop.DBus' });
        else answer(call, send);
      }
    });
  });
  return { ...server, calls };
}
