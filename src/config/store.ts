// The config store: config.json (profiles) and credentials.json (tokens) in one folder.
//
// Reads are plain file reads validated with zod, so commands that only read the store never load conf.
// Writes go through conf (atomic write-and-rename, file mode 0600) inside a cross-process lock, re-reading
// both files under the lock so that concurrent dlake processes never lose each other's changes.
import { chmodSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type * as z from 'zod/mini';
import { UsageError } from '../errors.js';
import { describeFsError } from '../util/files.js';
import { type ConfigFile, ConfigFileSchema, type CredentialsFile, CredentialsFileSchema } from './schema.js';

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

/** `DLAKE_CONFIG_DIR`, else the platform's config folder for dlake (`~/.config/dlake` on Linux). */
export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.DLAKE_CONFIG_DIR) return env.DLAKE_CONFIG_DIR;
  const home = homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Preferences', 'dlake');
  if (process.platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'dlake');
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'dlake');
}

export interface StoreSnapshot {
  config: ConfigFile;
  credentials: CredentialsFile;
  /** Set when credentials.json could not be read: the store then counts as logged out. */
  credentialsProblem?: string;
}

export class ConfigStore {
  readonly configPath: string;
  readonly credentialsPath: string;

  constructor(readonly dir: string) {
    this.configPath = join(dir, 'config.json');
    this.credentialsPath = join(dir, 'credentials.json');
  }

  /** Reads both files. A corrupt config.json is an error; a corrupt credentials.json means logged out. */
  read(): StoreSnapshot {
    const config = readValidated(this.configPath, ConfigFileSchema);
    if (!config.ok) {
      throw new UsageError(`the config file ${this.configPath} is not valid: ${config.problem}`, {
        hint: 'fix or remove the file by hand; dlake will not overwrite it',
      });
    }
    const credentials = readValidated(this.credentialsPath, CredentialsFileSchema);
    if (!credentials.ok) {
      return {
        config: config.value,
        credentials: CredentialsFileSchema.parse({}),
        credentialsProblem: `${this.credentialsPath} is not valid (${credentials.problem}); treating every profile as logged out`,
      };
    }
    return { config: config.value, credentials: credentials.value };
  }

  /**
   * Read-modify-write under a lock. `change` mutates the snapshot it is given; only files whose
   * content changed are written. A corrupt credentials.json is never overwritten by accident: it is
   * replaced only with `replaceCorruptCredentials` (a fresh login).
   */
  async update(
    change: (s: StoreSnapshot) => void,
    opts: { replaceCorruptCredentials?: boolean } = {},
  ): Promise<StoreSnapshot> {
    this.ensureDir();
    // Load everything before taking the lock: importing conf takes ~20 ms, and a process killed while it
    // holds the lock leaves it behind, blocking every other dlake until it goes stale (10 s).
    const [{ default: lockfile }, { default: Conf }] = await Promise.all([
      import('proper-lockfile'),
      import('conf'),
    ]);
    const release = await lockfile.lock(this.dir, {
      lockfilePath: join(this.dir, '.lock'),
      // A killed process leaves a lock behind; after `stale` ms another process may take it over.
      stale: 10_000,
      retries: { retries: 200, minTimeout: 10, maxTimeout: 100, randomize: true },
    });
    try {
      const snapshot = this.read();
      const before = { config: JSON.stringify(snapshot.config), creds: JSON.stringify(snapshot.credentials) };
      change(snapshot);
      const write = (configName: string, value: object): void => {
        // The snapshot was validated above, under the lock; `clearInvalidConfig` only stops conf's own
        // constructor from choking on the corrupt file that a fresh login is allowed to replace.
        const conf = new Conf({
          cwd: this.dir,
          configName,
          configFileMode: FILE_MODE,
          clearInvalidConfig: true,
        });
        conf.store = value as Record<string, unknown>;
        // conf creates files with mode 0600 & ~umask, but an existing file keeps its mode until renamed
        // over; chmod makes the rule hold whatever happened before.
        chmodSync(join(this.dir, `${configName}.json`), FILE_MODE);
      };
      if (JSON.stringify(snapshot.config) !== before.config) write('config', snapshot.config);
      const credsChanged = JSON.stringify(snapshot.credentials) !== before.creds;
      if (credsChanged && (!snapshot.credentialsProblem || opts.replaceCorruptCredentials)) {
        write('credentials', snapshot.credentials);
      } else if (credsChanged) {
        throw new UsageError(`not overwriting ${this.credentialsPath}: it is not valid`, {
          hint: `remove it (rm '${this.credentialsPath}') or run \`dlake login\` again`,
        });
      }
      return snapshot;
    } finally {
      await release();
    }
  }

  private ensureDir(): void {
    mkdirSync(this.dir, { recursive: true, mode: DIR_MODE });
    if ((statSync(this.dir).mode & 0o777) !== DIR_MODE) chmodSync(this.dir, DIR_MODE);
  }
}

type ReadResult<T> = { ok: true; value: T } | { ok: false; problem: string };

function readValidated<S extends z.ZodMiniType>(path: string, schema: S): ReadResult<z.infer<S>> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, value: schema.parse({}) };
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
