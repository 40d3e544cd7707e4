// Bundles src/ into dist/ with esbuild (docs/architecture.md "Start-up"): the CLI as one CommonJS file,
// dist/cli.cjs, which the launcher bin/dlake.js runs (dist/boot.cjs) loads through V8's code cache;
// beside it, the large libraries only some commands use, each a file of its own in dist/vendor/, required
// when a command first needs them. CommonJS rather than code-split ES module chunks: Node 20 caches
// compiled code only for scripts; what a command does not use stays behind esbuild's lazy module
// wrappers, never run, and out of the way of a first run's compile when it lives in dist/vendor/.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { analyzeMetafile, build } from 'esbuild';
import {
  leaveOutAjv,
  leaveOutGrpcProtoLoader,
  leaveOutGrpcServer,
  leaveOutHttp2,
  leaveOutZodLocales,
  onlyOraDefaultSpinners,
} from './build-plugins.mjs';
import { sourceCommit } from './source-commit.mjs';
import { writeThirdPartyLicenses } from './third-party-licenses.mjs';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const origin = { ...sourceCommit(), kind: 'npm package' };

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
  define: { __DLAKE_VERSION__: JSON.stringify(version), __DLAKE_BUILD__: JSON.stringify(origin) },
};

/** Libraries that not every command uses, by import specifier: each becomes dist/vendor/<name>.cjs. */
const VENDOR = [
  'yaml',
  'hyparquet-writer',
  'jmespath',
  'ora',
  // Arrow Flight: required only by an export that goes over Flight (src/export/flight).
  '@grpc/grpc-js',
  'protobufjs/minimal.js',
  'apache-arrow',
];
/**
 * ES module packages dlake imports the default export of. The bundle reads a vendor file's
 * `module.exports` as Node reads a CommonJS module: all of it is the default export.
 */
const DEFAULT_EXPORT = new Set(['ora']);
/**
 * Libraries whose vendor file exports only the names src/ imports, from the library's ES module build, so
 * that esbuild leaves out the rest (apache-arrow declares itself free of side effects): apache-arrow whole is
 * 369 KB, what a Flight export uses of it less than half. The build fails if src/ imports a name not listed.
 */
const NAMED = { 'apache-arrow': ['Message', 'MessageHeader', 'RecordBatchReader', 'makeVector', 'Type'] };
/**
 * Vendor files made from a module of src/ that re-exports what dlake uses of a library, by that module's path:
 * src/ imports the module, the bundle requires the vendor file instead. The MCP SDK is several entry points
 * (server, stdio transport, types) that share most of their code: one file holds them once.
 */
const VENDOR_MODULES = { 'src/mcp/sdk.ts': 'vendor/mcp-sdk.cjs' };
const vendorFile = (specifier) =>
  `vendor/${specifier.replace(/^@/, '').replace('/', '-').replace(/\.js$/, '')}.cjs`;
const requireVendorFiles = {
  name: 'require-vendor-files',
  setup(b) {
    const filter = new RegExp(`^(${VENDOR.map((v) => v.replace(/[/.]/g, '\\$&')).join('|')})$`);
    b.onResolve({ filter }, (args) => ({ path: `./${vendorFile(args.path)}`, external: true }));
    for (const [module, file] of Object.entries(VENDOR_MODULES)) {
      const base = module.replace(/^.*\//, '').replace(/\.ts$/, '.js');
      b.onResolve({ filter: new RegExp(`/${base.replace('.', '\\.')}$`) }, (args) =>
        resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts') === resolve(module)
          ? { path: `./${file}`, external: true }
          : undefined,
      );
    }
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
  // Local names shortened here too (a fifth of the file: the installed size stays under 2 MiB); functions and
  // classes keep their names (`keepNames`), so stack traces still name them, and the source map beside the
  // bundle (not published) maps them back.
  minifyIdentifiers: true,
  keepNames: true,
});
// The credential-store helper, a process of its own (src/config/keyring.ts): @napi-rs/keyring stays outside the
// bundle, required from node_modules, where npm installs its prebuilt binary for the platform.
await build({
  ...common,
  entryPoints: { keyring: 'src/config/keyring-main.ts' },
  outdir: out,
  outExtension: { '.js': '.cjs' },
  external: ['@napi-rs/keyring'],
  minifyIdentifiers: true,
  keepNames: true,
});
// Every name src/ imports (not as a type) of a library built from a list of names must be in that list.
for (const file of readdirSync('src', { recursive: true }).filter((f) => f.endsWith('.ts'))) {
  const text = readFileSync(`src/${file}`, 'utf8');
  for (const [specifier, names] of Object.entries(NAMED))
    for (const m of text.matchAll(new RegExp(`import\\s+\\{([^}]*)\\}\\s+from\\s+'${specifier}'`, 'g')))
      for (const name of m[1].split(',').map((n) => n.trim()))
        if (name && !name.startsWith('type ') && !names.includes(name.split(/\s+as\s+/)[0]))
          throw new Error(
            `src/${file} imports ${name} from ${specifier}: add it to NAMED in scripts/build.mjs`,
          );
}
const vendors = await Promise.all(
  VENDOR.map((specifier) =>
    build({
      ...common,
      stdin: {
        contents: NAMED[specifier]
          ? `export { ${NAMED[specifier].join(', ')} } from ${JSON.stringify(specifier)};`
          : `module.exports = require(${JSON.stringify(specifier)})${DEFAULT_EXPORT.has(specifier) ? '.default' : ''};`,
        resolveDir: '.',
      },
      outfile: `${out}/${vendorFile(specifier)}`,
      plugins: [leaveOutZodLocales, leaveOutGrpcProtoLoader, leaveOutGrpcServer, onlyOraDefaultSpinners],
      // Libraries only: their local names shortened (a quarter of their size, for an installed size under
      // 2 MiB), their functions' and classes' names kept (`keepNames`). dlake's own code keeps its names, for
      // readable stack traces.
      minifyIdentifiers: true,
      keepNames: true,
    }),
  ),
);
for (const [module, file] of Object.entries(VENDOR_MODULES))
  vendors.push(
    await build({
      ...common,
      entryPoints: [module],
      outfile: `${out}/${file}`,
      plugins: [leaveOutZodLocales, leaveOutAjv],
      minifyIdentifiers: true,
      keepNames: true,
    }),
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
// `DLAKE_BUILD_REPORT=1 npm run build` prints what each output file is made of, largest first.
if (process.env.DLAKE_BUILD_REPORT)
  for (const r of [cli, ...vendors])
    process.stderr.write(await analyzeMetafile(r.metafile, { verbose: false }));
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
