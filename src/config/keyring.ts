// dlake's side of the credential-store helper (src/config/keyring-child.ts), reached on the first call that needs
// the store, never before, and every call bounded in time. Where the user's agent is listening
// (src/config/keyring-agent.ts) the calls go to it over its socket; otherwise dlake starts the helper, which
// then serves as the agent for the commands after. A call that does not answer within the deadline is a
// StoreError: the helper dlake started is killed, and an agent ends itself (nothing of it can keep dlake waiting).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { agentSocket, isOwnSocket } from './keyring-agent.js';
import {
  type KeyringAnswer,
  type KeyringRequest,
  noAnswerWithin,
  onJsonLines,
  StoreError,
} from './keyring-protocol.js';

type Pending = { line: string; resolve: (a: KeyringAnswer) => void; reject: (e: Error) => void };
type Omit2<T> = T extends unknown ? Omit<T, 'id' | 'deadlineMs'> : never;

/** Where requests go: the helper's stdin or the agent's socket. */
interface Link {
  write(line: string): void;
  /** The command is done with the store: the helper's input closed, the agent's connection ended. */
  end(): void;
  /** The store did not answer in time. */
  abandon(): void;
}

export class KeyringHelper {
  private link?: Promise<Link>;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Set once the helper failed for good (it hung or died): every later call fails the same way at once. */
  private broken?: StoreError;
  private readonly command = helperCommand();
  private readonly agent: string | undefined;
  /** The helper this command started, if it did. */
  private child?: ChildProcess;
  /** Whether requests that an agent dropped unanswered (it ended as they came) were sent again to a helper. */
  private resent = false;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly timeoutMs: number,
  ) {
    this.agent = agentSocket(env, [this.command[0], ...this.command[1]]);
  }

  get(accounts: string[]): Promise<Record<string, string | null>> {
    return this.call({ op: 'get', accounts }).then((a) => (a.ok && a.values) || {});
  }

  async set(items: Record<string, string>): Promise<void> {
    await this.call({ op: 'set', items });
  }

  async delete(accounts: string[]): Promise<void> {
    await this.call({ op: 'delete', accounts });
  }

  async probe(): Promise<void> {
    await this.call({ op: 'probe' });
  }

  /** Done with the store (at the end of the command; the helper sees dlake's end by itself too). */
  close(): void {
    const link = this.link;
    this.link = undefined;
    this.child = undefined;
    void link?.then((l) => l.end());
  }

  private async call(request: Omit2<KeyringRequest>): Promise<KeyringAnswer> {
    if (this.broken) throw this.broken;
    const id = this.nextId++;
    const line = `${JSON.stringify({ ...request, id, deadlineMs: this.timeoutMs })}\n`;
    const answer = await new Promise<KeyringAnswer>((resolve, reject) => {
      const timer = setTimeout(
        () => this.fail(new StoreError(noAnswerWithin(this.timeoutMs))),
        this.timeoutMs,
      );
      // Not unref'd: while a call waits, this timer is what keeps dlake running (the helper's pipes do not).
      this.pending.set(id, {
        line,
        resolve: (a) => {
          clearTimeout(timer);
          resolve(a);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      void this.connect().then((link) => link.write(line));
    });
    if (!answer.ok) throw new StoreError(answer.message, answer.unavailable);
    return answer;
  }

  /** The agent's socket where one answers there, else a helper of this command's own. */
  private connect(): Promise<Link> {
    this.link ??=
      this.agent && isOwnSocket(this.agent) ? this.dial(this.agent) : Promise.resolve(this.start(this.agent));
    return this.link;
  }

  private dial(path: string): Promise<Link> {
    return new Promise((resolve) => {
      const socket = createConnection(path);
      // The connection never keeps dlake running: a waiting call's timer does.
      socket.unref();
      socket.once('error', () => resolve(this.start(path)));
      socket.once('connect', () => {
        socket.removeAllListeners('error');
        socket.on('error', () => {});
        resolve(this.agentLink(socket));
      });
    });
  }

  private agentLink(socket: Socket): Link {
    this.listen(socket);
    socket.on('close', () => {
      if (this.link === undefined || this.broken) return;
      // The agent ended (its idle time ran out as this command came): what it left unanswered goes to a helper
      // of this command's own, once.
      if (this.pending.size === 0 || this.resent) {
        this.link = undefined;
        if (this.pending.size) this.fail(new StoreError('the credential store agent ended'));
        return;
      }
      this.resent = true;
      const link = this.start(this.agent);
      this.link = Promise.resolve(link);
      for (const p of this.pending.values()) link.write(p.line);
    });
    return {
      write: (line) => socket.write(line),
      end: () => socket.end(),
      abandon: () => socket.destroy(),
    };
  }

  /** Starts the helper; with `agent`, it listens there too and stays on for the next commands. */
  private start(agent: string | undefined): Link {
    const [command, args] = this.command;
    const child = spawn(command, args, {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: {
        ...helperEnv(this.env),
        DLAKE_KEYRING_HELPER: '1',
        ...(agent && { DLAKE_KEYRING_AGENT: agent }),
      },
      windowsHide: true,
      // An agent outlives this command: a session of its own, so that the terminal's end or Ctrl-C does not
      // reach it through this command's process group.
      detached: Boolean(agent),
    });
    this.child = child;
    // The helper never keeps dlake running: it waits on dlake, not dlake on it.
    child.unref();
    for (const s of [child.stdin, child.stdout]) (s as unknown as { unref?: () => void })?.unref?.();
    child.stdin!.on('error', () => {});
    this.listen(child.stdout!);
    child.on('error', (e) =>
      this.fail(new StoreError(`cannot start the credential store helper: ${e.message}`, true)),
    );
    child.on('exit', (code, signal) => {
      if (this.child === child && this.link)
        this.fail(new StoreError(`the credential store helper ended (${signal ?? `exit ${code}`})`));
    });
    return {
      write: (line) => child.stdin!.write(line),
      end: () => child.stdin!.end(),
      abandon: () => child.kill('SIGKILL'),
    };
  }

  private listen(input: NodeJS.ReadableStream): void {
    onJsonLines<KeyringAnswer>(input, (a) => {
      const p = this.pending.get(a.id);
      this.pending.delete(a.id);
      p?.resolve(a);
    });
  }

  private fail(e: StoreError): void {
    this.broken = e;
    const link = this.link;
    this.link = undefined;
    this.child = undefined;
    void link?.then((l) => l.abandon());
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }
}

/**
 * The helper's environment: this command's, less dlake's own settings, which may hold a secret (DLAKE_TOKEN,
 * DLAKE_CLIENT_SECRET) an agent would otherwise keep for minutes; the config folder (where the single executable
 * unpacks its binding) and the agent's idle time stay.
 */
function helperEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(env).filter(
      ([k]) => !k.startsWith('DLAKE_') || k === 'DLAKE_CONFIG_DIR' || k === 'DLAKE_CREDENTIAL_STORE_AGENT',
    ),
  );
}

declare const __dirname: string | undefined;

/**
 * How to start the helper: the single executable runs itself (src/sea.ts serves the store when
 * DLAKE_KEYRING_HELPER is set); the package runs dist/keyring.cjs beside the bundle; from source (tests), the
 * built one.
 */
function helperCommand(): [string, string[]] {
  if (isSea()) return [process.execPath, []];
  const here = typeof __dirname === 'string' ? __dirname : process.cwd();
  const script = [join(here, 'keyring.cjs'), resolve(here, '../../dist/keyring.cjs')].find((f) =>
    existsSync(f),
  );
  return [process.execPath, [script ?? join(here, 'keyring.cjs')]];
}

function isSea(): boolean {
  try {
    return (require('node:sea') as { isSea(): boolean }).isSea();
  } catch {
    return false;
  }
}
