// dlake's side of the credential-store helper (src/config/keyring-child.ts), on every platform but Linux (which
// asks the Secret Service in-process: src/config/secret-service.ts). Started on the first call that needs the
// store, never before, and every call bounded in time: a call that does not answer within the deadline is a
// StoreError and the helper is killed (nothing of it can keep dlake waiting).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  type KeyringAnswer,
  type KeyringRequest,
  noAnswerWithin,
  onJsonLines,
  StoreError,
} from './keyring-protocol.js';

type Pending = { resolve: (a: KeyringAnswer) => void; reject: (e: Error) => void };
type Omit2<T> = T extends unknown ? Omit<T, 'id' | 'deadlineMs'> : never;

export class KeyringHelper {
  private child?: ChildProcess;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Set once the helper failed for good (it hung or died): every later call fails the same way at once. */
  private broken?: StoreError;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly timeoutMs: number,
  ) {}

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
    const child = this.child;
    this.child = undefined;
    child?.stdin?.end();
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
        resolve: (a) => {
          clearTimeout(timer);
          resolve(a);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.start().stdin!.write(line);
    });
    if (!answer.ok) throw new StoreError(answer.message, answer.unavailable);
    return answer;
  }

  /** The helper, started on the first call. */
  private start(): ChildProcess {
    if (this.child) return this.child;
    const [command, args] = helperCommand();
    const child = spawn(command, args, {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: helperEnv(this.env),
      windowsHide: true,
    });
    this.child = child;
    // The helper never keeps dlake running: it waits on dlake, not dlake on it.
    child.unref();
    for (const s of [child.stdin, child.stdout]) (s as unknown as { unref?: () => void })?.unref?.();
    child.stdin!.on('error', () => {});
    onJsonLines<KeyringAnswer>(child.stdout!, (a) => {
      const p = this.pending.get(a.id);
      this.pending.delete(a.id);
      p?.resolve(a);
    });
    child.on('error', (e) =>
      this.fail(new StoreError(`cannot start the credential store helper: ${e.message}`, true)),
    );
    child.on('exit', (code, signal) => {
      if (this.child === child)
        this.fail(new StoreError(`the credential store helper ended (${signal ?? `exit ${code}`})`));
    });
    return child;
  }

  private fail(e: StoreError): void {
    this.broken = e;
    const child = this.child;
    this.child = undefined;
    child?.kill('SIGKILL');
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }
}

/**
 * The helper's environment: this command's, less dlake's own settings, which may hold a secret (DLAKE_TOKEN,
 * DLAKE_CLIENT_SECRET) the helper has no use for; the config folder stays.
 */
function helperEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(env).filter(([k]) => !k.startsWith('DLAKE_') || k === 'DLAKE_CONFIG_DIR'),
  );
}

declare const __dirname: string | undefined;

/** How to start the helper: the package runs dist/keyring.cjs beside the bundle; from source (tests), the built one. */
function helperCommand(): [string, string[]] {
  const here = typeof __dirname === 'string' ? __dirname : process.cwd();
  const script = [join(here, 'keyring.cjs'), resolve(here, '../../dist/keyring.cjs')].find((f) =>
    existsSync(f),
  );
  return [process.execPath, [script ?? join(here, 'keyring.cjs')]];
}
