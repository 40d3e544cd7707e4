// dlake's side of the credential-store helper (src/config/keyring-child.ts): started on the first call that needs
// the store, never before, and every call bounded in time. A call that does not answer within the deadline ends
// the helper (killed: nothing of it can keep dlake waiting) and is a StoreError.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { type KeyringAnswer, type KeyringRequest, StoreError } from './keyring-protocol.js';

type Pending = { resolve: (a: KeyringAnswer) => void; reject: (e: Error) => void };
type Omit2<T> = T extends unknown ? Omit<T, 'id'> : never;

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

  /** Ends the helper (at the end of the command; it ends by itself when dlake's end closes its input). */
  close(): void {
    this.child?.stdin?.end();
    this.child = undefined;
  }

  private async call(request: Omit2<KeyringRequest>): Promise<KeyringAnswer> {
    if (this.broken) throw this.broken;
    const child = this.start();
    const id = this.nextId++;
    const answer = await new Promise<KeyringAnswer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.fail(
          new StoreError(
            `no answer within ${this.timeoutMs / 1000}s (a locked keyring waiting for a prompt nobody sees?)`,
          ),
        );
      }, this.timeoutMs);
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
      child.stdin!.write(`${JSON.stringify({ ...request, id })}\n`);
    });
    if (!answer.ok) throw new StoreError(answer.message, answer.unavailable);
    return answer;
  }

  private start(): ChildProcess {
    if (this.child) return this.child;
    const [command, args] = helperCommand();
    const child = spawn(command, args, {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: { ...this.env, DLAKE_KEYRING_HELPER: '1' },
      windowsHide: true,
    });
    this.child = child;
    // The helper never keeps dlake running: it waits on dlake, not dlake on it.
    child.unref();
    for (const s of [child.stdin, child.stdout]) (s as unknown as { unref?: () => void })?.unref?.();
    child.stdin!.on('error', () => {});
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let a: KeyringAnswer;
      try {
        a = JSON.parse(line) as KeyringAnswer;
      } catch {
        return;
      }
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
