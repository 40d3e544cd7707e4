// Where the credential store's agent listens (docs/architecture.md "Start-up"): the helper that one command
// starts stays on for a while as the user's agent, keeping the binding loaded and its connections to the store
// open, so that the next command's read costs a round trip on a local socket instead of a Node start, a binding
// load and a new session with the store.
//
// The socket is `$XDG_RUNTIME_DIR/dlake/keyring-KEY.sock`: the runtime folder is the user's own (mode 0700,
// emptied at logout), and dlake's folder in it is created 0700 and checked before every use, so that only the
// user (and root) can connect: no more than can already ask the Secret Service on the user's session bus for the
// same items. KEY tells apart the buses, the Node and helper that serve, and dlake's versions. No runtime folder
// (macOS, Windows, a session without one): no agent, each command starts the helper as it needs.
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';

/** How long the agent waits for the next command before it ends (DLAKE_CREDENTIAL_STORE_AGENT, seconds). */
const DEFAULT_IDLE_S = 300;

/** The longest path a Unix socket may have on Linux and the BSDs (sun_path), less the terminating NUL. */
const SOCKET_PATH_MAX = 103;

/** The agent's idle time in ms, or undefined where `DLAKE_CREDENTIAL_STORE_AGENT=0` turns the agent off. */
export function agentIdleMs(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.DLAKE_CREDENTIAL_STORE_AGENT;
  const s = raw === undefined || raw === '' ? DEFAULT_IDLE_S : Number(raw);
  if (!Number.isFinite(s) || s < 0) return DEFAULT_IDLE_S * 1000;
  return s === 0 ? undefined : s * 1000;
}

/**
 * The agent's socket for this bus and this helper (`command`: how dlake starts it), or undefined where there is
 * to be none: turned off, no private runtime folder, or a path too long for a socket.
 */
export function agentSocket(env: NodeJS.ProcessEnv, command: string[]): string | undefined {
  if (agentIdleMs(env) === undefined) return undefined;
  const runtime = env.XDG_RUNTIME_DIR;
  if (!runtime || !isAbsolute(runtime) || !isPrivate(runtime, 'directory')) return undefined;
  const key = createHash('sha256')
    .update(JSON.stringify([env.DBUS_SESSION_BUS_ADDRESS ?? '', command, __DLAKE_VERSION__]))
    .digest('hex')
    .slice(0, 16);
  const socket = join(runtime, 'dlake', `keyring-${key}.sock`);
  return Buffer.byteLength(socket) <= SOCKET_PATH_MAX ? socket : undefined;
}

/** Whether `socket` is an agent's socket that only this user can have made: dlake's checks before connecting. */
export function isOwnSocket(socket: string): boolean {
  return isPrivate(dirname(socket), 'directory') && isPrivate(socket, 'socket');
}

/** Creates the agent's folder (mode 0700) where missing; whether it is private to this user: the agent's check. */
export function makeSocketFolder(socket: string): boolean {
  try {
    mkdirSync(dirname(socket), { mode: 0o700 });
  } catch {
    // There already, or not to be made: the check says which.
  }
  return isPrivate(dirname(socket), 'directory');
}

/**
 * Owned by this user, neither a link nor writable by others; a folder also closed to others' reading and
 * entering (the runtime folder's own rule: mode 0700).
 */
function isPrivate(path: string, kind: 'directory' | 'socket'): boolean {
  try {
    const st = lstatSync(path);
    if (kind === 'directory' ? !st.isDirectory() : !st.isSocket()) return false;
    if (process.getuid && st.uid !== process.getuid()) return false;
    return (st.mode & (kind === 'directory' ? 0o077 : 0o022)) === 0;
  } catch {
    return false;
  }
}
