// The credential store's helper process (docs/cli-contract.md "Credential storage"): dlake talks to the
// platform's store (macOS Keychain, Windows Credential Manager, the freedesktop Secret Service over D-Bus)
// through @napi-rs/keyring in a process of its own, so that a store that never answers (a locked keyring's
// prompt nobody sees, a bus that accepts and stays silent) cannot hang dlake: a native call that blocks cannot
// be abandoned inside a Node process (not even on a worker thread: exit waits for it), a process can end.
//
// Requests and answers are JSON lines (src/config/keyring-protocol.ts) on stdin and stdout, from the command
// that started the helper, and, where it can be the user's agent (src/config/keyring-agent.ts), on its socket
// from the commands after: it then stays on after its starter ends, until it has been idle for a while. The
// store calls run on a worker thread, one at a time, so that this thread stays free to keep each call's
// deadline: a call that outlives it ends the helper at once (SIGKILL, the one exit that does not wait for the
// worker), after every waiting caller has been told. Secrets travel only in the requests and answers, never on
// argv or in the environment. Built as dist/keyring.cjs (scripts/build.mjs); the single executable runs its
// own copy of this code when DLAKE_KEYRING_HELPER is set (src/sea.ts).
import { lstatSync, rmSync, watch } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import { agentIdleMs, makeSocketFolder } from './keyring-agent.js';
import { type KeyringAnswer, type KeyringRequest, noAnswerWithin, onJsonLines } from './keyring-protocol.js';

/** Where the binding is: a module to require (the npm package's) or a native file to open (the executable's). */
type BindingLocation = { require: string } | { dlopen: string };

/** The deadline of a request that names none. */
const DEFAULT_DEADLINE_MS = 10_000;

/**
 * The worker's code, plain CommonJS run by `new Worker(…, { eval: true })`: the same in the npm package and in
 * the single executable, which has no script file a worker could load.
 *
 * It keeps one entry per account once made: making one connects to the store and opens a session with it
 * (5–15 ms on the Secret Service), reading through one already made takes well under a millisecond. A kept
 * entry that fails is made anew once, unless the failure was the user's answer to a prompt (asked twice, they
 * would be prompted twice). On Linux, the Secret Service or nothing: never the binding's silent fallback to the
 * kernel keyring, which forgets everything at reboot.
 */
const WORKER = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const firstLine = (e) => String((e && e.message) || e).split('\n')[0].trim();
let binding;
let unavailable;
try {
  if (workerData.dlopen) {
    const module = { exports: {} };
    process.dlopen(module, workerData.dlopen);
    binding = module.exports;
  } else binding = require(workerData.require);
} catch (e) {
  unavailable = 'no prebuilt credential-store binding for ' + process.platform + '-' + process.arch + ' (' + firstLine(e) + ')';
}
const KEPT = 32;
const entries = new Map();
const make = (account) => {
  if (!binding) throw Object.assign(new Error(unavailable), { unavailable: true });
  try {
    return new binding.Entry('dlake', account, { linux: { store: 'secret-service' } });
  } catch (e) {
    // Making an entry connects to the store: failing here means there is none to talk to.
    throw Object.assign(new Error(firstLine(e)), { unavailable: true });
  }
};
const withEntry = (account, use) => {
  const kept = entries.get(account);
  if (kept) {
    try {
      return use(kept);
    } catch (e) {
      entries.delete(account);
      if (/prompt/i.test(firstLine(e))) throw e;
    }
  }
  const entry = make(account);
  const result = use(entry);
  if (entries.size >= KEPT) entries.delete(entries.keys().next().value);
  entries.set(account, entry);
  return result;
};
parentPort.on('message', (req) => {
  try {
    if (req.op === 'get') {
      const values = {};
      for (const account of req.accounts) values[account] = withEntry(account, (e) => e.getPassword());
      return parentPort.postMessage({ id: req.id, ok: true, values });
    }
    // A kept entry proves nothing about the store now: the probe asks it something (an item nobody has).
    if (req.op === 'probe') withEntry('probe', (e) => e.getPassword());
    else if (req.op === 'set')
      for (const [account, secret] of Object.entries(req.items)) withEntry(account, (e) => e.setPassword(secret));
    else if (req.op === 'delete') for (const account of req.accounts) withEntry(account, (e) => e.deleteCredential());
    parentPort.postMessage({ id: req.id, ok: true });
  } catch (e) {
    parentPort.postMessage({ id: req.id, ok: false, message: firstLine(e), unavailable: Boolean(e && e.unavailable) });
  }
});
`;

type Job = { req: KeyringRequest; reply: (a: KeyringAnswer) => void };

export function serveKeyring(locate: () => BindingLocation, env: NodeJS.ProcessEnv): void {
  let worker: Worker | undefined;
  let unavailable: string | undefined;
  try {
    worker = new Worker(WORKER, { eval: true, workerData: locate() });
    worker.unref();
  } catch (e) {
    unavailable = `no prebuilt credential-store binding for ${process.platform}-${process.arch} (${firstLine(e)})`;
  }

  const queue: Job[] = [];
  let current: Job | undefined;
  let deadline: NodeJS.Timeout | undefined;
  const next = () => {
    if (current || queue.length === 0) return;
    current = queue.shift()!;
    if (!worker) {
      const job = current;
      current = undefined;
      job.reply({ id: job.req.id, ok: false, message: unavailable!, unavailable: true });
      return next();
    }
    const ms = current.req.deadlineMs > 0 ? current.req.deadlineMs : DEFAULT_DEADLINE_MS;
    deadline = setTimeout(() => hung(noAnswerWithin(ms)), ms);
    worker.postMessage(current.req);
  };
  worker?.on('message', (a: KeyringAnswer) => {
    clearTimeout(deadline);
    const job = current;
    current = undefined;
    job?.reply(a);
    next();
    idle.arm();
  });
  worker?.on('error', (e) => hung(`the credential store helper failed: ${firstLine(e)}`));

  /** Every waiting caller told, then the helper gone: a store call that does not return cannot be abandoned. */
  const hung = (message: string) => {
    for (const job of [current, ...queue])
      job?.reply({ id: job.req.id, ok: false, message, unavailable: false });
    agent?.close();
    setImmediate(() => process.kill(process.pid, 'SIGKILL'));
  };
  /** The helper's end when nothing is left to serve; a worker in a store call would keep `exit` waiting. */
  const end = () => {
    agent?.close();
    if (current) process.kill(process.pid, 'SIGKILL');
    else process.exit(0);
  };

  const serve = (input: NodeJS.ReadableStream, reply: (a: KeyringAnswer) => void) =>
    onJsonLines<KeyringRequest>(input, (req) => {
      queue.push({ req, reply });
      next();
    });

  let starterGone = false;
  const idle = new IdleTimer(agentIdleMs(env), () => {
    if (current || queue.length || !starterGone || (agent?.clients ?? 0) > 0) idle.arm();
    else end();
  });
  const socket = env.DLAKE_KEYRING_AGENT;
  const agent = socket ? Agent.listen(socket, serve, end) : undefined;

  process.stdout.on('error', () => {});
  serve(process.stdin, (a) => process.stdout.write(`${JSON.stringify(a)}\n`)).on('close', () => {
    starterGone = true;
    // The starter has ended: as the agent, stay on for the next commands; otherwise nothing is left to serve.
    if (agent?.listening) idle.arm();
    else end();
  });
}

/** Runs `fire` once `ms` have passed since the last `arm()`; never, where there is no agent (`ms` undefined). */
class IdleTimer {
  private timer?: NodeJS.Timeout;
  constructor(
    private readonly ms: number | undefined,
    private readonly fire: () => void,
  ) {}
  arm(): void {
    if (this.ms === undefined) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(this.fire, this.ms);
  }
}

/** The helper's socket, as the user's agent: it answers there the commands that come after its starter. */
class Agent {
  listening = false;
  clients = 0;
  private ino?: number;

  private constructor(
    private readonly path: string,
    private readonly server: Server,
  ) {}

  static listen(
    path: string,
    serve: (input: NodeJS.ReadableStream, reply: (a: KeyringAnswer) => void) => void,
    end: () => void,
  ): Agent | undefined {
    if (!makeSocketFolder(path)) return undefined;
    const agent: Agent = new Agent(
      path,
      createServer((client: Socket) => {
        agent.clients++;
        client.on('error', () => {});
        client.on('close', () => agent.clients--);
        serve(client, (a) => client.write(`${JSON.stringify(a)}\n`));
      }),
    );
    let retried = false;
    agent.server.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EADDRINUSE' || retried) return;
      retried = true;
      // Another agent's socket, or one left behind by an agent that was killed: only the latter is replaced.
      const other = createConnection(path, () => other.destroy());
      other.on('error', () => {
        rmSync(path, { force: true });
        agent.server.listen(path);
      });
    });
    agent.server.on('listening', () => {
      agent.listening = true;
      agent.ino = lstatSync(path).ino;
      // The agent ends when its socket goes (its folder removed, as at logout): nobody could reach it.
      watch(dirname(path), () => {
        if (!agent.ownsSocket()) end();
      }).on('error', end);
    });
    // The socket is the user's alone (mode 0600 under umask 077), in a folder that is too (makeSocketFolder).
    process.umask(0o077);
    agent.server.listen(path);
    return agent;
  }

  close(): void {
    if (!this.listening) return;
    this.listening = false;
    if (this.ownsSocket()) rmSync(this.path, { force: true });
    this.server.close();
  }

  private ownsSocket(): boolean {
    try {
      return lstatSync(this.path).ino === this.ino;
    } catch {
      return false;
    }
  }
}

/** The binding's messages nest their causes ("Platform failure: DBus error: …"): the first line says it. */
function firstLine(e: unknown): string {
  return String((e as Error)?.message ?? e)
    .split('\n')[0]!
    .trim();
}
