// The credential store's helper process (docs/cli-contract.md "Credential storage"): dlake talks to the
// platform's store (macOS Keychain, Windows Credential Manager, the freedesktop Secret Service over D-Bus)
// through @napi-rs/keyring in a process of its own, so that a store that never answers (a locked keyring's
// prompt nobody sees, a bus that accepts and stays silent) cannot hang dlake: a native call that blocks cannot
// be abandoned inside a Node process (not even on a worker thread: exit waits for it), a child can be killed.
//
// Requests and answers are JSON lines on stdin and stdout; secrets travel only there, never on argv or in the
// environment. Built as dist/keyring.cjs (scripts/build.mjs); the single executable runs its own copy of this
// code when DLAKE_KEYRING_HELPER is set (src/sea.ts).
import { createInterface } from 'node:readline';
import type { KeyringAnswer, KeyringRequest } from './keyring-protocol.js';

/** The service name of every item dlake keeps (docs/cli-contract.md "Credential storage"). */
const SERVICE = 'dlake';

type Binding = typeof import('@napi-rs/keyring');

export function serveKeyring(load: () => Binding): void {
  let binding: Binding | undefined;
  let unavailable: string | undefined;
  const entry = (account: string) => {
    if (!binding && !unavailable) {
      try {
        binding = load();
      } catch (e) {
        unavailable = `no prebuilt credential-store binding for ${process.platform}-${process.arch} (${firstLine(e)})`;
      }
    }
    if (!binding) throw Object.assign(new Error(unavailable), { unavailable: true });
    try {
      // On Linux, the Secret Service or nothing: never the binding's silent fallback to the kernel keyring,
      // which forgets everything at reboot.
      return new binding.Entry(SERVICE, account, { linux: { store: 'secret-service' } });
    } catch (e) {
      // Constructing an entry connects to the store: failing here means there is none to talk to.
      throw Object.assign(new Error(firstLine(e)), { unavailable: true });
    }
  };
  const answer = (a: KeyringAnswer) => process.stdout.write(`${JSON.stringify(a)}\n`);
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    let req: KeyringRequest;
    try {
      req = JSON.parse(line) as KeyringRequest;
    } catch {
      return;
    }
    try {
      if (req.op === 'probe') entry('probe');
      else if (req.op === 'get') {
        const values: Record<string, string | null> = {};
        for (const account of req.accounts) values[account] = entry(account).getPassword();
        return answer({ id: req.id, ok: true, values });
      } else if (req.op === 'set') {
        for (const [account, secret] of Object.entries(req.items)) entry(account).setPassword(secret);
      } else if (req.op === 'delete') {
        for (const account of req.accounts) entry(account).deleteCredential();
      }
      answer({ id: req.id, ok: true });
    } catch (e) {
      answer({
        id: req.id,
        ok: false,
        message: firstLine(e),
        unavailable: Boolean((e as { unavailable?: boolean }).unavailable),
      });
    }
  });
  lines.on('close', () => process.exit(0));
}

/** The binding's messages nest their causes ("Platform failure: DBus error: …"): the first line says it. */
function firstLine(e: unknown): string {
  return String((e as Error)?.message ?? e)
    .split('\n')[0]!
    .trim();
}
