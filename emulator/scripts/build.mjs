// Compiles the emulator's TypeScript into dist/ for the published package and its `dlake-emulator` command.
// Its runtime dependencies (DuckDB, jose, apache-arrow) stay external. gRPC and its proto loader are bundled
// instead: the loader's protobufjs has an install script, which npm warns about on every install of the tarball. Inside the
// repository, tests and scripts read src/ directly through the `dlake-source` export condition.
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { writeThirdPartyLicenses } from '../../scripts/third-party-licenses.mjs';

const root = new URL('..', import.meta.url).pathname;
rmSync(`${root}dist`, { recursive: true, force: true });
const { metafile } = await build({
  absWorkingDir: root,
  entryPoints: ['src/index.ts', 'src/main.ts'],
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  external: ['@duckdb/node-api', 'jose', 'apache-arrow'],
  // The bundled CommonJS of gRPC requires Node's built-ins: give the ES module output a require().
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
});
// The bundled libraries' licences travel with them (inputs are named relative to this package's folder).
const inputs = Object.fromEntries(Object.keys(metafile.inputs).map((input) => [join(root, input), {}]));
writeThirdPartyLicenses([{ inputs }], `${root}dist/THIRD-PARTY-LICENSES.txt`);
// The sample files `dlake-emulator` serves as its `Samples` source by default (src/main.ts), so that the package
// brings what the README's tour reads: the repository's own test/fixtures/samples.
cpSync(`${root}../test/fixtures/samples`, `${root}dist/samples`, { recursive: true });
