// A real credential store for tests: GNOME Keyring's Secret Service on a private D-Bus session bus of its own
// (Debian's `dbus` and `gnome-keyring`; .ci/run installs them), unlocked with a known password, in a HOME of its
// own. Never the machine user's bus or keyring: test/helpers/dlake.ts cleanEnv drops those variables.
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

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

export async function startSecretService(): Promise<SecretService> {
  const dir = mkdtempSync(join(tmpdir(), 'dlake-secret-service-'));
  const home = join(dir, 'home');
  const runtime = join(dir, 'run');
  mkdirSync(home);
  mkdirSync(runtime, { mode: 0o700 });
  const address = `unix:path=${join(runtime, 'bus')}`;
  const bus: ChildProcess = spawn(
    'dbus-daemon',
    ['--session', '--nofork', '--nopidfile', `--address=${address}`, '--print-address=1'],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  // The bus is ready when it prints its address.
  await new Promise<void>((ready, failed) => {
    bus.once('error', failed);
    bus.stdout!.once('data', () => ready());
  });
  const env = {
    DBUS_SESSION_BUS_ADDRESS: address,
    HOME: home,
    XDG_RUNTIME_DIR: runtime,
    XDG_DATA_HOME: join(home, '.local', 'share'),
  };
  const full = { ...process.env, ...env };
  // --unlock creates the login keyring with the password read from stdin; the launcher returns once the daemon
  // has taken its name on the bus.
  const unlock = spawn('gnome-keyring-daemon', ['--unlock', '--components=secrets'], {
    env: full,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  unlock.stdin!.end('test-keyring-password');
  await new Promise((done) => unlock.once('exit', done));
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
    close: async () => {
      // The daemon leaves when its bus goes.
      bus.kill();
      await new Promise((done) => bus.once('exit', done));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface BusProxy {
  /** The address to give dlake instead of the bus's own. */
  address: string;
  /** From now on nothing the bus says reaches the proxy's clients, and new connections are met with silence. */
  freeze(): void;
  /** The connections open through the proxy. */
  readonly open: number;
  /** Resolves once no connection is open through the proxy (each was closed by its client, or its process ended). */
  drained(): Promise<void>;
  close(): Promise<void>;
}

/** A proxy in front of a bus, that can go silent at any moment: a store that answered and then stops answering. */
export async function startBusProxy(busAddress: string): Promise<BusProxy> {
  const target = busAddress.replace(/^unix:path=/, '');
  const dir = mkdtempSync(join(tmpdir(), 'dlake-bus-proxy-'));
  const path = join(dir, 'bus');
  let frozen = false;
  const open = new Set<Socket>();
  let onDrained: (() => void) | undefined;
  const server = createServer((client) => {
    open.add(client);
    client.on('error', () => {});
    client.on('close', () => {
      open.delete(client);
      if (open.size === 0) onDrained?.();
    });
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
  await new Promise<void>((done) => server.listen(path, done));
  return {
    address: `unix:path=${path}`,
    freeze: () => {
      frozen = true;
    },
    get open() {
      return open.size;
    },
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

/** The credential-store agents listening in `runtimeDir` (their environment names their socket there). */
export function agentPids(runtimeDir: string): number[] {
  const mark = `DLAKE_KEYRING_AGENT=${join(runtimeDir, 'dlake')}/`;
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/environ`, 'latin1')
          .split('\0')
          .some((v) => v.startsWith(mark));
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Whether the process has ended (and been reaped). */
export function ended(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1]?.startsWith('Z') ?? true;
  } catch {
    return true;
  }
}
