// The published package: `npm pack` gives a tarball that installs with `npm install -g` on a clean machine,
// with no build step, no dependencies to download and no dev dependencies, and whose `dlake` works.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Emulator, startEmulator } from 'dlake-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorProcess, startEmulatorCommand } from '../../emulator/test/command.js';
import { runDlake } from '../helpers/dlake.js';
import { installGlobally, type Packed, packDlake, REPO, treeSize, userEnv } from '../helpers/package.js';

const run = promisify(execFile);
const MiB = 1024 * 1024;
const { version } = (await import(join(REPO, 'package.json'), { with: { type: 'json' } })).default as {
  version: string;
};

describe('npm pack, then npm install -g of the tarball', () => {
  let dir: string;
  let packed: Packed;
  let prefix: string;
  let installLog: string;
  let emu: Emulator;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dlake-pack-'));
    prefix = join(dir, 'prefix');
    packed = await packDlake(dir);
    installLog = await installGlobally(packed.tarball, prefix);
    emu = await startEmulator();
  });
  afterAll(async () => {
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const installed = (): string => join(prefix, 'lib', 'node_modules', 'dlake');
  const dlake = (args: string[], input?: string) => {
    const child = run(join(prefix, 'bin', 'dlake'), args, {
      cwd: dir,
      env: userEnv({ DLAKE_CONFIG_DIR: join(dir, 'config'), DLAKE_URL: emu.url }),
    });
    if (input !== undefined) child.child.stdin!.end(input);
    return child;
  };

  it('holds the bundle, the bin and the completions, nothing else', () => {
    expect(packed.files).toContain('bin/dlake.js');
    expect(packed.files).toContain('bin/package.json');
    expect(packed.files).toContain('dist/boot.cjs');
    expect(packed.files).toContain('dist/cli.cjs');
    expect(packed.files).toContain('dist/vendor/zod.cjs');
    expect(packed.files).toContain('completions/dlake.bash');
    expect(packed.files).toContain('README.md');
    // The bundled dependencies' licence notices travel with their code.
    expect(packed.files).toContain('dist/THIRD-PARTY-LICENSES.txt');
    const unexpected = packed.files.filter(
      (f) =>
        !/^(bin\/(dlake\.js|package\.json)|dist\/(boot|cli|vendor\/[\w-]+)\.cjs|dist\/THIRD-PARTY-LICENSES\.txt|completions\/[\w.]+|README\.md|LICENSE|package\.json)$/.test(
          f,
        ),
    );
    expect(unexpected).toEqual([]);
  });

  // --offline: had it needed anything from a registry (a dependency, a build tool), the install would fail.
  it('installs without a dependency or a build step, in under 2 MiB', () => {
    expect(installLog).toMatch(/added 1 package/);
    expect(existsSync(join(installed(), 'node_modules'))).toBe(false);
    expect(treeSize(installed())).toBeLessThan(2 * MiB);
    expect(packed.size).toBeLessThan(1 * MiB);
  });

  it('dlake --version prints the version', async () => {
    const { stdout } = await dlake(['--version']);
    expect(stdout).toBe(`${version}\n`);
  });

  it('logs in and lists the catalog against the emulator', async () => {
    const login = await dlake(['login', '-u', 'admin', '--password-stdin'], 'admin-pass-1\n');
    expect(login.stderr).toContain('Logged in');
    const { stdout } = await dlake(['catalog', 'ls', '-o', 'json']);
    expect(JSON.parse(stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: ['@admin'] })]),
    );
  });
});

// The emulator for users (README "The emulator"): its own tarball, its own dependencies (DuckDB among them).
describe('npm pack -w emulator, then npm install -g of the tarball', () => {
  let dir: string;
  let emulator: EmulatorProcess | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dlake-emulator-pack-'));
    const packed = await packDlake(dir, 'emulator');
    await installGlobally(packed.tarball, join(dir, 'prefix'), 'from-cache');
  }, 180_000);
  afterAll(async () => {
    await emulator?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('dlake-emulator starts, answers SQL through DuckDB, and stops on SIGTERM', async () => {
    emulator = await startEmulatorCommand(['--port', '0'], join(dir, 'prefix', 'bin', 'dlake-emulator'));
    const env = { DLAKE_CONFIG_DIR: join(dir, 'config'), DLAKE_URL: emulator.url };
    const login = await runDlake(['login', '-u', 'admin', '--password-stdin'], {
      env,
      input: 'admin-pass-1\n',
    });
    expect(login.code).toBe(0);
    const sql = await runDlake(['sql', 'SELECT 6 * 7 AS answer', '-o', 'json'], { env });
    expect([sql.code, JSON.parse(sql.stdout)]).toEqual([0, [{ answer: 42 }]]);
    expect(await emulator.stop()).toBe(0);
    emulator = undefined;
  });
});
