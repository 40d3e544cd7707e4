// The published package: `npm pack` gives a tarball that installs with `npm install -g` on a clean machine,
// with no build step and no dev dependencies, its one optional dependency the credential store's binding
// (a prebuilt binary for the platform), and whose `dlake` works, the OS credential store included.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Emulator, startEmulator } from 'dlake-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorProcess, startEmulatorCommand } from '../../emulator/test/command.js';
import { parseCsv } from '../helpers/csv.js';
import { runDlake } from '../helpers/dlake.js';
import { freePort } from '../helpers/free-port.js';
import { secretServiceMissing, startSecretService } from '../helpers/keyring.js';
import {
  installGlobally,
  type Packed,
  packDlake,
  REPO,
  sharedDlakePack,
  treeSize,
  userEnv,
} from '../helpers/package.js';
import { loginPath, ROOT, Session, tourBlocks, typeBlock } from '../helpers/tour.js';
import { until } from '../helpers/until.js';

const run = promisify(execFile);
const README = readFileSync(join(REPO, 'README.md'), 'utf8');

/** The scripts of an installed package that npm would run (or warn about) when installing it. */
function installTimeScripts(dir: string): string[] {
  const { scripts = {} } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  return Object.keys(scripts).filter((k) => ['preinstall', 'install', 'postinstall', 'prepare'].includes(k));
}
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
    packed = await sharedDlakePack();
    installLog = await installGlobally(packed.tarball, prefix);
    emu = await startEmulator();
  });
  afterAll(async () => {
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const installed = (): string => join(prefix, 'lib', 'node_modules', 'dlake');
  const dlake = (args: string[], input?: string, env: Record<string, string> = {}) => {
    const child = run(join(prefix, 'bin', 'dlake'), args, {
      cwd: dir,
      env: userEnv({ DLAKE_CONFIG_DIR: join(dir, 'config'), DLAKE_URL: emu.url, ...env }),
    });
    if (input !== undefined) child.child.stdin!.end(input);
    return child;
  };

  it('holds the bundle, the bin and the completions, nothing else', () => {
    expect(packed.files).toContain('bin/dlake.js');
    expect(packed.files).toContain('bin/package.json');
    expect(packed.files).toContain('dist/boot.cjs');
    expect(packed.files).toContain('dist/cli.cjs');
    expect(packed.files).toContain('dist/vendor/yaml.cjs');
    expect(packed.files).toContain('completions/dlake.bash');
    expect(packed.files).toContain('README.md');
    // The bundled dependencies' licence notices travel with their code.
    expect(packed.files).toContain('dist/THIRD-PARTY-LICENSES.txt');
    const unexpected = packed.files.filter(
      (f) =>
        !/^(bin\/(dlake\.js|package\.json)|dist\/(boot|cli|keyring|vendor\/[\w-]+)\.cjs|dist\/THIRD-PARTY-LICENSES\.txt|completions\/[\w.]+|README\.md|LICENSE|package\.json)$/.test(
          f,
        ),
    );
    expect(unexpected).toEqual([]);
  });

  // --offline: had it needed anything from a registry but its own optional binding (from npm's cache), or a build
  // tool, the install would fail.
  it('installs with no build step, its only dependency the prebuilt credential-store binding, in under 5 MiB', () => {
    expect(installLog).not.toMatch(/warn/i);
    const deps = join(installed(), 'node_modules');
    // @napi-rs/keyring and the one package of prebuilt binaries for this platform.
    const binding = readdirSync(join(deps, '@napi-rs'));
    expect(readdirSync(deps)).toEqual(['@napi-rs']);
    expect(binding).toEqual(['keyring', expect.stringMatching(/^keyring-[\w-]+$/)]);
    for (const dir of [installed(), ...binding.map((b) => join(deps, '@napi-rs', b))])
      expect(installTimeScripts(dir), dir).toEqual([]);
    expect(treeSize(installed()) - treeSize(deps)).toBeLessThan(5 * MiB);
    expect(packed.size).toBeLessThan(1 * MiB);
  });

  it("the README's sizes are what was packed and installed (within 5 %)", () => {
    const said =
      /the tarball is ([\d.]+) KiB, the installed\s+package ([\d.]+) MiB .*?,\s+of which ([\d.]+) MiB are the Arrow Flight libraries/s.exec(
        README,
      );
    expect(said, 'the sizes sentence of README "Install"').not.toBeNull();
    const [tarball, installedMiB, flightMiB] = said!.slice(1).map(Number) as [number, number, number];
    const vendor = join(installed(), 'dist', 'vendor');
    const flight = ['apache-arrow', 'grpc-grpc-js', 'protobufjs-minimal']
      .map((name) => statSync(join(vendor, `${name}.cjs`)).size)
      .reduce((a, b) => a + b, 0);
    const near = (measured: number, written: number, unit: number) =>
      expect(
        Math.abs(measured / unit - written) / written,
        `${written} said, ${(measured / unit).toFixed(2)} measured`,
      ).toBeLessThan(0.05);
    near(packed.size, tarball, 1024);
    // dlake's own files: the README says what the optional credential store binding adds beside them.
    near(treeSize(installed()) - treeSize(join(installed(), 'node_modules')), installedMiB, MiB);
    near(flight, flightMiB, MiB);
  });

  it('the tarballs npm pack writes are ignored by git', async () => {
    const ignored = await run(
      'git',
      ['check-ignore', 'dlake-0.1.0.tgz', 'emulator/dlake-emulator-0.1.0.tgz'],
      {
        cwd: REPO,
      },
    );
    expect(ignored.stdout.trim().split('\n')).toHaveLength(2);
  });

  it('dlake --version prints the version', async () => {
    const { stdout } = await dlake(['--version']);
    expect(stdout).toMatch(
      new RegExp(
        `^dlake version ${version.replaceAll('.', '\\.')} \\(commit \\w+, [\\d-]+; npm package\\)\n`,
      ),
    );
  });

  it.skipIf(secretServiceMissing())(
    "keeps the login's session in the OS credential store, through the binding it installed",
    async () => {
      const ss = await startSecretService();
      try {
        const env = { ...ss.env, DLAKE_CONFIG_DIR: join(dir, 'config-keyring') };
        const login = dlake(['login', '-u', 'admin', '--password-stdin'], 'admin-pass-1\n', env);
        expect((await login).stderr).toMatch(/^Logged in to [^\n]*\n$/);
        const { stdout } = await dlake(['whoami'], undefined, env);
        expect(stdout).toMatch(/^stored in +keyring/m);
        expect(Object.keys(await ss.items())).toEqual([expect.stringMatching(/^default:token:[0-9a-f]{8}$/)]);
        expect(readFileSync(join(dir, 'config-keyring', 'credentials.json'), 'utf8')).not.toMatch(/"token":/);
      } finally {
        await ss.close();
      }
    },
  );

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

  let installLog: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dlake-emulator-pack-'));
    const packed = await packDlake(dir, 'emulator');
    installLog = await installGlobally(packed.tarball, join(dir, 'prefix'), 'from-cache');
  }, 180_000);
  afterAll(async () => {
    await emulator?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('installs without a warning and carries no install-time script', () => {
    expect(installLog).not.toMatch(/warn/i);
    expect(installTimeScripts(join(dir, 'prefix', 'lib', 'node_modules', 'dlake-emulator'))).toEqual([]);
  });

  it('is what the README tells a user with only the release tarballs to install', () => {
    const install = README.split(/^## Install$/m)[1]?.split(/^## /m)[0] ?? '';
    expect(install).toContain(`npm install -g ./dlake-emulator-${version}.tgz\n`);
    // Not on a registry: an `npx dlake-emulator` would fail.
    expect(README).not.toMatch(/npx dlake-emulator/);
  });

  it('dlake-emulator starts, serves --samples, answers SQL through DuckDB, and stops on SIGTERM', async () => {
    const samples = join(dir, 'csv-files');
    mkdirSync(samples);
    writeFileSync(join(samples, 'sales.csv'), 'region,units\nNorth,3\n');
    emulator = await startEmulatorCommand(
      ['--port', '0', '--samples', samples],
      join(dir, 'prefix', 'bin', 'dlake-emulator'),
    );
    const env = { DLAKE_CONFIG_DIR: join(dir, 'config'), DLAKE_URL: emulator.url };
    const login = await runDlake(['login', '-u', 'admin', '--password-stdin'], {
      env,
      input: 'admin-pass-1\n',
    });
    expect(login.code).toBe(0);
    const sql = await runDlake(['sql', 'SELECT 6 * 7 AS answer', '-o', 'json'], { env });
    expect([sql.code, JSON.parse(sql.stdout)]).toEqual([0, [{ answer: 42 }]]);
    const ls = await runDlake(['catalog', 'ls', 'Samples', '-o', 'json'], { env });
    expect(JSON.parse(ls.stdout)).toEqual([expect.objectContaining({ path: ['Samples', 'sales.csv'] })]);
    expect(await emulator.stop()).toBe(0);
    emulator = undefined;
  });

  it("with dlake's tarball beside it, the README's Quick tour runs as printed, its first line skipped", async () => {
    const prefix = join(dir, 'prefix');
    await installGlobally((await sharedDlakePack()).tarball, prefix);
    const home = join(dir, 'tour-home');
    mkdirSync(home);
    const port = String(await freePort());
    const { setup, tour, end } = tourBlocks(README.replaceAll('9047', port));
    expect(README).toContain(
      'With the release tarballs installed instead ([Install](#install)), skip the first line',
    );
    const env = { HOME: home, PATH: `${join(prefix, 'bin')}:${loginPath()}`, LANG: 'C.UTF-8', TMPDIR: home };
    const shell = new Session(ROOT, env, dir);
    try {
      const results = [...(await typeBlock(shell, setup.slice(1))), ...(await typeBlock(shell, tour))];
      const which = await shell.type('command -v dlake dlake-emulator');
      expect(which.stdout).toBe(
        `${join(prefix, 'bin', 'dlake')}\n${join(prefix, 'bin', 'dlake-emulator')}\n`,
      );
      const tourEnd = results.at(-1)!.cwd;
      results.push(...(await typeBlock(shell, end)));
      for (const r of results) expect(r.code, `${r.line}\n${r.stderr}`).toBe(0);
      expect(results.map((r) => r.stdout).join('\n')).toMatch(/North/);
      expect(parseCsv(readFileSync(join(tourEnd, 'big.csv'), 'utf8'))).toHaveLength(20_001);
      await until(() => shell.printed().includes('Received SIGTERM, stopping.'), 'the emulator stops');
    } catch (e) {
      throw new Error(`${(e as Error).message}\n--- the session printed:\n${shell.printed()}`);
    } finally {
      await shell.exit();
    }
  });

  it("brings the sample files the README's Quick tour reads: its Samples source, with no --samples", async () => {
    emulator = await startEmulatorCommand(['--port', '0'], join(dir, 'prefix', 'bin', 'dlake-emulator'));
    expect(emulator.stdout()).toContain(`Source Samples: the files in ${join(dir, 'prefix', 'lib')}`);
    const env = { DLAKE_CONFIG_DIR: join(dir, 'config-samples'), DLAKE_URL: emulator.url };
    const login = await runDlake(['login', '-u', 'admin', '--password-stdin'], {
      env,
      input: 'admin-pass-1\n',
    });
    expect(login.code).toBe(0);
    const ls = await runDlake(['catalog', 'ls', 'Samples', '-o', 'json'], { env });
    const paths = (JSON.parse(ls.stdout) as { path: string[] }[]).map((e) => e.path.join('/')).sort();
    expect(paths).toEqual(
      readdirSync(join(REPO, 'test', 'fixtures', 'samples'))
        .map((f) => `Samples/${f}`)
        .sort(),
    );
    expect(await emulator.stop()).toBe(0);
    emulator = undefined;
  });
});

// `npm install`/`npm ci` in a clone: npm 11 runs no dependency's install script that package.json's
// `allowScripts` does not allow, and warns about each one it has not been told of. The project says which it
// allows (none: esbuild finds its binary through its platform package, protobufjs's script serves its CLI).
describe('npm install in a clone', () => {
  it("leaves npm no dependency's install script to warn about", async (ctx) => {
    const r = await run('npm', ['install-scripts', 'ls'], { cwd: REPO, env: userEnv() }).catch(
      (e: { stdout: string; stderr: string }) => e,
    );
    if (/Unknown command/i.test(r.stderr)) ctx.skip('this npm predates install-script approval (npm 11)');
    expect(r.stdout.trim()).toBe('No packages with unreviewed install scripts.');
  });
});
