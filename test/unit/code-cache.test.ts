import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CACHED_GROUPS } from '../../src/boot.js';
import { type CodeCache, CodeCacheLoader } from '../../src/util/code-cache.js';

let dir: string;
let cacheDir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-code-cache-'));
  cacheDir = join(dir, 'cache');
  file = join(dir, 'bundle.cjs');
  writeFileSync(join(dir, 'helper.cjs'), 'module.exports = 40;');
  // A source of its own in every test: V8 keeps what this process compiled and would not even read the cache.
  writeFileSync(
    file,
    `// ${dir}\nmodule.exports = () => ({ answer: require("./helper.cjs") + 2, file: __filename });`,
  );
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

type Bundle = () => { answer: number; file: string };
const cacheFiles = () => readdirSync(cacheDir).sort();
/** A loader as in a new process: loads the bundle, runs it, and saves at "exit". */
function run(cache: Partial<CodeCache> | undefined): ReturnType<Bundle> {
  const loader = new CodeCacheLoader(
    cache && { dir: cacheDir, buildId: 'b1', variant: 'api', maxBytes: 1 << 20, ...cache },
  );
  const result = (loader.require(file) as Bundle)();
  loader.save();
  return result;
}

describe('CodeCacheLoader', () => {
  it('runs a file as a CommonJS module: require relative to it, __filename, module.exports', () => {
    expect(run(undefined)).toEqual({ answer: 42, file });
  });

  // That the next process uses the caches is seen from outside: test/e2e/startup.test.ts.
  it('writes a cache (folder 0700, files 0600) for the file and each relative .cjs file it requires', () => {
    expect(run({}).answer).toBe(42);
    expect(cacheFiles()).toEqual([
      expect.stringMatching(/^code-b1-api-bundle-v8-/),
      expect.stringMatching(/^code-b1-api-helper-v8-/),
    ]);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    for (const f of cacheFiles()) expect(statSync(join(cacheDir, f)).mode & 0o777).toBe(0o600);
  });

  it('loads a file once however often it is required; other modules the usual way', () => {
    writeFileSync(join(dir, 'count.cjs'), 'globalThis.__loads = (globalThis.__loads ?? 0) + 1;');
    writeFileSync(
      file,
      `// ${dir}\nrequire("./count.cjs"); require("./count.cjs");\nmodule.exports = () => ({ answer: globalThis.__loads, file: require("node:path").basename(__filename) });`,
    );
    expect(run({})).toEqual({ answer: 1, file: 'bundle.cjs' });
  });

  it('never applies the cache of another build, even to a file of the same length', () => {
    // V8 checks only the length of the source: the build id in the file name is what tells builds apart.
    run({ variant: 'api' });
    run({ variant: 'catalog' });
    writeFileSync(file, readFileSync(file, 'utf8').replace('+ 2', '+ 3'));

    expect(run({ buildId: 'b2', variant: 'api' }).answer).toBe(43);
    // The other build's caches are removed, whatever their variant.
    expect(cacheFiles().every((f) => f.startsWith('code-b2-api-'))).toBe(true);
  });

  it('keeps one cache per variant of a build', () => {
    run({ variant: 'api' });
    run({ variant: 'catalog' });
    expect(cacheFiles().map((f) => f.split('-')[2])).toEqual(['api', 'api', 'catalog', 'catalog']);
  });

  it('ignores a damaged cache file and replaces it', () => {
    mkdirSync(cacheDir);
    const cached = join(cacheDir, `code-b1-api-bundle-v8-${process.versions.v8}-${process.arch}`);
    writeFileSync(cached, 'not a code cache');
    expect(run({}).answer).toBe(42);
    expect(readFileSync(cached).toString()).not.toBe('not a code cache');
  });

  it('neither reads nor writes a cache in a folder others may write to', () => {
    mkdirSync(cacheDir);
    chmodSync(cacheDir, 0o777);
    const planted = join(cacheDir, `code-b1-api-bundle-v8-${process.versions.v8}-${process.arch}`);
    writeFileSync(planted, 'planted');
    expect(run({}).answer).toBe(42);
    expect(cacheFiles()).toEqual([basename(planted)]);
    expect(readFileSync(planted, 'utf8')).toBe('planted');
  });

  it('is silent when the cache cannot be written, and creates no folder but its own', () => {
    const loader = new CodeCacheLoader({
      dir: join(dir, 'missing', 'cache'),
      buildId: 'b1',
      variant: 'api',
      maxBytes: 1 << 20,
    });
    loader.require(file);
    expect(() => loader.save()).not.toThrow();
    expect(readdirSync(dir).sort()).toEqual(['bundle.cjs', 'helper.cjs']);
  });

  it('stays within its bound: the variants least recently used go first, a cache too big is not written', () => {
    run({ variant: 'api' });
    const size = (variant: string) =>
      cacheFiles()
        .filter((f) => f.startsWith(`code-b1-${variant}-`))
        .reduce((sum, f) => sum + statSync(join(cacheDir, f)).size, 0);
    const one = size('api');
    run({ variant: 'catalog' });
    // `api` used again: `catalog` is now the least recently used.
    const later = new Date(Date.now() + 5_000);
    for (const f of cacheFiles().filter((f) => f.startsWith('code-b1-api-')))
      utimesSync(join(cacheDir, f), later, later);
    run({ variant: 'sql', maxBytes: 2 * one + one / 2 });
    expect(cacheFiles().map((f) => f.split('-')[2])).toEqual(['api', 'api', 'sql', 'sql']);

    expect(run({ variant: 'job', maxBytes: one - 1 }).answer).toBe(42);
    expect(cacheFiles().some((f) => f.startsWith('code-b1-job-'))).toBe(false);
  });

  it('a write that fails leaves no temporary file, and temporary files of processes that died are removed', () => {
    mkdirSync(cacheDir, { mode: 0o700 });
    // A folder where the cache file goes: writing the temporary file works, renaming it over fails.
    const blocked = join(cacheDir, `code-b1-api-bundle-v8-${process.versions.v8}-${process.arch}`);
    mkdirSync(join(blocked, 'x'), { recursive: true });
    const stale = join(cacheDir, 'code-b1-api-helper-v8-x.123.tmp');
    writeFileSync(stale, 'left by a process that died');
    const old = new Date(Date.now() - 120_000);
    utimesSync(stale, old, old);

    expect(run({}).answer).toBe(42);
    expect(cacheFiles().filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

describe('the launcher caches the command groups, and no other word', () => {
  it('names every group of the registry (through the command manifest)', async () => {
    const { GROUPS } = await import('../../src/commands/registry.js');
    expect([...CACHED_GROUPS].sort()).toEqual(GROUPS.map((g) => g.name).sort());
  });
});

describe('CodeCacheLoader and links in its folder', () => {
  it("a link left at a cache's temporary name is not written through", () => {
    run({});
    const names = cacheFiles();
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious\n');
    for (const name of names) {
      rmSync(join(cacheDir, name));
      symlinkSync(victim, join(cacheDir, `${name}.${process.pid}.tmp`));
    }
    expect(run({}).answer).toBe(42);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
  });
});
