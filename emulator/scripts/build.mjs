// Compiles the emulator's TypeScript into dist/ for the published package and its `dlake-emulator` command.
// Dependencies (DuckDB, jose) stay external: they are this package's runtime dependencies. Inside the
// repository, tests and scripts read src/ directly through the `dlake-source` export condition.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
rmSync(`${root}dist`, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: ['src/index.ts', 'src/main.ts'],
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  packages: 'external',
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
});
