// Private tmpfs mounts for tests of a full or read-only disk (never the machine's own devices or file systems).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let allowed: boolean | undefined;

/** Whether this user may mount a tmpfs (root, or a user namespace that allows it): tested once, by trying. */
export function canMountTmpfs(): boolean {
  if (allowed === undefined) {
    const probe = mkdtempSync(join(tmpdir(), 'dlake-mount-probe-'));
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4k', 'tmpfs', probe], { stdio: 'ignore' });
      execFileSync('umount', [probe], { stdio: 'ignore' });
      allowed = true;
    } catch {
      allowed = false;
    } finally {
      rmSync(probe, { recursive: true, force: true });
    }
  }
  return allowed;
}
