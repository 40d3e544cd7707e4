// Loading the CommonJS bundle through V8's code cache (docs/architecture.md "Start-up"). Compiling the
// bundle's JavaScript is the largest part of a command's start; V8 can instead deserialize the code it
// compiled on an earlier run. Node 20 has no compile cache of its own (Node 22 added one), so this does what
// it does: `vm.Script` with `cachedData`, and `createCachedData()` at exit when there was no usable cache.
//
// V8 accepts a cache only for the same V8 version and flags and a source of the same length; it does not
// compare the text. The cache file's name therefore carries a hash of the bundle's content (the build id),
// so that a cache is never applied to another build.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { Script } from 'node:vm';

export interface CodeCache {
  /** The folder of cache files; created (one level, mode 0700) when its parent exists. */
  dir: string;
  /** Identifies the content of the files loaded, e.g. a hash computed when they were built. */
  buildId: string;
  /**
   * Runs of one variant (e.g. one command) share a cache. A cache holds the functions its run compiled,
   * so a cache per variant holds what that variant needs.
   */
  variant: string;
}

const PREFIX = 'code-';

/**
 * `require()` for CommonJS files, each compiled from the code cache when there is a usable one. The
 * relative `.cjs` files a loaded file requires are loaded the same way; anything else the usual way.
 */
export class CodeCacheLoader {
  private readonly loaded = new Map<string, unknown>();
  private readonly unsaved: Array<{ file: string; script: Script }> = [];

  private readonly cache: CodeCache | undefined;

  constructor(cache: CodeCache | undefined) {
    this.cache = cache && isPrivate(cache.dir) ? cache : undefined;
  }

  require(file: string): unknown {
    if (this.loaded.has(file)) return this.loaded.get(file);
    const source = readFileSync(file, 'utf8');
    const cacheFile = this.cacheFile(file);
    const cachedData = cacheFile ? readCache(cacheFile) : undefined;
    const script = new Script(Module.wrap(source), { filename: file, cachedData });
    if (cacheFile && (!cachedData || script.cachedDataRejected))
      this.unsaved.push({ file: cacheFile, script });
    const module = { exports: {} };
    this.loaded.set(file, module.exports); // as Node does: a require cycle sees the exports so far
    const plain = createRequire(file);
    const require = Object.assign(
      (id: string) => (/^\.\.?\/.*\.cjs$/.test(id) ? this.require(resolve(dirname(file), id)) : plain(id)),
      plain,
    );
    script.runInThisContext()(module.exports, require, module, file, dirname(file));
    this.loaded.set(file, module.exports);
    return module.exports;
  }

  /**
   * Writes a cache for each file that had no usable one. Call it at exit, when a cache also holds the
   * functions the run compiled lazily, not only the top level. Best effort, never an error: a cache is
   * only ever a speed-up.
   */
  save(): void {
    if (!this.cache || this.unsaved.length === 0) return;
    const { dir, buildId } = this.cache;
    try {
      try {
        mkdirSync(dir, { mode: 0o700 });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return;
      }
      for (const { file, script } of this.unsaved) {
        // Written beside and renamed: a concurrent dlake reads a whole file or none.
        const temporary = `${file}.${process.pid}.tmp`;
        writeFileSync(temporary, script.createCachedData(), { mode: 0o600 });
        renameSync(temporary, file);
      }
      for (const name of readdirSync(dir))
        if (name.startsWith(PREFIX) && !name.startsWith(`${PREFIX}${buildId}-`))
          rmSync(join(dir, name), { force: true });
    } catch {
      // An unwritable or full folder: the next run compiles again.
    }
  }

  private cacheFile(file: string): string | undefined {
    if (!this.cache) return undefined;
    const { dir, buildId, variant } = this.cache;
    const name = basename(file, '.cjs');
    return join(dir, `${PREFIX}${buildId}-${variant}-${name}-v8-${process.versions.v8}-${process.arch}`);
  }
}

/**
 * A cache is code that will run: only from a folder that is missing (it will be created 0700) or that
 * belongs to this user and no one else may write to, as ssh treats its files.
 */
function isPrivate(dir: string): boolean {
  try {
    const st = statSync(dir);
    return (
      st.isDirectory() &&
      (process.getuid === undefined || st.uid === process.getuid()) &&
      (st.mode & 0o022) === 0
    );
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}
