// The credential store's helper process on every platform but Linux (docs/cli-contract.md "Credential storage"):
// dlake talks to the platform's store (macOS Keychain, Windows Credential Manager, the BSDs' Secret Service)
// through @napi-rs/keyring in a process of its own, so that a store that never answers (a prompt nobody sees)
// cannot hang dlake: a native call that blocks cannot be abandoned inside a Node process (not even on a worker
// thread: exit waits for it), a process can end. (Linux asks the Secret Service in-process, over D-Bus:
// src/config/secret-service.ts.)
//
// Requests and answers are JSON lines (src/config/keyring-protocol.ts) on stdin and stdout, from the command
// that started the helper. The store calls run on a worker thread, one at a time, so that this thread stays free
// to keep each call's deadline: a call that outlives it ends the helper at once (SIGKILL, the one exit that does
// not wait for the worker), after every waiting caller has been told. Secrets travel only in the requests and
// answers, never on argv or in the environment. Built as dist/keyring.cjs (scripts/build.mjs).
import { Worker } from 'node:worker_threads';
import { firstLine } from '../util/first-line.js';
import { type KeyringAnswer, type KeyringRequest, noAnswerWithin, onJsonLines } from './keyring-protocol.js';

/** Where the binding is: the module to require (the npm package's own dependency). */
type BindingLocation = { require: string };

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
 * kernel keyring, which forgets everything at reboot. Its firstLine is src/util/first-line.ts's, the function's
 * own source put in (it is self-contained for that).
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const firstLine = ${firstLine};
let binding;
let unavailable;
try {
  binding = require(workerData.require);
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

export function serveKeyring(locate: () => BindingLocation): void {
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
  });
  worker?.on('error', (e) => hung(`the credential store helper failed: ${firstLine(e)}`));

  /** Every waiting caller told, then the helper gone: a store call that does not return cannot be abandoned. */
  const hung = (message: string) => {
    for (const job of [current, ...queue])
      job?.reply({ id: job.req.id, ok: false, message, unavailable: false });
    setImmediate(() => process.kill(process.pid, 'SIGKILL'));
  };

  process.stdout.on('error', () => {});
  onJsonLines<KeyringRequest>(process.stdin, (req) => {
    queue.push({ req, reply: (a) => process.stdout.write(`${JSON.stringify(a)}\n`) });
    next();
  }).on('close', () => {
    // dlake is done with the store (or gone): nothing is left to serve. A worker in a store call would keep
    // `exit` waiting.
    if (current) process.kill(process.pid, 'SIGKILL');
    else process.exit(0);
  });
}
