// Loading the CommonJS bundle through V8's code cache (docs/architecture.md "Start-up"). Compiling the
// bundle's JavaScript is the largest part of a command's start; V8 can instead deserialize the code it
// compiled on an earlier run. Node 20 has no compile cache of its own (Node 22 added one), so this does what
// it does: `vm.Script` with `cachedData`, and `createCachedData()` at exit when there was no usable cache.
//
// V8 accepts a cache only for the same V8 version and flags and a source of the same length; it does not
// compare the text. The cache file's name therefore carries a hash of the bundle's content (the build id),
// so that a cache is never applied to another build.
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import Module, { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { Script } from 'node:vm';
import { readCheckedFile } from './files.js';

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
  /**
   * The most the folder may hold, in bytes. Writing a cache that would pass it first removes the caches of
   * the variants least recently used; a cache that alone would pass it is not written.
   */
  maxBytes: number;
}

const PREFIX = 'code-';
/** A temporary file older than this was left by a process that died while writing it. */
const STALE_TEMPORARY_MS = 60_000;

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
    const cachedData = cacheFile ? readCache(cacheFile, this.cache!.maxBytes) : undefined;
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
    const { dir, buildId, maxBytes } = this.cache;
    const written: string[] = [];
    try {
      // A config folder its owner made read-only gets nothing new (root could write there all the same).
      if ((statSync(dirname(dir)).mode & 0o200) === 0) return;
      try {
        mkdirSync(dir, { mode: 0o700 });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return;
      }
      const caches = this.unsaved.map(({ file, script }) => ({ file, data: script.createCachedData() }));
      const size = caches.reduce((sum, c) => sum + c.data.length, 0);
      const replaced = new Set(caches.map((c) => c.file));
      if (!makeRoom(dir, `${PREFIX}${buildId}-`, replaced, size, maxBytes)) return;
      for (const { file, data } of caches) {
        // Written beside and renamed: a concurrent dlake reads a whole file or none.
        const temporary = `${file}.${process.pid}.tmp`;
        written.push(temporary);
        // Created exclusively: a link left at that name is not written through.
        writeFileSync(temporary, data, { mode: 0o600, flag: 'wx' });
        renameSync(temporary, file);
        written.pop();
      }
    } catch {
      // An unwritable or full folder: the next run compiles again, and nothing half-written stays behind.
      for (const temporary of written) rmSync(temporary, { force: true });
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

/** Reads a cache, and marks it used: the caches least recently used are the first to go. */
function readCache(file: string, maxBytes: number): Buffer | undefined {
  try {
    // The cache folder is private (isPrivate); still, only a regular file of a bounded size is read.
    const data = readCheckedFile(file, { maxBytes, noFollow: true });
    const now = new Date();
    utimesSync(file, now, now);
    return data;
  } catch {
    return undefined;
  }
}

/**
 * Makes room for new caches of `size` bytes in all, replacing the files `replaced`: removes other builds'
 * caches and temporary files that processes which died left, then other variants' caches, least recently
 * used first, until the folder holds at most `maxBytes` with the new ones. False when the new caches alone
 * pass the bound: then nothing is removed but what is stale.
 */
function makeRoom(
  dir: string,
  build: string,
  replaced: Set<string>,
  size: number,
  maxBytes: number,
): boolean {
  const now = Date.now();
  const kept: Array<{ path: string; variant: string; bytes: number; used: number }> = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    let st: Stats;
    try {
      st = statSync(path);
    } catch {
      continue; // removed meanwhile by a concurrent dlake
    }
    const temporary = name.endsWith('.tmp');
    if (replaced.has(path)) continue;
    if (
      (name.startsWith(PREFIX) && !name.startsWith(build) && !temporary) ||
      (temporary && now - st.mtimeMs > STALE_TEMPORARY_MS)
    )
      rmSync(path, { force: true });
    else
      kept.push({ path, variant: name.slice(build.length).split('-')[0]!, bytes: st.size, used: st.mtimeMs });
  }
  if (size > maxBytes) return false;
  // A variant's files go together: a half cache would be rewritten on its next run anyway.
  const variants = new Map<string, { bytes: number; used: number; paths: string[] }>();
  let total = size;
  for (const k of kept) {
    total += k.bytes;
    const v = variants.get(k.variant) ?? { bytes: 0, used: 0, paths: [] };
    v.bytes += k.bytes;
    v.used = Math.max(v.used, k.used);
    v.paths.push(k.path);
    variants.set(k.variant, v);
  }
  for (const v of [...variants.values()].sort((a, b) => a.used - b.used)) {
    if (total <= maxBytes) break;
    for (const path of v.paths) rmSync(path, { force: true });
    total -= v.bytes;
  }
  return total <= maxBytes;
}
