// The one checked read (src/util/files.ts) and the SQL history's file I/O: a regular file only, a bound on what
// is read, a link never followed where the file is dlake's own. (A named pipe and an endless device are checked
// in test/e2e/not-files.test.ts, in a process that can be killed should it block.)
import {
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { HISTORY_FILE, HISTORY_SIZE, History } from '../../src/shell/history.js';
import { readCheckedFile, readTextFile } from '../../src/util/files.js';
import { thrown } from '../helpers/thrown.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'dlake-files-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('readCheckedFile / readTextFile', () => {
  it('reads a regular file, through a link the user gave', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.sql'), 'SELECT 1');
    symlinkSync('a.sql', join(dir, 'link.sql'));
    expect(readTextFile(join(dir, 'link.sql'))).toBe('SELECT 1');
  });

  it('refuses a file over the bound by its size, before reading it (exit 2, in words)', () => {
    const dir = tempDir();
    const big = join(dir, 'big.pem');
    writeFileSync(big, '');
    truncateSync(big, 3 * 1024 * 1024);
    const e = thrown(() => readTextFile(big, 'the CA file', 2 * 1024 * 1024), UsageError);
    expect(e.message).toBe(
      `cannot read the CA file ${big}: it is larger than 2 MiB, more than such a file can be`,
    );
  });

  it("with `tail`, reads the file's last bytes only", () => {
    const dir = tempDir();
    const file = join(dir, 'log');
    writeFileSync(file, `${'x'.repeat(100)}END`);
    expect(readCheckedFile(file, { maxBytes: 5, tail: true }).toString()).toBe('xxEND');
  });

  it('with `noFollow`, refuses a symbolic link, and a folder always', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'target'), 'x');
    symlinkSync('target', join(dir, 'link'));
    expect(
      thrown(() => readCheckedFile(join(dir, 'link'), { maxBytes: 10, noFollow: true }), Error),
    ).toMatchObject({
      code: 'ENOTREG',
      message: 'it is a symbolic link, not a regular file',
    });
    expect(thrown(() => readTextFile(dir), UsageError).message).toBe(
      `cannot read ${dir}: it is a folder, not a file`,
    );
  });
});

describe("the SQL history's file", () => {
  it('a link in its place (to a file outside the folder) is neither read, appended to nor re-moded', () => {
    const outside = tempDir();
    const victim = join(outside, 'victim.txt');
    writeFileSync(victim, 'SELECT secret;\n', { mode: 0o644 });
    const dir = tempDir();
    symlinkSync(victim, join(dir, HISTORY_FILE));
    const warnings: string[] = [];
    const h = new History(dir, (m) => warnings.push(m));
    expect(h.load()).toEqual([]);
    h.add('SELECT 1;');
    expect(readFileSync(victim, 'utf8')).toBe('SELECT secret;\n');
    expect(statSync(victim).mode & 0o777).toBe(0o644);
    expect(lstatSync(join(dir, HISTORY_FILE)).isSymbolicLink()).toBe(true);
    expect(warnings).toEqual([
      `not reading the SQL history ${join(dir, HISTORY_FILE)}: it is a symbolic link, not a regular file`,
    ]);
  });

  it('a file larger than the bound: its newest whole lines are kept, and the file trimmed to them', () => {
    const dir = tempDir();
    const file = join(dir, HISTORY_FILE);
    // 6 MiB of long lines: more than is read, so the read starts inside a line.
    const line = (i: number) => `SELECT ${i}, '${'y'.repeat(6000)}';`;
    writeFileSync(file, `${Array.from({ length: 1100 }, (_, i) => line(i)).join('\n')}\n`);
    const loaded = new History(dir).load();
    expect(loaded[0]).toBe(line(1099));
    expect(loaded.every((l) => l === line(Number(/^SELECT (\d+),/.exec(l)?.[1])))).toBe(true);
    expect(loaded.length).toBeLessThan(HISTORY_SIZE);
    const kept = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    expect(kept).toEqual([...loaded].reverse());
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
