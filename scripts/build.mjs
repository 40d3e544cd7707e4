// Bundles src/ into dist/ with esbuild. Code splitting keeps heavy modules (undici, zod, conf, ora,
// cli-table3) in chunks that load only when a command needs them, so `dlake --version` stays fast.
import { readFileSync, renameSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { build } from 'esbuild';
import { lazyCommanderChildProcess, leaveOutHttp2 } from './build-plugins.mjs';
import { writeThirdPartyLicenses } from './third-party-licenses.mjs';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  sourcemap: true,
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  define: { __DLAKE_VERSION__: JSON.stringify(version) },
  // Some CommonJS dependencies call require() on Node built-ins; give the ESM bundle a require.
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
};

// The store schemas use zod/mini and are read by every command. Inside the split bundle they would share
// a chunk with classic zod (used by the API schemas) and load all of it (~17 ms); built on their own,
// tree-shaken, they cost ~4 ms.
const STORE_SCHEMA = resolve('src/config/schema.js');
const isolateStoreSchema = {
  name: 'isolate-store-schema',
  setup(b) {
    b.onResolve({ filter: /schema\.js$/ }, (args) =>
      resolve(args.resolveDir, args.path) === STORE_SCHEMA
        ? { path: './config-schema.js', external: true }
        : undefined,
    );
  },
};

// Build beside dist/ and swap it in, so that no stale chunk survives and a dlake started meanwhile (tests
// build concurrently) never sees a half-written dist/.
const out = `dist.build-${process.pid}`;
const results = await Promise.all([
  build({
    ...common,
    entryPoints: ['src/cli.ts'],
    outdir: out,
    splitting: true,
    plugins: [isolateStoreSchema, leaveOutHttp2, lazyCommanderChildProcess],
  }),
  build({ ...common, entryPoints: { 'config-schema': 'src/config/schema.ts' }, outdir: out }),
]);
writeThirdPartyLicenses(
  results.map((r) => r.metafile),
  `${out}/THIRD-PARTY-LICENSES.txt`,
);
const old = `dist.old-${process.pid}`;
try {
  renameSync('dist', old);
} catch {}
renameSync(out, 'dist');
rmSync(old, { recursive: true, force: true });
