import { readFileSync } from 'node:fs';
import { configDefaults, defineConfig } from 'vitest/config';

/** Test files that use vi.mock. */
const MOCKING = [
  'test/unit/output-bounds.test.ts',
  'test/e2e/output-bounds.test.ts',
  'test/e2e/sql-shell-in-process.test.ts',
];

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

export default defineConfig({
  define: { __DLAKE_VERSION__: JSON.stringify(version) },
  // Tests import the emulator workspace package from its TypeScript source (see emulator/package.json).
  resolve: { conditions: ['dlake-source'] },
  ssr: { resolve: { conditions: ['dlake-source'] } },
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // End-to-end tests spawn the built binary. Three workers on two cores: with two, the suite kept the cores busy
    // only 56 % of its wall time (its tests wait on back-offs, slow streams and signals), and a third worker
    // fills those waits (165 s → 130 s on a quiet machine, docs/benchmarks.md "The test suite").
    maxWorkers: 3,
    // Each worker process runs its test files one after another in one module graph, rather than a fresh process
    // and graph per file: importing src/, the emulator and DuckDB once per worker instead of once per file took
    // a third of the suite's CPU. The tests share no state but what they create (a fixture per file, temporary
    // folders) and change no process-wide setting without putting it back.
    isolate: false,
    // Concurrent tests run all at once (only the fault matrix has them: its 14 commands, each mostly waiting out
    // retry back-offs, took three rounds of 5, vitest's default).
    maxConcurrency: 16,
    globalSetup: ['test/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts', 'emulator/test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...MOCKING],
        },
      },
      // A file that replaces a module with vi.mock (to count the calls of a function: the work a layout or a
      // paste does, never its time) needs a module graph of its own: in a shared one the module may already be
      // loaded, unmocked, by an earlier file.
      { extends: true, test: { name: 'isolated', include: MOCKING, isolate: true } },
    ],
  },
});
