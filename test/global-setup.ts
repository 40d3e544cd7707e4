// The end-to-end tests spawn bin/dlake.js (dist/boot.cjs, dist/cli.cjs), and the emulator's tests its dlake-emulator
// command (emulator/dist): build both once before any test runs, side by side (each writes its own dist/). Also a
// folder for what the test files of this run share (one `npm pack` of dlake: test/helpers/package.ts), removed at
// the end.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A folder the test files of this run share. */
    sharedDir: string;
  }
}

/** Runs a build script of the repository, its output shown as it comes. */
function build(script: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [script], (err) => (err ? reject(err) : resolve()));
    child.stdout?.pipe(process.stdout);
    child.stderr?.pipe(process.stderr);
  });
}

export default async function setup({ provide }: TestProject): Promise<() => void> {
  const shared = mkdtempSync(join(tmpdir(), 'dlake-tests-shared-'));
  provide('sharedDir', shared);
  const teardown = () => rmSync(shared, { recursive: true, force: true });
  // Unit-only runs may skip the build: DLAKE_SKIP_BUILD=1 npx vitest run test/unit
  // Each test project (vitest.config.ts) runs this setup: the first one of the run builds.
  if (process.env.DLAKE_SKIP_BUILD || process.env.DLAKE_TESTS_BUILT) return teardown;
  await Promise.all([build('scripts/build.mjs'), build('emulator/scripts/build.mjs')]);
  process.env.DLAKE_TESTS_BUILT = '1';
  return teardown;
}
