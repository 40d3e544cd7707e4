// Bundles src/ into dist/ with esbuild. Code splitting keeps heavy modules (undici, zod, conf, ora,
// cli-table3) in chunks that load only when a command needs them, so `dlake --version` stays fast.
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

await build({
  entryPoints: ['src/cli.ts'],
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  sourcemap: true,
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  define: { __DLAKE_VERSION__: JSON.stringify(version) },
  logLevel: 'warning',
  // Some CommonJS dependencies call require() on Node built-ins; give the ESM bundle a require.
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});
