// The launcher bin/dlake.js runs (built on its own into dist/boot.cjs, a few KB). `--version` answers
// before anything else is loaded; everything else loads the CLI bundle, dist/cli.cjs, through V8's code
// cache kept in the config folder's `cache/` (docs/architecture.md "Start-up").
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { configDir } from './config/dir.js';
import { type CodeCache, CodeCacheLoader } from './util/code-cache.js';

export function boot(argv: string[]): Promise<void> {
  const args = argv.slice(2);
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    process.stdout.write(`${__DLAKE_VERSION__}\n`);
    return Promise.resolve();
  }
  // undici parses HTTP with llhttp compiled to WebAssembly. V8 then optimizes it on background threads, and
  // Node waits for that work before it exits: ~170 ms on every command that made a request (bench/startup.ts).
  // V8's baseline WebAssembly compiler alone is ample for a CLI's requests. Set before the bundle is
  // compiled: V8 accepts a code cache only under the flags it was made with.
  setFlagsFromString('--liftoff-only');
  const loader = new CodeCacheLoader(codeCache(args));
  process.once('exit', () => loader.save());
  const cli = loader.require(join(__dirname, 'cli.cjs')) as typeof import('./cli.js');
  return cli.main(argv);
}

/**
 * The cache folder inside the config folder, once that exists (a first `--help` creates nothing); one
 * cache per command group, named by the first word of the command line.
 */
function codeCache(args: string[]): CodeCache | undefined {
  try {
    const config = configDir(process.env);
    if (!statSync(config).isDirectory()) return undefined;
    const variant = /^[a-z][a-z-]{0,39}$/.test(args[0] ?? '') ? args[0]! : 'other';
    return { dir: join(config, 'cache'), buildId: __DLAKE_BUILD_ID__, variant };
  } catch {
    return undefined;
  }
}
