// The launcher bin/dlake.js runs (built on its own into dist/boot.cjs, a few KB). `--version` answers
// before anything else is loaded; everything else loads the CLI bundle, dist/cli.cjs, through V8's code
// cache kept in the config folder's `cache/` (docs/architecture.md "Start-up").
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { commandGroup, scanArgv } from './argv.js';
import { versionText } from './build-info.js';
import manifest from './commands/manifest.json' with { type: 'json' };
import { configDir } from './config/dir.js';
import { type CodeCache, CodeCacheLoader } from './util/code-cache.js';

export function boot(argv: string[]): Promise<void> {
  const args = argv.slice(2);
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    process.stdout.write(versionText());
    return Promise.resolve();
  }
  // Node 20 only (V8 11.3): undici parses HTTP with llhttp compiled to WebAssembly, V8 optimizes it on
  // background threads, and Node waits for that work before it exits. V8's baseline WebAssembly compiler
  // alone made a request command 1.6 times quicker there; on Node 22 to 26 the flag makes it slower
  // (docs/benchmarks.md "Start-up"). Set before the bundle is compiled: V8 accepts a code cache only under
  // the flags it was made with.
  // Also Node 20 only: no young-generation collection as an idle task. A command is over in about 100 ms, and
  // V8 would spend one (1–1.6 ms) while the command waits for its answer, on garbage the exit frees anyway;
  // collections when the young generation is full are unchanged. On Node 22 to 26 the flag made a command
  // about 10% slower (docs/benchmarks.md "A token read from the OS credential store").
  if (process.versions.node.startsWith('20.')) setFlagsFromString('--liftoff-only --no-minor-gc-task');
  const loader = new CodeCacheLoader(codeCache(args));
  process.once('exit', () => loader.save());
  const cli = loader.require(join(__dirname, 'cli.cjs')) as typeof import('./cli.js');
  return cli.main(argv);
}

/**
 * The command groups that get a code cache: every group of src/commands/registry.ts, from the command manifest
 * generated from it (`npm run docs`). A command line that names none (a typo, `--help`) gets none, so that what
 * the folder holds is bounded by the groups, not by what was typed.
 */
export const CACHED_GROUPS: ReadonlySet<string> = new Set(manifest.groups);

/**
 * The most the cache folder holds: the config folder stays under 3 MiB whatever commands run (about two
 * groups' caches; the least recently used go first).
 */
const CACHE_MAX_BYTES = 2.5 * 1024 * 1024;

/**
 * The cache folder inside the config folder, once that exists (a first `--help` creates nothing); one
 * cache per command group, named by the group (the first word of the command line).
 */
function codeCache(args: string[]): CodeCache | undefined {
  try {
    // The group the command line runs (global options and their values may come before it).
    const variant = commandGroup(scanArgv(args));
    if (variant === undefined || !CACHED_GROUPS.has(variant)) return undefined;
    const config = configDir(process.env);
    if (!statSync(config).isDirectory()) return undefined;
    return { dir: join(config, 'cache'), buildId: __DLAKE_BUILD_ID__, variant, maxBytes: CACHE_MAX_BYTES };
  } catch {
    return undefined;
  }
}
