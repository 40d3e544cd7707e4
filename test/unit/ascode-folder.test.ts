// The definitions folder's writer, without a service: every path stays inside the folder whatever its
// components, a file that holds the same bytes is left as it is, and a failure while renaming into place puts
// back every file already replaced or removed.
import fs, {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Definition } from '../../src/ascode/definitions.js';
import { readDefinitions, writeDefinitions } from '../../src/ascode/folder.js';

/**
 * The error `run` throws while a rename to a path `rename` accepts, or the opening of a file to read that `read` accepts, fails with EIO (a
 * device failing under the pull). node:fs is patched through its CommonJS object, which
 * syncBuiltinESMExports carries to the ES module bindings that folder.ts imports, then put back.
 */
function failure(
  fail: { rename?: (to: string) => boolean; read?: (file: string) => boolean },
  run: () => unknown,
): (Error & { exitCode?: number; hint?: string }) | undefined {
  const { renameSync, openSync } = fs;
  const eio = () => Object.assign(new Error('EIO'), { code: 'EIO' });
  fs.renameSync = (from, to) => {
    if (fail.rename?.(String(to))) throw eio();
    renameSync(from, to);
  };
  // A file is read through src/util/files.ts's checked read, which opens it first.
  fs.openSync = ((file: string, flags: number, mode?: number) => {
    if (fail.read?.(String(file))) throw eio();
    return openSync(file, flags, mode);
  }) as typeof fs.openSync;
  syncBuiltinESMExports();
  try {
    run();
    return undefined;
  } catch (e) {
    return e as Error;
  } finally {
    fs.renameSync = renameSync;
    fs.openSync = openSync;
    syncBuiltinESMExports();
  }
}

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'dlake-folder-unit-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const view = (path: string[], sql = 'SELECT 1'): Definition => ({ kind: 'view', path, fields: { sql } });

/** Every file under `dir`, relative to it. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/** Every file under `dir`, with its bytes. */
const snapshot = (dir: string) =>
  Object.fromEntries(files(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));

describe('writeDefinitions', () => {
  it('path components that a file system or a shell would take as a way out stay one file name each', () => {
    const root = mkdtempSync(join(tmp, 'hostile-'));
    const dir = join(root, 'lake');
    const hostile = [
      ['..'],
      ['..', '..', 'x'],
      ['a/../../b'],
      ['.hidden'],
      [''],
      ['/etc', 'passwd'],
      ['c:\\x'],
    ];
    const defs = hostile.map((p) => ({ kind: 'folder' as const, path: p, fields: {} }));
    writeDefinitions(dir, defs);
    // Nothing beside the folder, and each definition reads back under its own path.
    expect(readdirSync(root)).toEqual(['lake']);
    expect(readDefinitions(dir).map((d) => d.path)).toEqual(
      expect.arrayContaining(hostile.map((p) => expect.arrayContaining(p))),
    );
    expect(files(dir)).toHaveLength(hostile.length);
  });

  it('a file that already holds the same bytes is not rewritten (its time is kept)', () => {
    const dir = mkdtempSync(join(tmp, 'same-'));
    writeDefinitions(dir, [view(['S', 'a']), view(['S', 'b'])]);
    const old = new Date('2020-01-01T00:00:00Z');
    for (const f of ['S/a.yaml', 'S/b.yaml']) utimesSync(join(dir, f), old, old);
    writeDefinitions(dir, [view(['S', 'a']), view(['S', 'b'], 'SELECT 2')]);
    expect(statSync(join(dir, 'S/a.yaml')).mtime).toEqual(old);
    expect(statSync(join(dir, 'S/b.yaml')).mtime).not.toEqual(old);
    expect(readFileSync(join(dir, 'S/b.yaml'), 'utf8')).toContain('SELECT 2');
  });

  it('a rename that fails half-way puts back the files replaced and removed, and the folders created', () => {
    const dir = mkdtempSync(join(tmp, 'undo-'));
    writeDefinitions(dir, [view(['A', 'one']), view(['A', 'stale']), view(['Z', 'last'])]);
    writeFileSync(join(dir, 'README.md'), 'ours\n');
    const before = snapshot(dir);
    // The last rename into place fails (an I/O error): the others were already done.
    const error = failure({ rename: (to) => to.endsWith(join('Z', 'last.yaml')) }, () =>
      writeDefinitions(
        dir,
        [view(['A', 'one'], 'SELECT 11'), view(['B', 'new', 'deep']), view(['Z', 'last'], 'SELECT 3')],
        [join(dir, 'A', 'stale.yaml')],
      ),
    );
    expect(error?.message).toBe(
      `cannot write ${join(dir, 'Z', 'last.yaml')}: input/output error on the device`,
    );
    expect(error?.exitCode).toBe(9);
    expect(error?.hint).toBe(`nothing was written: ${dir} is as it was`);
    // The replaced file has its old bytes, the removed one is back, the folders created are gone.
    expect(snapshot(dir)).toEqual(before);
    expect(readdirSync(dir).sort()).toEqual(['A', 'README.md', 'Z']);
  });
});

describe('writeDefinitions, when putting back fails too', () => {
  it('says which files could not be put back and keeps their previous content in the staging folder', () => {
    const dir = mkdtempSync(join(tmp, 'undo-fails-'));
    writeDefinitions(dir, [view(['A', 'one']), view(['Z', 'last'])]);
    const previous = readFileSync(join(dir, 'A', 'one.yaml'), 'utf8');
    let toOne = 0;
    // The last file fails, then so does putting A/one.yaml back (its second rename).
    const rename = (to: string) =>
      to.endsWith(join('Z', 'last.yaml')) || (to.endsWith(join('A', 'one.yaml')) && ++toOne === 2);
    const error = failure({ rename }, () =>
      writeDefinitions(dir, [view(['A', 'one'], 'SELECT 11'), view(['Z', 'last'], 'SELECT 3')]),
    );
    expect(error?.exitCode).toBe(9);
    const staging = readdirSync(dir).filter((n) => n.startsWith('.dlake-pull-'));
    expect(staging).toHaveLength(1);
    expect(error?.hint).toBe(
      `not everything could be put back: ${join(dir, 'A', 'one.yaml')} (the previous files are in ${join(dir, staging[0]!)}); every other file is as it was`,
    );
    expect(readFileSync(join(dir, staging[0]!, '0.old'), 'utf8')).toBe(previous);
    expect(readFileSync(join(dir, 'Z', 'last.yaml'), 'utf8')).toContain('SELECT 1');
  });
});

describe('readDefinitions', () => {
  it('a device failing under a definition file is exit 9 naming it, and nothing is read past it', () => {
    const dir = mkdtempSync(join(tmp, 'eio-'));
    writeDefinitions(dir, [view(['S', 'a']), view(['S', 'b'])]);
    const error = failure({ read: (file) => file.endsWith(join('S', 'b.yaml')) }, () => readDefinitions(dir));
    expect(error).toMatchObject({
      message: `cannot read ${join(dir, 'S', 'b.yaml')}: input/output error on the device`,
      exitCode: 9,
      hint: 'nothing was planned, applied or written',
    });
    expect(readDefinitions(dir)).toHaveLength(2);
  });
});
