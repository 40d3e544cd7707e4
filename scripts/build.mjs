// Bundles src/ into dist/ with esbuild (docs/architecture.md "Start-up"): the CLI as one CommonJS file,
// dist/cli.cjs, which the launcher bin/dlake.js runs (dist/boot.cjs) loads through V8's code cache;
// beside it, the large libraries only some commands use, each a file of its own in dist/vendor/, required
// when a command first needs them. CommonJS rather than code-split ES module chunks: Node 20 caches
// compiled code only for scripts; what a command does not use stays behind esbuild's lazy module
// wrappers, never run, and out of the way of a first run's compile when it lives in dist/vendor/.
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync } from 'node:fs';
import { build } from 'esbuild';
import { leaveOutHttp2, leaveOutZodLocales } from './build-plugins.mjs';
import { writeThirdPartyLicenses } from './third-party-licenses.mjs';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

const common = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.18',
  // `await import('x')` becomes a require: a script compiled by node:vm has no ES module loader to call.
  supported: { 'dynamic-import': false },
  sourcemap: true,
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  define: { __DLAKE_VERSION__: JSON.stringify(version) },
};

/** Libraries that not every command uses, by import specifier: each becomes dist/vendor/<name>.cjs. */
const VENDOR = [
  'zod',
  'yaml',
  'conf',
  'hyparquet-writer',
  'jmespath',
  'ora',
  'cli-table3',
  'csv-stringify/sync',
  // Arrow Flight: required only by an export that goes over Flight (src/export/flight).
  '@grpc/grpc-js',
  '@grpc/proto-loader',
  'apache-arrow',
];
/**
 * ES module packages dlake imports the default export of. The bundle reads a vendor file's
 * `module.exports` as Node reads a CommonJS module: all of it is the default export.
 */
const DEFAULT_EXPORT = new Set(['conf', 'ora']);
const vendorFile = (specifier) => `vendor/${specifier.replace(/^@/, '').replace('/', '-')}.cjs`;
const requireVendorFiles = {
  name: 'require-vendor-files',
  setup(b) {
    const filter = new RegExp(`^(${VENDOR.map((v) => v.replace('/', '\\/')).join('|')})$`);
    b.onResolve({ filter }, (args) => ({ path: `./${vendorFile(args.path)}`, external: true }));
  },
};

// Build beside dist/ and swap it in, so that no stale file survives and a dlake started meanwhile (tests
// build concurrently) never sees a half-written dist/.
const out = `dist.build-${process.pid}`;
const cli = await build({
  ...common,
  entryPoints: { cli: 'src/cli.ts' },
  outdir: out,
  outExtension: { '.js': '.cjs' },
  plugins: [leaveOutHttp2, leaveOutZodLocales, requireVendorFiles],
});
const vendors = await Promise.all(
  VENDOR.map((specifier) =>
    build({
      ...common,
      stdin: {
        contents: `module.exports = require(${JSON.stringify(specifier)})${DEFAULT_EXPORT.has(specifier) ? '.default' : ''};`,
        resolveDir: '.',
      },
      outfile: `${out}/${vendorFile(specifier)}`,
      plugins: [leaveOutZodLocales],
      // Libraries only: their local names shortened (a quarter of their size, for an installed size under
      // 2 MiB), their functions' and classes' names kept (`keepNames`). dlake's own code keeps its names, for
      // readable stack traces.
      minifyIdentifiers: true,
      keepNames: true,
    }),
  ),
);
// The code cache's key: a hash of every file it may hold code of.
const hash = createHash('sha256');
for (const r of [cli, ...vendors])
  for (const file of Object.keys(r.metafile.outputs)
    .filter((f) => f.endsWith('.cjs'))
    .sort())
    hash.update(readFileSync(file));
const buildId = hash.digest('hex').slice(0, 16);
await build({
  ...common,
  entryPoints: { boot: 'src/boot.ts' },
  outdir: out,
  outExtension: { '.js': '.cjs' },
  define: { ...common.define, __DLAKE_BUILD_ID__: JSON.stringify(buildId) },
});
writeThirdPartyLicenses(
  [cli, ...vendors].map((r) => r.metafile),
  `${out}/THIRD-PARTY-LICENSES.txt`,
);
const old = `dist.old-${process.pid}`;
try {
  renameSync('dist', old);
} catch {}
renameSync(out, 'dist');
rmSync(old, { recursive: true, force: true });
