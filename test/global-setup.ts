// The end-to-end tests spawn dist/cli.js through bin/dlake.js: build once before any test runs.
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
}
