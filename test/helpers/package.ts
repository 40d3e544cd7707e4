// Packing dlake as `npm pack` does and installing the tarball as a user would, into a throw-away prefix.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import lockfile from 'proper-lockfile';
import { inject } from 'vitest';

const run = promisify(execFile);
export const REPO = resolve(import.meta.dirname, '../..');

/**
 * The environment of a user's shell: none of the npm_* variables `npm test` sets for its children, and no session
 * bus (a test reaches no credential store but one it starts itself: test/helpers/keyring.ts).
 */
export function userEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(npm_|DLAKE_|INIT_CWD$|DBUS_SESSION_BUS_ADDRESS$|XDG_RUNTIME_DIR$)/i.test(k))
      env[k] = v;
  }
  return { ...env, NO_COLOR: '1', npm_config_update_notifier: 'false', ...extra };
}

export interface Packed {
  tarball: string;
  /** Bytes of the .tgz. */
  size: number;
  /** Bytes of its files, unpacked. */
  unpackedSize: number;
  files: string[];
}

/**
 * `npm pack` of the dlake package (or of a workspace, `emulator`) into `dest`. dist/ is already built (the
 * tests' global set-up).
 */
export async function packDlake(dest: string, workspace?: string): Promise<Packed> {
  const args = ['pack', '--ignore-scripts', '--json', '--pack-destination', dest];
  const { stdout } = await run('npm', workspace ? [...args, '-w', workspace] : args, {
    cwd: REPO,
    env: userEnv(),
  });
  const [info] = JSON.parse(stdout) as Array<{
    filename: string;
    size: number;
    unpackedSize: number;
    files: Array<{ path: string }>;
  }>;
  return {
    tarball: join(dest, info!.filename),
    size: info!.size,
    unpackedSize: info!.unpackedSize,
    files: info!.files.map((f) => f.path),
  };
}

/**
 * The `npm pack` of dlake that every test file of the run installs (read-only: install it, never change it): packed
 * by the first file that asks, into the run's shared folder (test/global-setup.ts), under a lock so that a file
 * running in the other worker waits for it rather than packing again.
 */
export async function sharedDlakePack(): Promise<Packed> {
  const dir = join(inject('sharedDir'), 'dlake-pack');
  mkdirSync(dir, { recursive: true });
  const release = await lockfile.lock(dir, {
    lockfilePath: join(dir, '.lock'),
    retries: { retries: 1200, minTimeout: 50, maxTimeout: 100 },
  });
  try {
    const record = join(dir, 'packed.json');
    if (existsSync(record)) return JSON.parse(readFileSync(record, 'utf8')) as Packed;
    const packed = await packDlake(dir);
    writeFileSync(record, JSON.stringify(packed));
    return packed;
  } finally {
    await release();
  }
}

/**
 * `npm install -g --omit=dev TARBALL` into `prefix` (its `bin/` gets the package's commands). `--offline` by
 * default: dlake needs nothing else. With `dependencies: 'from-cache'`, what it needs comes from npm's cache
 * (filled by `npm ci`), or else the registry.
 */
export async function installGlobally(
  tarball: string,
  prefix: string,
  dependencies: 'none' | 'from-cache' = 'none',
): Promise<string> {
  const mode = dependencies === 'none' ? '--offline' : '--prefer-offline';
  const { stdout, stderr } = await run(
    'npm',
    ['install', '-g', '--prefix', prefix, '--omit=dev', mode, '--no-audit', '--no-fund', tarball],
    { cwd: dirname(tarball), env: userEnv() },
  );
  return `${stdout}${stderr}`;
}

/** Total bytes of the files under `dir`. */
export function treeSize(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += treeSize(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}
