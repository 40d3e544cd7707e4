// The end-to-end tests spawn bin/dlake.js (dist/boot.cjs, dist/cli.cjs), and the emulator's tests its dlake-emulator
// command (emulator/dist): build both once before any test runs.
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  // Unit-only runs may skip it: DLAKE_SKIP_BUILD=1 npx vitest run test/unit
  if (process.env.DLAKE_SKIP_BUILD) return;
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  execFileSync(process.execPath, ['emulator/scripts/build.mjs'], { stdio: 'inherit' });
}
