// The credential store on Linux: the freedesktop Secret Service, asked in-process over the D-Bus session bus
// (src/config/dbus.ts), with no helper process, thread or native code (docs/architecture.md "Start-up"). Every
// call is bounded by its deadline, connecting and an unlock prompt included: when it passes, the connection is
// destroyed and the call is a StoreError, as is every call after it.
//
// The items are the ones @napi-rs/keyring (keyring-rs's dbus-secret-service store) writes, so that either reads
// what the other wrote (docs/api-facts.md §17): attributes `service` = "dlake" and `username` = the account, label
// `keyring:ACCOUNT@dlake`, found by searching every collection and created in the default one. Secrets travel in
// a "plain" session: in clear over the user's own session bus, which no other user can connect to
// (docs/cli-contract.md "Credential storage").
import { isUtf8 } from 'node:buffer';
import { firstLine } from '../util/first-line.js';
import { BusUnreachable, type Call, DBusConnection, DBusError, type Incoming } from './dbus.js';
import type { DBusValue, Variant } from './dbus-wire.js';
import { noAnswerWithin, StoreError } from './keyring-protocol.js';

const SERVICE = 'dlake';
const SECRETS = 'org.freedesktop.secrets';
const ROOT = '/org/freedesktop/secrets';
const NO_OBJECT = '/';

/** D-Bus errors that say there is no Secret Service on this bus, as opposed to one that failed. */
const ABSENT = [
  'org.freedesktop.DBus.Error.ServiceUnknown',
  'org.freedesktop.DBus.Error.NameHasNoOwner',
  'org.freedesktop.DBus.Error.Spawn.',
];

export class SecretServiceStore {
  private bus?: DBusConnection;
  private session?: Promise<string>;
  /** The service's unique name on the bus (a prompt's Completed signal must come from it). */
  private owner?: string;
  /** Set once a call failed for good (it hung, or the bus broke): every later call fails the same way at once. */
  private broken?: StoreError;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly timeoutMs: number,
  ) {}

  get(accounts: string[]): Promise<Record<string, string | null>> {
    return this.bounded(async () => {
      const session = this.openSession();
      // Every item looked for at once, and the locked ones among them unlocked together: one prompt at most.
      const searched = await Promise.all(accounts.map((a) => this.search(a)));
      const found = searched.map(([unlocked, locked], i) => only([...unlocked, ...locked], accounts[i]!));
      const locked = searched.flatMap(([, l]) => l);
      if (locked.length) await this.unlock(locked);
      const paths = found.filter((p): p is string => p !== undefined);
      const values: Record<string, string | null> = Object.fromEntries(accounts.map((a) => [a, null]));
      if (paths.length === 0) return values;
      const [secrets] = (await this.call(
        ROOT,
        'Service',
        'GetSecrets',
        'aoo',
        [paths, await session],
        'a{o(oayays)}',
      )) as [Map<string, DBusValue[]>];
      accounts.forEach((account, i) => {
        const secret = found[i] && secrets.get(found[i]!);
        if (secret) values[account] = decode(secret[2] as Buffer, account);
      });
      return values;
    });
  }

  set(items: Record<string, string>): Promise<void> {
    return this.bounded(async () => {
      /** The default collection, found and unlocked once for the items that are new. */
      let collection: Promise<string> | undefined;
      for (const [account, value] of Object.entries(items)) {
        const secret = [await this.openSession(), Buffer.alloc(0), Buffer.from(value, 'utf8'), 'text/plain'];
        const existing = await this.find(account);
        if (existing) {
          await this.call(existing, 'Item', 'SetSecret', '(oayays)', [secret], '');
          continue;
        }
        collection ??= this.defaultCollection();
        const properties = new Map<string, Variant>([
          ['org.freedesktop.Secret.Item.Label', { signature: 's', value: `keyring:${account}@${SERVICE}` }],
          [
            'org.freedesktop.Secret.Item.Attributes',
            { signature: 'a{ss}', value: attributes(account) as unknown as DBusValue },
          ],
        ]);
        const [item, prompt] = (await this.call(
          await collection,
          'Collection',
          'CreateItem',
          'a{sv}(oayays)b',
          [properties, secret, true],
          'oo',
        )) as [string, string];
        if (item === NO_OBJECT && prompt !== NO_OBJECT) await this.prompt(prompt);
      }
    });
  }

  delete(accounts: string[]): Promise<void> {
    return this.bounded(async () => {
      for (const account of accounts) {
        const item = await this.find(account);
        if (!item) continue;
        const [prompt] = (await this.call(item, 'Item', 'Delete', '', [], 'o')) as [string];
        if (prompt !== NO_OBJECT) await this.prompt(prompt);
      }
    });
  }

  /** Whether the store answers: a session opened and a search made (for an item nobody has). */
  probe(): Promise<void> {
    return this.bounded(async () => {
      await Promise.all([this.openSession(), this.search('probe')]);
    });
  }

  close(): void {
    this.bus?.close();
    this.bus = undefined;
  }

  /** The collection new items go into (the alias `default`), unlocked. */
  private async defaultCollection(): Promise<string> {
    const [collection] = (await this.call(ROOT, 'Service', 'ReadAlias', 's', ['default'], 'o')) as [string];
    if (collection === NO_OBJECT) throw new StoreError('the credential store has no default collection');
    await this.unlock([collection]);
    return collection;
  }

  /** The item of `account`, unlocked (prompting if it must), or undefined where there is none. */
  private async find(account: string): Promise<string | undefined> {
    const [unlocked, locked] = await this.search(account);
    const item = only([...unlocked, ...locked], account);
    if (locked.length) await this.unlock(locked);
    return item;
  }

  private async search(account: string): Promise<[string[], string[]]> {
    return (await this.call(ROOT, 'Service', 'SearchItems', 'a{ss}', [attributes(account)], 'aoao')) as [
      string[],
      string[],
    ];
  }

  /** Unlocks `objects`, following the service's prompt when it asks for one. */
  private async unlock(objects: string[]): Promise<void> {
    const [, prompt] = (await this.call(ROOT, 'Service', 'Unlock', 'ao', [objects], 'aoo')) as [
      string[],
      string,
    ];
    if (prompt !== NO_OBJECT) await this.prompt(prompt);
  }

  /**
   * Shows the prompt and waits for its Completed signal (from the service itself, for this prompt): the user
   * unlocking, or dismissing it. Nobody answering is the deadline's to end.
   */
  private async prompt(path: string): Promise<void> {
    await this.openSession();
    const bus = this.connect();
    const completed = bus.signal(
      (m) =>
        m.path === path &&
        m.interface === 'org.freedesktop.Secret.Prompt' &&
        m.member === 'Completed' &&
        m.sender === this.owner &&
        m.signature === 'bv',
    );
    completed.catch(() => {});
    await bus.call({
      destination: 'org.freedesktop.DBus',
      path: '/org/freedesktop/DBus',
      interface: 'org.freedesktop.DBus',
      member: 'AddMatch',
      signature: 's',
      body: [
        `type='signal',sender='${SECRETS}',interface='org.freedesktop.Secret.Prompt',member='Completed',path='${path}'`,
      ],
    });
    await this.call(path, 'Prompt', 'Prompt', 's', [''], '');
    const [dismissed] = (await completed).body as [boolean, Variant];
    if (dismissed) throw new StoreError('the unlock prompt was dismissed');
  }

  private openSession(): Promise<string> {
    this.session ??= this.connect()
      .call(secretsCall(ROOT, 'Service', 'OpenSession', 'sv', ['plain', { signature: 's', value: '' }]))
      .then((reply) => {
        const [, session] = expect(reply, 'vo') as [Variant, string];
        this.owner = reply.sender;
        return session;
      });
    // Awaited by every call that needs it; a failure that no call awaits is not an unhandled rejection.
    this.session.catch(() => {});
    return this.session;
  }

  private connect(): DBusConnection {
    if (!this.bus) {
      const address = this.env.DBUS_SESSION_BUS_ADDRESS;
      if (!address) throw new StoreError('no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set', true);
      this.bus = new DBusConnection(address);
    }
    return this.bus;
  }

  /** A Secret Service method call, its reply checked to have the signature `returns`. */
  private async call(
    path: string,
    iface: string,
    member: string,
    signature: string,
    body: unknown[],
    returns: string,
  ): Promise<DBusValue[]> {
    return expect(await this.connect().call(secretsCall(path, iface, member, signature, body)), returns);
  }

  /**
   * Runs `work` within the deadline; past it, or when the connection itself fails (a bus that closed it, sent
   * a malformed message or cannot be reached), the connection is destroyed and the store broken for good. An
   * error the service answered, or one of dlake's own checks, fails this call only.
   */
  private async bounded<T>(work: () => Promise<T>): Promise<T> {
    if (this.broken) throw this.broken;
    let timer: NodeJS.Timeout | undefined;
    // Not unref'd: while a call waits, this timer is what keeps dlake running (the socket does not).
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const e = new StoreError(noAnswerWithin(this.timeoutMs));
        this.fail(e);
        reject(e);
      }, this.timeoutMs);
    });
    try {
      return await Promise.race([work(), deadline]);
    } catch (e) {
      const error = storeError(e);
      if (!(e instanceof DBusError) && !(e instanceof StoreError)) this.fail(error);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  private fail(e: StoreError): void {
    this.broken = e;
    this.bus?.destroy(e);
  }
}

/**
 * The one item found for `account`, or undefined. Several are an error, as the binding made them: which one holds
 * the token cannot be known.
 */
function only(items: string[], account: string): string | undefined {
  if (items.length > 1)
    throw new StoreError(
      `${items.length} items of service "${SERVICE}" are named ${account}: remove all but one (secret-tool clear service ${SERVICE} username ${account} removes them all)`,
    );
  return items[0];
}

function attributes(account: string): Record<string, string> {
  return { service: SERVICE, username: account };
}

function secretsCall(path: string, iface: string, member: string, signature: string, body: unknown[]): Call {
  return {
    destination: SECRETS,
    path,
    interface: `org.freedesktop.Secret.${iface}`,
    member,
    ...(signature && { signature, body }),
  };
}

/** The reply's values, refused unless they are of the signature the specification gives the method. */
function expect(reply: Incoming, returns: string): DBusValue[] {
  if (reply.signature !== returns)
    throw new StoreError(
      `the credential store answered with values of type "${reply.signature}" where "${returns}" was due`,
    );
  return reply.body;
}

function decode(bytes: Buffer, account: string): string {
  if (!isUtf8(bytes)) throw new StoreError(`the credential store's item ${account} does not hold UTF-8 text`);
  return bytes.toString('utf8');
}

/** What a failure is to the vault: no store at all (unavailable), or a store that failed. */
function storeError(e: unknown): StoreError {
  if (e instanceof StoreError) return e;
  if (e instanceof BusUnreachable) return new StoreError(e.message, true);
  if (e instanceof DBusError) {
    const absent = ABSENT.some((name) => e.errorName.startsWith(name));
    const text = `${e.errorName}${e.message ? `: ${oneLine(e.message)}` : ''}`;
    return new StoreError(absent ? `no Secret Service on the session bus (${text})` : text, absent);
  }
  return new StoreError(oneLine(e));
}

/** A message of the bus or the service as one line of an error, cut at 300 characters. */
const oneLine = (e: unknown): string => firstLine(e, 300);
