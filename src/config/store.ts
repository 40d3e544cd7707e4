// The config store: config.json (profiles) and credentials.json (tokens) in one folder.
//
// Reads are plain file reads validated with zod. Writes are atomic (a new file, mode 0600, renamed over the old)
// inside a cross-process lock, re-reading both files under the lock so that concurrent dlake processes never
// lose each other's changes. No file of the folder is opened, written or chmod-ed through a symbolic link, and
// the folder's own mode is never changed (docs/cli-contract.md "Config store").
import {
  chmodSync,
  closeSync,
  constants,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type * as z from 'zod/mini';
import { LocalIOError, UsageError } from '../errors.js';
import { describeFsError, kindOfFile, readCheckedFile, USER_FILE_MAX_BYTES } from '../util/files.js';
import {
  type ConfigFile,
  ConfigFileSchema,
  type CredentialsFile,
  CredentialsFileSchema,
  type StoredToken,
} from './schema.js';
import type { RevealedToken, SecretVault } from './secrets.js';

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

export interface StoreSnapshot {
  config: ConfigFile;
  credentials: CredentialsFile;
  /** Set when credentials.json could not be read: the store then counts as logged out. */
  credentialsProblem?: string;
  /** Files found readable or writable by others, and what was done about it (warnings for the command). */
  modeRepairs?: string[];
  /**
   * Of a write: the note that the file keeps the secrets for want of a credential store (a login shows it), and
   * a warning when items of the store could not be removed.
   */
  secretsNote?: string;
  secretsWarning?: string;
}

/** The name of the file that proves the folder is writable, before the process id. */
const PROBE = '.probe-';

/** Whether a process of this id exists (one that belongs to another user counts: EPERM). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class ConfigStore {
  readonly configPath: string;
  readonly credentialsPath: string;

  /**
   * `vault` keeps the tokens' secrets in the platform's credential store where one answers
   * (src/config/secrets.ts); without it every secret stays in credentials.json.
   */
  constructor(
    readonly dir: string,
    readonly vault?: SecretVault,
  ) {
    this.configPath = join(dir, 'config.json');
    this.credentialsPath = join(dir, 'credentials.json');
  }

  /**
   * Moves the secrets credentials.json still holds into the credential store, if one answers: each removed
   * from the file only after it reads back equal; a move that fails leaves the file as it was. Not tried
   * again for a day after the store was found absent. Never an error: the file goes on serving.
   */
  async migrateSecrets(): Promise<void> {
    const vault = this.vault;
    if (!vault || vault.mode().mode === 'file' || vault.absentReason()) return;
    const { credentials } = this.read();
    const absent = credentials.storeAbsent;
    if (absent && Date.now() - Date.parse(absent.at) < RETRY_ABSENT_STORE_MS) return;
    if (!Object.values(credentials.tokens).some((t) => !t.keyring)) return;
    try {
      this.checkUsable();
      await this.update(() => {}, { migrateSecrets: true });
    } catch {
      // The file stays as it was and goes on serving; the next command tries again.
    }
  }

  /** A stored token with its secrets, from the credential store when they are there; undefined if gone. */
  async reveal(name: string, t: StoredToken): Promise<RevealedToken | undefined> {
    if (this.vault) return this.vault.reveal(name, t);
    return t.token === undefined ? undefined : (t as RevealedToken);
  }

  /**
   * Reads both files. A corrupt config.json is an error; a corrupt credentials.json means logged out. A file
   * that others may read or write is made 0600 first (docs/cli-contract.md "Config store").
   */
  read(): StoreSnapshot {
    // config.json holds no secret: made 0600 without a word, as every write does. credentials.json is
    // reported when it held a token that others could read.
    tightenFile(this.configPath);
    const repaired = tightenFile(this.credentialsPath);
    const snapshot = this.readFiles();
    const exposed = repaired && Object.keys(snapshot.credentials.tokens).length > 0;
    return exposed ? { ...snapshot, modeRepairs: [repaired] } : snapshot;
  }

  private readFiles(): StoreSnapshot {
    const config = readValidated(this.configPath, ConfigFileSchema);
    if (!config.ok) {
      throw new UsageError(`the config file ${this.configPath} is not valid: ${config.problem}`, {
        hint: 'fix or remove the file by hand; dlake will not overwrite it',
      });
    }
    config.value.profiles = byName(config.value.profiles);
    const credentials = readValidated(this.credentialsPath, CredentialsFileSchema);
    if (!credentials.ok) {
      return {
        config: config.value,
        credentials: { ...CredentialsFileSchema.parse({}), tokens: byName({}) },
        credentialsProblem: `${this.credentialsPath} is not valid (${credentials.problem}); treating every profile as logged out`,
      };
    }
    credentials.value.tokens = byName(credentials.value.tokens);
    return { config: config.value, credentials: credentials.value };
  }

  /**
   * Read-modify-write under a lock. `change` mutates the snapshot it is given; only files whose
   * content changed are written. A corrupt credentials.json is never overwritten by accident: it is
   * replaced only with `replaceCorruptCredentials` (a fresh login).
   */
  async update(
    change: (s: StoreSnapshot) => void,
    opts: { replaceCorruptCredentials?: boolean; migrateSecrets?: boolean } = {},
  ): Promise<StoreSnapshot> {
    this.checkUsable();
    try {
      return await this.lockedUpdate(change, opts);
    } catch (err) {
      // The folder was usable a moment ago: a write that fails now (disk full, quota, a failing device,
      // changed permissions) is a local I/O failure, exit 9, not a bug in dlake (docs/cli-contract.md
      // "Exit codes").
      const code = (err as NodeJS.ErrnoException)?.code;
      if (code && STORE_ERRNO.has(code)) {
        throw new LocalIOError(
          `cannot write the config folder ${this.dir}: ${fsProblem(err as NodeJS.ErrnoException)}`,
          { hint: 'free some space or fix the folder, then run the command again', cause: err },
        );
      }
      throw err;
    }
  }

  /**
   * Makes sure the folder exists and that files can be written in it, or throws a usage error (exit 2)
   * that names the folder. Commands that will store something call `checkCanStore` before contacting the
   * service, so that a login never creates a session on the service that it then cannot keep.
   */
  checkUsable(): void {
    let created: boolean;
    try {
      created = makeDirs(this.dir);
      const st = statSync(this.dir);
      if (!st.isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
      // A folder the user made read-only stays so (root could write into it all the same): never chmod-ed
      // back, refused. One dlake has just made keeps the mode dlake gives its folders whatever the umask.
      if (created && (st.mode & 0o777) !== DIR_MODE) chmodSync(this.dir, DIR_MODE);
      else if (!created && (st.mode & 0o200) === 0) {
        const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
        throw new UsageError(`cannot use the config folder ${this.dir}: it is read-only (mode ${mode})`, {
          hint: `make it writable (chmod u+w '${this.dir}'), or set DLAKE_CONFIG_DIR to a folder you can write to`,
        });
      }
      // Only a real write proves the folder is writable: access() says yes to root on a read-only
      // permission mode, some file systems refuse writes that permissions allow (immutable, read-only
      // mounts), and a full disk still creates an empty file: the probe holds as many bytes as a write will.
      const probe = join(this.dir, `${PROBE}${process.pid}`);
      const fd = openSync(probe, NEW_FILE_FLAGS, FILE_MODE);
      try {
        writeAll(fd, PROBE_BYTES);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
        unlinkSync(probe);
      }
      for (const file of [this.configPath, this.credentialsPath]) refuseLink(file);
    } catch (err) {
      if (err instanceof UsageError) throw err;
      // A folder that takes no write for want of room is a local I/O failure (exit 9), as a write that fails later
      // would be (docs/cli-contract.md "Exit codes"); one that cannot be used at all is a usage error (exit 2).
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'EIO')
        throw new LocalIOError(
          `cannot write the config folder ${this.dir}: ${fsProblem(err as NodeJS.ErrnoException)}`,
          {
            hint: 'free some space or fix the folder, then run the command again',
            cause: err,
          },
        );
      throw this.unusable(err as NodeJS.ErrnoException);
    }
    this.sweepProbes();
  }

  /**
   * `checkUsable`, and the config lock taken and given back at once: what a login checks before it contacts
   * the service (a lock held by a dlake that hangs is found now, not after the service made a session).
   */
  async checkCanStore(): Promise<void> {
    this.checkUsable();
    await this.withLock(async () => {});
    await this.vault?.checkWritable();
  }

  /**
   * The probe, or the new file of a write (`config.json.PID.tmp`), of a dlake killed before it removed or renamed
   * it stays behind: removed by the next one.
   */
  private sweepProbes(): void {
    try {
      for (const name of readdirSync(this.dir)) {
        const of = LEFT_BEHIND.exec(name);
        const pid = of ? Number(of[1] ?? of[2]) : Number.NaN;
        if (Number.isSafeInteger(pid) && pid > 0 && !isRunning(pid))
          rmSync(join(this.dir, name), { force: true });
      }
    } catch {
      // Tidying only: a probe left behind is an empty private file, never an error.
    }
  }

  private unusable(err: NodeJS.ErrnoException): UsageError {
    return new UsageError(`cannot use the config folder ${this.dir}: ${fsProblem(err)}`, {
      hint: 'set DLAKE_CONFIG_DIR to a folder you can write to, or fix this one',
    });
  }

  /** Runs `fn` holding the config lock, which every write of the folder (and of the secret store) is made under. */
  async withLock<T>(fn: () => Promise<T>): Promise<T> {
    // Loaded before the lock is taken: a process killed while it holds the lock leaves it behind, blocking
    // every other dlake until it goes stale (10 s).
    const { default: lockfile } = await import('proper-lockfile');
    const lockPath = join(this.dir, '.lock');
    checkLock(lockPath);
    const release = await lockfile
      .lock(this.dir, {
        lockfilePath: lockPath,
        // A killed process leaves a lock behind; after `stale` ms another process may take it over.
        stale: LOCK_STALE_MS,
        retries: { retries: 200, minTimeout: 10, maxTimeout: 100, randomize: true },
      })
      .catch((err: unknown) => {
        // Still held when the retries ran out: a dlake that hangs, or a lock that is not a dlake's.
        if ((err as NodeJS.ErrnoException)?.code === 'ELOCKED')
          throw lockProblem(lockPath, 'is held and never released');
        throw err;
      });
    try {
      return await fn();
    } finally {
      await release();
    }
  }

  private lockedUpdate(
    change: (s: StoreSnapshot) => void,
    opts: { replaceCorruptCredentials?: boolean; migrateSecrets?: boolean },
  ): Promise<StoreSnapshot> {
    return this.withLock(async () => {
      const snapshot = this.read();
      const before = { config: JSON.stringify(snapshot.config), creds: JSON.stringify(snapshot.credentials) };
      const tokensBefore = structuredClone({ ...snapshot.credentials.tokens });
      change(snapshot);
      const tokens = snapshot.credentials.tokens;
      // The secrets of the tokens this change wrote (all of them, for a migration) go to the credential store
      // before the file is written: the file never names an item the store does not hold.
      const placed = Object.keys(tokens).filter(
        (n) => opts.migrateSecrets || JSON.stringify(tokens[n]) !== JSON.stringify(tokensBefore[n]),
      );
      try {
        const note = await this.vault?.place(tokens, placed, tokensBefore, {
          migrating: opts.migrateSecrets,
        });
        if (note) snapshot.secretsNote = note.replace('FILE', this.credentialsPath);
        // A migration that found no store says so in the file, so that the next commands do not ask again.
        if (opts.migrateSecrets) {
          if (note) snapshot.credentials.storeAbsent = { why: note, at: new Date().toISOString() };
          else delete snapshot.credentials.storeAbsent;
        }
        if (JSON.stringify(snapshot.config) !== before.config) this.write(this.configPath, snapshot.config);
        const credsChanged = JSON.stringify(snapshot.credentials) !== before.creds;
        if (credsChanged && (!snapshot.credentialsProblem || opts.replaceCorruptCredentials)) {
          this.write(this.credentialsPath, snapshot.credentials);
        } else if (credsChanged) {
          throw new UsageError(`not overwriting ${this.credentialsPath}: it is not valid`, {
            hint: `remove it (rm '${this.credentialsPath}') or run \`dlake login\` again`,
          });
        }
      } catch (err) {
        // The items just written for a file that was not: removed again (best effort), the store as before.
        await this.vault?.sweep({ ...tokens }, tokensBefore).catch(() => undefined);
        throw err;
      }
      // Items no token refers to any more (a logout, a deleted profile, a login that replaced them).
      const warning = await this.vault?.sweep(tokensBefore, { ...tokens });
      if (warning) snapshot.secretsWarning = warning;
      return snapshot;
    });
  }

  /**
   * Writes one of the two files atomically: a new file (created, never opened through a link, mode 0600)
   * written and flushed, then renamed over the old one. A link in the file's place is refused, not followed
   * nor replaced: something other than dlake put it there.
   */
  private write(path: string, value: object): void {
    refuseLink(path);
    const temp = `${path}.${process.pid}.tmp`;
    rmSync(temp, { force: true });
    const fd = openSync(temp, NEW_FILE_FLAGS, FILE_MODE);
    try {
      writeAll(fd, Buffer.from(`${JSON.stringify(value, null, '\t')}\n`));
      fsyncSync(fd);
    } catch (err) {
      closeSync(fd);
      rmSync(temp, { force: true });
      throw err;
    }
    closeSync(fd);
    try {
      renameSync(temp, path);
    } catch (err) {
      rmSync(temp, { force: true });
      throw err;
    }
  }
}

/** The names a killed dlake may leave in the folder, with its process id. */
const LEFT_BEHIND = /^(?:\.probe-(\d+)|(?:config|credentials)\.json\.(\d+)\.tmp)$/;

/** A new file, exclusively: never an existing one, never through a symbolic link. */
const NEW_FILE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
/** The folder's probe is as large as the files dlake writes there can be (a full disk refuses it). */
const PROBE_BYTES = Buffer.alloc(16 * 1024);

function writeAll(fd: number, bytes: Buffer): void {
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
}

/**
 * A file of the folder that is a symbolic link, a folder or anything but a regular file: refused with a usage
 * error naming it (exit 2); dlake never reads or writes through it (docs/cli-contract.md "Config store").
 */
function refuseLink(path: string): void {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(path);
  } catch {
    return;
  }
  if (st.isFile()) return;
  throw new UsageError(
    `${path} is ${kindOfFile(st)}, not a file dlake wrote: dlake does not read or write through it`,
    {
      hint: `remove it (rm '${path}') and run the command again`,
    },
  );
}

/** How long after finding no credential store a migration is tried again. */
const RETRY_ABSENT_STORE_MS = 24 * 3600_000;

/** How long a lock may go unrefreshed before another process takes it over (proper-lockfile's `stale`). */
const LOCK_STALE_MS = 10_000;

/**
 * Refuses at once a lock that is not one a dlake (proper-lockfile) makes: its lock is an empty folder whose
 * time is refreshed while it is held. A file, a folder with something in it (which proper-lockfile cannot
 * remove when it goes stale, so it would retry for 20 s and then call it held), or one dated in the future
 * (never stale) would only be waited on in vain.
 */
function checkLock(lockPath: string): void {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(lockPath);
  } catch {
    return; // No lock: the usual case. Anything else is for proper-lockfile to meet and report.
  }
  if (!st.isDirectory()) throw lockProblem(lockPath, 'is not a folder, so not a lock dlake made');
  let entries: string[];
  try {
    entries = readdirSync(lockPath);
  } catch {
    entries = [];
  }
  if (entries.length) throw lockProblem(lockPath, 'has files in it, so it is not a lock dlake made');
  if (st.mtimeMs > Date.now() + LOCK_STALE_MS) throw lockProblem(lockPath, 'is dated in the future');
}

/** A config lock dlake cannot take: exit 9, naming what to remove (docs/cli-contract.md "Config store"). */
function lockProblem(lockPath: string, why: string): LocalIOError {
  return new LocalIOError(`cannot lock the config folder: ${lockPath} ${why}`, {
    hint: `if no other dlake is running, remove it (rm -r '${lockPath}') and run the command again`,
  });
}

/**
 * Makes a stored file that others may read or write 0600 (ssh refuses such a key; dlake repairs it, since it
 * wrote the file), and returns the warning to show; undefined when the mode was right or there is no file.
 */
function tightenFile(path: string): string | undefined {
  let mode: number;
  try {
    // lstat: a symbolic link is never chmod-ed (chmod would change its target, elsewhere).
    const st = lstatSync(path);
    if (!st.isFile()) return undefined;
    mode = st.mode & 0o777;
  } catch {
    return undefined;
  }
  if ((mode & ~FILE_MODE) === 0) return undefined;
  const was = `mode ${mode.toString(8).padStart(4, '0')}`;
  try {
    chmodSync(path, FILE_MODE);
    return `${path} could be read or written by others (${was}): made it 0600`;
  } catch (err) {
    return `${path} can be read or written by others (${was}) and could not be made 0600 (${fsProblem(err as NodeJS.ErrnoException)}): run chmod 600 '${path}'`;
  }
}

/**
 * A map keyed by profile name, without a prototype: a profile named `valueOf`, `constructor` or `toString`
 * is looked up like any other, never found as one of Object's methods (a phantom profile or token).
 */
function byName<T>(record: Record<string, T>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, record);
}

/** File-system failures that say the folder cannot be used (as opposed to a bug). */
const STORE_ERRNO = new Set([
  'EACCES',
  'EPERM',
  'EROFS',
  'ENOSPC',
  'EDQUOT',
  'ENOTDIR',
  'ENOENT',
  'ELOOP',
  'ENAMETOOLONG',
  'EIO',
  'EISDIR',
]);

/**
 * `mkdir -p`, one level at a time; true when it created the folder. Node's own recursive mkdirSync never returns for a path under /proc
 * (procfs answers ENOENT for the parent it has just "created", and Node tries again forever).
 */
function makeDirs(dir: string): boolean {
  const missing: string[] = [];
  for (let d = resolve(dir); ; d = dirname(d)) {
    try {
      statSync(d);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(d) === d) throw err;
      missing.unshift(d);
    }
  }
  for (const d of missing) {
    try {
      mkdirSync(d, { mode: DIR_MODE });
    } catch (err) {
      // Another dlake process may have created it a moment ago.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return missing.length > 0;
}

/** A file-system error in words (the code alone, `EROFS`, says little to most people). */
function fsProblem(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'it is on a read-only file system';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'EDQUOT':
      return 'disk quota exceeded';
    case 'EIO':
      return 'input/output error on the device';
    case 'ENOTDIR':
      return 'it, or a part of its path, is a file, not a folder';
    case 'ENOENT':
      return 'it cannot be created there';
    case 'ELOOP':
      return 'its path has a loop of symbolic links';
    case 'ENAMETOOLONG':
      return 'its path is too long';
    default:
      return err.code ? `${err.message.split(',')[0]} (${err.code})` : err.message;
  }
}

type ReadResult<T> = { ok: true; value: T } | { ok: false; problem: string };

function readValidated<S extends z.ZodMiniType>(path: string, schema: S): ReadResult<z.infer<S>> {
  let text: string;
  try {
    // Checked first: a named pipe or device in its place is refused, never waited on or read without end.
    text = readCheckedFile(path, { maxBytes: USER_FILE_MAX_BYTES, noFollow: true }).toString('utf8');
  } catch (e) {
    // No file, or no folder to hold one (a part of the path is a file): nothing is stored yet. A command
    // that must store something finds out in checkUsable, with the folder named.
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: true, value: schema.parse({}) };
    return { ok: false, problem: describeFsError(e) };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    // JSON.parse quotes the text it choked on, line breaks included: the problem must fit on one line.
    return { ok: false, problem: `not JSON (${oneLine((e as Error).message)})` };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, problem: `${issue.path.join('.') || '(top level)'}: ${issue.message}` };
  }
  return { ok: true, value: parsed.data };
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}
