// What a command that makes one plain-HTTP request loads at start: none of the Node modules dlake does not
// need for it (see scripts/build-plugins.mjs and docs/benchmarks.md). Node records each
// built-in module it loads in process.moduleLoadList; a preload script writes it out at exit.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv } from '../helpers/dlake.js';
import { useFixture } from '../helpers/fixture.js';

const fx = useFixture();

/** The built-in modules a dlake run loaded, by name. */
async function builtinsLoaded(args: string[]): Promise<string[]> {
  const out = join(fx.configDir, 'modules.txt');
  const preload = join(fx.configDir, 'record-modules.cjs');
  writeFileSync(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')));`,
  );
  const child = spawn(process.execPath, ['-r', preload, BIN, ...args], {
    env: cleanEnv({ DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url }),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const code = await new Promise((resolve) => child.on('close', resolve));
  expect(code).toBe(0);
  return readFileSync(out, 'utf8')
    .split('\n')
    .filter((m) => m.startsWith('NativeModule '))
    .map((m) => m.slice('NativeModule '.length));
}

describe('start of a command that makes one request with a cached token', () => {
  it('loads no HTTP/2, TLS or crypto modules', async () => {
    const loaded = await builtinsLoaded(['api', 'GET', '/api/v3/catalog']);
    expect(loaded).toContain('http');
    for (const name of ['http2', 'tls', 'crypto', 'zlib']) expect(loaded, name).not.toContain(name);
  });
});

describe('the code cache (src/util/code-cache.ts)', () => {
  const cacheDir = () => join(fx.configDir, 'cache');
  const cacheFile = () => {
    const files = readdirSync(cacheDir());
    expect(files).toHaveLength(1);
    return join(cacheDir(), files[0]!);
  };

  it('is written by one run and used, untouched, by the next', async () => {
    rmSync(cacheDir(), { recursive: true, force: true });
    expect((await fx.spawn(['api', 'GET', '/api/v3/catalog'])).code).toBe(0);
    const written = statSync(cacheFile());
    expect(written.mode & 0o777).toBe(0o600);

    const next = await fx.spawn(['api', 'GET', '/api/v3/catalog']);
    expect(next.code).toBe(0);
    expect(JSON.parse(next.stdout).data.length).toBeGreaterThan(0);
    // V8 rejecting the cache would have the run write a new file (a new inode) at exit.
    expect(statSync(cacheFile()).ino).toBe(written.ino);
  });

  it('a damaged cache is ignored and replaced', async () => {
    writeFileSync(cacheFile(), 'garbage');
    const r = await fx.spawn(['api', 'GET', '/api/v3/catalog']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(readFileSync(cacheFile(), 'utf8')).not.toBe('garbage');
  });

  it('creates no folder when the config folder does not exist yet', async () => {
    const missing = join(fx.configDir, 'not-yet');
    const r = await fx.spawn(['--help'], { env: { DLAKE_CONFIG_DIR: missing } });
    expect(r.code).toBe(0);
    expect(existsSync(missing)).toBe(false);
  });

  it('a config folder that is a file: the command fails as it would without a cache', async () => {
    const file = join(fx.configDir, 'a-file');
    writeFileSync(file, '');
    const args = ['api', 'GET', '/api/v3/catalog'];
    const spawned = await fx.spawn(args, { env: { DLAKE_CONFIG_DIR: file } });
    const inProcess = await fx.run(args, { env: { DLAKE_CONFIG_DIR: file } });
    expect(spawned.stderr).toMatch(/^error: /);
    expect([spawned.code, spawned.stderr]).toEqual([inProcess.code, inProcess.stderr]);
  });

  it('caches command groups only: a mistyped word adds nothing', async () => {
    rmSync(cacheDir(), { recursive: true, force: true });
    const r = await fx.spawn(['catlog', 'ls']);
    expect(r.code).toBe(2);
    expect(existsSync(cacheDir()) ? readdirSync(cacheDir()) : []).toEqual([]);
  });

  it('keeps the config folder under 3 MiB whatever commands run', async () => {
    // Each of these groups' caches holds about 1.3 MB (the bundle's and zod's): three would pass 3 MiB.
    for (const args of [
      ['catalog', 'ls'],
      ['sql', 'SELECT 1 AS x'],
      ['-o', 'json', 'role', 'list'],
    ])
      expect((await fx.spawn(args)).code, args.join(' ')).toBe(0);
    const sizes = readdirSync(fx.configDir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => statSync(join(e.parentPath, e.name)).size);
    expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThan(3 * 1024 * 1024);
    // The groups used last are cached; no temporary file is left.
    const names = readdirSync(cacheDir());
    expect(names.some((n) => n.includes('-role-'))).toBe(true);
    expect(names.filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('a cache that cannot be read or written fails nothing and leaves nothing', async () => {
    rmSync(cacheDir(), { recursive: true, force: true });
    expect((await fx.spawn(['api', 'GET', '/api/v3/catalog'])).code).toBe(0);
    // A folder where the cache file is: reading it fails, and so does renaming a new cache over it.
    const blocked = cacheFile();
    rmSync(blocked);
    mkdirSync(join(blocked, 'x'), { recursive: true });
    const r = await fx.spawn(['api', 'GET', '/api/v3/catalog']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout).data.length).toBeGreaterThan(0);
    expect(readdirSync(cacheDir())).toEqual([basename(blocked)]);
  });
});
