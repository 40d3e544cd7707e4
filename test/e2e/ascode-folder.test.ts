// The definitions folder is dlake's to write and only its own (docs/definitions-as-code.md, "The folder"):
// links planted in it are never written through, a pull writes every file or none, and plan and apply read every
// definition file (a link inside the folder is followed, one leading out is refused) so that --prune never
// deletes an entity a file names.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statfsSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../helpers/ascode.js';
import { expectFailure, useFixture } from '../helpers/fixture.js';
import { canMountTmpfs, mountTmpfs, unmount } from '../helpers/tmpfs.js';

const fx = useFixture();
let tmp: string;

const create = (entity: Record<string, unknown>) =>
  fx.run(['catalog', 'create', '--file', '-'], { input: JSON.stringify(entity) }).then(ok);
const view = (path: string[], sql: string) =>
  create({ entityType: 'dataset', type: 'VIRTUAL_DATASET', path, sql });
const at = (path: string[]) => fx.emu.catalog.store.at(path);
const deletes = () => fx.emu.log.entries.filter((e) => e.method === 'DELETE');

/** Every entry under `dir` (links not followed), each with its content, link target or `(folder)`. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const s = lstatSync(p);
      const key = relative(dir, p);
      if (s.isSymbolicLink()) out[key] = `-> ${readlinkSync(p)}`;
      else if (s.isDirectory()) {
        out[key] = '(folder)';
        walk(p);
      } else out[key] = readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}

/** A fresh folder under the test's temporary one. */
const folder = (name: string) => mkdtempSync(join(tmp, `${name}-`));

/** A file outside every definitions folder, whose bytes must never change. */
function victim(name: string): string {
  const file = join(folder(`outside-${name}`), 'victim');
  writeFileSync(file, 'precious\n');
  return file;
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'dlake-folder-'));
  await create({ entityType: 'space', name: 'Sales' });
  await create({ entityType: 'folder', path: ['Sales', 'reports'] });
  await view(['Sales', 'reports', 'v1'], 'SELECT 1 AS one');
  await view(['Sales', 'reports', 'v2'], 'SELECT 2 AS two');
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('pull writes nothing through a link', () => {
  it('a temporary name planted as a link to a file outside: the file and the link are untouched', async () => {
    const target = victim('tmp');
    const dir = folder('p3');
    symlinkSync(relative(dir, target), join(dir, 'Sales.yaml.dlake-tmp'));
    ok(await fx.run(['pull', '--dir', dir]));
    expect(readFileSync(target, 'utf8')).toBe('precious\n');
    expect(lstatSync(join(dir, 'Sales.yaml.dlake-tmp')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, 'Sales.yaml.dlake-tmp'))).toBe(relative(dir, target));
    expect(lstatSync(join(dir, 'Sales.yaml')).isFile()).toBe(true);
    expect(readFileSync(join(dir, 'Sales.yaml'), 'utf8')).toBe('kind: space\npath:\n  - Sales\n');
    // The staging folder is gone.
    expect(readdirSync(dir).filter((n) => n.startsWith('.dlake'))).toEqual([]);
  });

  it('a sub-folder that is a link to a folder outside: exit 2 naming it, nothing written anywhere', async () => {
    const outside = folder('outside-dir');
    const dir = folder('p4');
    symlinkSync(outside, join(dir, 'Sales'));
    const r = await fx.run(['pull', '--dir', dir]);
    expectFailure(r, 2, 'error: Sales is a symbolic link: pull writes nothing through a link');
    expect(r.stderr).toContain('hint: nothing was written');
    expect(readdirSync(outside)).toEqual([]);
    expect(snapshot(dir)).toEqual({ Sales: `-> ${outside}` });
  });

  it('a definition file that is a link: exit 2, the link and what it leads to are untouched', async () => {
    const target = victim('file');
    const dir = folder('p5');
    symlinkSync(target, join(dir, 'Sales.yaml'));
    const r = await fx.run(['pull', '--dir', dir]);
    expectFailure(r, 2, 'error: Sales.yaml is a symbolic link: pull writes nothing through a link');
    expect(readFileSync(target, 'utf8')).toBe('precious\n');
    expect(snapshot(dir)).toEqual({ 'Sales.yaml': `-> ${target}` });
  });

  it('pull --prune removes the stale file it wrote, and keeps what dlake did not write', async () => {
    const dir = folder('keep');
    ok(await fx.run(['pull', '--dir', dir]));
    const shared = victim('shared');
    writeFileSync(join(dir, 'README.md'), 'ours\n');
    writeFileSync(join(dir, 'notes.yaml'), 'not: a definition\n');
    mkdirSync(join(dir, 'mine'));
    writeFileSync(join(dir, 'mine', 'copy.yaml'), 'kind: view\npath: [Sales, reports, old]\nsql: SELECT 0\n');
    writeFileSync(
      join(dir, 'Sales', 'reports', 'gone.yaml'),
      'kind: view\npath: [Sales, reports, gone]\nsql: SELECT 0\n',
    );
    symlinkSync(shared, join(dir, 'Sales', 'reports', 'link.txt'));
    const before = snapshot(dir);
    const r = ok(await fx.run(['pull', '--dir', dir, '--prune']));
    expect(r.stderr).toContain('removed Sales/reports/gone.yaml (no longer on the service)');
    const { 'Sales/reports/gone.yaml': _, ...kept } = before;
    expect(snapshot(dir)).toEqual(kept);
    expect(readFileSync(shared, 'utf8')).toBe('precious\n');
  });
});

describe('a pull writes every file or leaves the folder as it was', () => {
  it('a folder name too long for the file system: exit 9, one line, nothing written', async () => {
    const dir = folder('long');
    ok(await fx.run(['pull', '--dir', dir]));
    writeFileSync(join(dir, 'README.md'), 'ours\n');
    const before = snapshot(dir);
    // Changed on the service, so that a pull that wrote anything would change a file.
    ok(
      await fx.run(['catalog', 'update', 'Sales/reports/v1', '--file', '-'], {
        input: JSON.stringify({ sql: 'SELECT 11 AS one' }),
      }),
    );
    const long = 'L'.repeat(300);
    await create({ entityType: 'folder', path: ['Sales', long] });
    try {
      const r = await fx.run(['pull', '--dir', dir]);
      expectFailure(r, 9, `error: cannot write ${join(dir, 'Sales', `${long}.yaml`)}: the name is too long`);
      expect(r.stderr).toContain(`hint: nothing was written: ${dir} is as it was`);
      expect(r.stderr).not.toMatch(/bug/);
      expect(snapshot(dir)).toEqual(before);
    } finally {
      ok(await fx.run(['catalog', 'delete', `Sales/${long}`, '--yes']));
      ok(
        await fx.run(['catalog', 'update', 'Sales/reports/v1', '--file', '-'], {
          input: JSON.stringify({ sql: 'SELECT 1 AS one' }),
        }),
      );
    }
  });

  it.skipIf(!canMountTmpfs())('a disk that fills during the pull: exit 9, every file as it was', async () => {
    const disk = folder('disk');
    mountTmpfs([disk], 'size=256k');
    try {
      const dir = join(disk, 'lake');
      ok(await fx.run(['pull', '--dir', dir]));
      for (let i = 0; i < 8; i++) await view(['Sales', 'reports', `more${i}`], `SELECT ${i} AS n`);
      ok(
        await fx.run(['catalog', 'update', 'Sales/reports/v1', '--file', '-'], {
          input: JSON.stringify({ sql: 'SELECT 11 AS one' }),
        }),
      );
      const before = snapshot(dir);
      // Room for two more files: the pull needs twelve.
      const { bavail, bsize } = statfsSync(disk);
      writeFileSync(join(disk, 'filler'), Buffer.alloc((bavail - 2) * bsize));
      const r = await fx.run(['pull', '--dir', dir]);
      expectFailure(r, 9, /^error: cannot write .*\.yaml: no space left on the device$/);
      expect(r.stderr).toContain(`hint: nothing was written: ${dir} is as it was`);
      expect(snapshot(dir)).toEqual(before);
    } finally {
      unmount([disk]);
      for (let i = 0; i < 8; i++) ok(await fx.run(['catalog', 'delete', `Sales/reports/more${i}`, '--yes']));
      ok(
        await fx.run(['catalog', 'update', 'Sales/reports/v1', '--file', '-'], {
          input: JSON.stringify({ sql: 'SELECT 1 AS one' }),
        }),
      );
    }
  });
});

describe('plan and apply read every definition file, or refuse: --prune never deletes what a file names', () => {
  /** The definitions of Sales, pulled. */
  async function pulled(name: string): Promise<string> {
    const dir = folder(name);
    ok(await fx.run(['pull', '--dir', dir]));
    return dir;
  }

  /** plan --prune and apply --prune --yes both refuse with `message`; nothing is deleted. */
  async function refused(dir: string, message: string): Promise<void> {
    expectFailure(await fx.run(['plan', '--dir', dir, '--prune']), 2, message);
    expectFailure(await fx.run(['apply', '--dir', dir, '--prune', '--yes']), 2, message);
    expect(deletes()).toEqual([]);
    expect(at(['Sales', 'reports', 'v1'])).toBeDefined();
    expect(at(['Sales', 'reports', 'v2'])).toBeDefined();
  }

  it('a definition file linked to a file outside the folder: exit 2 naming the link', async () => {
    const dir = await pulled('link-out');
    const shared = join(folder('monorepo'), 'v1.yaml');
    renameSync(join(dir, 'Sales/reports/v1.yaml'), shared);
    symlinkSync(shared, join(dir, 'Sales/reports/v1.yaml'));
    await refused(dir, `error: Sales/reports/v1.yaml is a symbolic link to ${shared}, outside ${dir}`);
    expect(readFileSync(shared, 'utf8')).toContain('SELECT 1 AS one');
  });

  it('a sub-folder linked to a folder outside: exit 2 naming it', async () => {
    const dir = await pulled('folder-out');
    const shared = join(folder('monorepo'), 'reports');
    renameSync(join(dir, 'Sales/reports'), shared);
    symlinkSync(shared, join(dir, 'Sales/reports'));
    await refused(dir, `error: Sales/reports is a symbolic link to ${shared}, outside ${dir}`);
  });

  it('a definition file linked to nothing: exit 2 naming it', async () => {
    const dir = await pulled('dangling');
    rmSync(join(dir, 'Sales/reports/v1.yaml'));
    symlinkSync(join(dir, 'nowhere.yaml'), join(dir, 'Sales/reports/v1.yaml'));
    await refused(dir, 'error: Sales/reports/v1.yaml is a symbolic link that leads nowhere');
  });

  it('a FIFO with a definition name: exit 2 without waiting for a writer', async () => {
    const dir = await pulled('fifo');
    rmSync(join(dir, 'Sales/reports/v1.yaml'));
    execFileSync('mkfifo', [join(dir, 'Sales/reports/v1.yaml')]);
    await refused(dir, 'error: Sales/reports/v1.yaml is not a regular file (a FIFO, a socket or a device)');
  });

  it('a definition file larger than any a user writes (64 MiB): exit 2 naming it, not read', async () => {
    const dir = await pulled('huge');
    // Sparse: 65 MiB by its size, no space on the disk.
    execFileSync('truncate', ['-s', '65M', join(dir, 'Sales/reports/v1.yaml')]);
    await refused(dir, `error: cannot read ${join(dir, 'Sales/reports/v1.yaml')}: it is larger than 64 MiB`);
  });

  it('a file that is no valid YAML: exit 2, nothing deleted', async () => {
    const dir = await pulled('broken');
    writeFileSync(
      join(dir, 'Sales/reports/v1.yaml'),
      'kind: view\npath: [Sales, reports, v1\nsql: SELECT 1\n',
    );
    await refused(dir, 'error: Sales/reports/v1.yaml is not valid YAML');
  });

  it('a "__proto__" key, at the top or nested (its members would read as fields): exit 2 naming it', async () => {
    const dir = await pulled('proto');
    writeFileSync(
      join(dir, 'Sales/reports/v1.yaml'),
      'kind: view\npath: [Sales, reports, v1]\nsql: SELECT 1 AS one\n__proto__:\n  sqlContext: [hr]\n',
    );
    await refused(
      dir,
      'error: Sales/reports/v1.yaml: __proto__: "__proto__" is not a field of any definition',
    );
    writeFileSync(
      join(dir, 'Sales/reports/v1.yaml'),
      'kind: view\npath: [Sales, reports, v1]\nsql: SELECT 1 AS one\nsqlContext: [a]\nfields: {__proto__: {x: 1}}\n',
    );
    await refused(
      dir,
      'error: Sales/reports/v1.yaml: fields.__proto__: "__proto__" is not a field of any definition',
    );
  });

  it('links inside the folder are read (a file reached twice counts once); .YAML is a definition name', async () => {
    const dir = await pulled('link-in');
    mkdirSync(join(dir, 'shared'));
    renameSync(join(dir, 'Sales/reports/v1.yaml'), join(dir, 'shared/v1.yaml'));
    symlinkSync('../../shared/v1.yaml', join(dir, 'Sales/reports/v1.yaml'));
    renameSync(join(dir, 'Sales/reports/v2.yaml'), join(dir, 'Sales/reports/V2.YAML'));
    const plan = ok(await fx.run(['plan', '--dir', dir, '--prune']));
    expect(plan.stdout).toBe('Plan: 0 to create, 0 to update, 0 to delete.\n');
    // Something to delete: the plan says first what it read to decide it.
    await view(['Sales', 'reports', 'extra'], 'SELECT 3 AS three');
    const withDelete = ok(await fx.run(['plan', '--dir', dir, '--prune']));
    expect(withDelete.stdout).toBe(
      [
        `Read 4 definition files in ${dir} (4 folders, 1 link).`,
        '- delete view Sales/reports/extra',
        'Plan: 0 to create, 0 to update, 1 to delete.',
        '',
      ].join('\n'),
    );
    const json = ok(await fx.run(['plan', '--dir', dir, '--prune', '-o', 'json']));
    expect(json.stderr).toContain(`Read 4 definition files in ${dir} (4 folders, 1 link).`);
    const r = ok(await fx.run(['apply', '--dir', dir, '--prune', '--yes']));
    expect(r.stderr).toContain(`Read 4 definition files in ${dir} (4 folders, 1 link).`);
    expect(r.stderr).toContain('Applied: 0 created, 0 updated, 1 deleted, 0 failed.');
    expect(deletes()).toHaveLength(1);
    expect(at(['Sales', 'reports', 'extra'])).toBeUndefined();
    expect(at(['Sales', 'reports', 'v1'])).toBeDefined();
    expect(at(['Sales', 'reports', 'v2'])).toBeDefined();
  });

  it('a folder linked inside the folder is read once, and a link back to an ancestor ends', async () => {
    const dir = await pulled('folder-in');
    renameSync(join(dir, 'Sales/reports'), join(dir, 'reports-real'));
    symlinkSync('../reports-real', join(dir, 'Sales/reports'));
    symlinkSync('..', join(dir, 'reports-real/loop'));
    const plan = ok(await fx.run(['plan', '--dir', dir, '--prune']));
    expect(plan.stdout).toBe('Plan: 0 to create, 0 to update, 0 to delete.\n');
    expect(statSync(join(dir, 'Sales/reports/v1.yaml')).isFile()).toBe(true);
    expect(existsSync(join(dir, 'Sales/reports/loop/Sales.yaml'))).toBe(true);
  });
});
