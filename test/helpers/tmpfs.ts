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

/**
 * A private tmpfs of mount's `options` (`size=16k`, `size=64k,mode=0700`, `ro`) on each folder in `at`, made with
 * one command: each command forked from a test worker costs it the copy of its page tables, and a test may want
 * twenty disks.
 */
export function mountTmpfs(at: readonly string[], options: string): void {
  // Should one mount fail, those made before it are undone: nothing is left mounted.
  const script = `options=$1; shift; n=0
for d; do
  if ! mount -t tmpfs -o "$options" tmpfs "$d"; then
    i=0; for m; do [ $i -lt $n ] && umount "$m"; i=$((i + 1)); done; exit 1
  fi
  n=$((n + 1))
done`;
  execFileSync('sh', ['-c', script, 'sh', options, ...at]);
}

/** Unmounts the folders in `at`, with one command. */
export function unmount(at: readonly string[]): void {
  if (at.length) execFileSync('umount', [...at]);
}
