// scripts/complete-lock.mjs adds the platform packages a partial mirror leaves out of package-lock.json. It
// must write them exactly as npm would, or `npm install` on a fresh clone rewrites the lock (git status
// dirty). The committed lock is npm's own output: rebuilding its platform entries must give it back unchanged.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

it('writes the platform entries in the key order npm writes them', () => {
  const text = readFileSync(join(ROOT, 'package-lock.json'), 'utf8');
  const lock = JSON.parse(text);
  // The entries the script adds: platform-restricted, optional, with no tarball behind them here.
  const added = Object.entries(lock.packages as Record<string, Record<string, unknown>>).filter(
    ([, e]) => e.os && e.optional && !e.integrity,
  );
  expect(added.length).toBeGreaterThan(10);
  for (const [path] of added) delete lock.packages[path];
  const dir = mkdtempSync(join(tmpdir(), 'dlake-lock-'));
  try {
    const file = join(dir, 'package-lock.json');
    writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts/complete-lock.mjs'), file], {
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${added.length} platform package(s) added`);
    expect(readFileSync(file, 'utf8')).toBe(text);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
