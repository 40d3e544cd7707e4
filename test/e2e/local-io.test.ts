// A local write that fails (a full disk, a read-only file system, a refused permission) is one `error:` line
// naming the file and the cause, exit 9, never "a bug in dlake"; an export's partial file is handled as on
// Ctrl-C (kept for --resume when a sidecar describes it). The file systems are private tmpfs mounts and the
// devices private mknod nodes in a temporary folder: where this user may make neither, those tests are skipped.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv } from '../helpers/dlake.js';
import { ADMIN, expectFailure, useFixture } from '../helpers/fixture.js';
import { canMountTmpfs, mountTmpfs, unmount } from '../helpers/tmpfs.js';
import { until } from '../helpers/until.js';

const ROWS = 5000;
const QUERY = 'SELECT * FROM big ORDER BY id';

let dir: string;
let jobId: string;
let whole: Buffer;

const fx = useFixture({ bigRows: ROWS, jobStepMs: 5 });
beforeAll(async () => {
  jobId = (await fx.run(['sql', QUERY, '--no-wait'])).stdout.trim();
  await until(() => fx.emu.jobs.get(jobId)?.state === 'COMPLETED', 'the job completes');
  const scratch = mkdtempSync(join(tmpdir(), 'dlake-local-io-whole-'));
  expect((await fx.run(['job', 'export', jobId, '--out', join(scratch, 'whole.csv')])).code).toBe(0);
  whole = readFileSync(join(scratch, 'whole.csv'));
  rmSync(scratch, { recursive: true, force: true });
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-local-io-'));
  fx.emu.faults.clear();
  return () => {
    unmount(mounts.splice(0));
    rmSync(dir, { recursive: true, force: true });
  };
});

const mounts: string[] = [];

/** A private tmpfs of `options` (e.g. `size=64k`, `ro`) at DIR/name, or undefined where mounting is not allowed. */
function tmpfs(name: string, options: string): string | undefined {
  const at = join(dir, name);
  mkdirSync(at);
  try {
    mountTmpfs([at], options);
  } catch {
    return undefined;
  }
  mounts.push(at);
  return at;
}

const allowed = (() => {
  const probe = mkdtempSync(join(tmpdir(), 'dlake-mount-probe-'));
  const can = { mount: canMountTmpfs(), mknod: false };
  try {
    execFileSync('mknod', [join(probe, 'full'), 'c', '1', '7'], { stdio: 'ignore' });
    can.mknod = true;
  } catch {}
  rmSync(probe, { recursive: true, force: true });
  return can;
})();

describe('a disk that fills up', () => {
  it.skipIf(!allowed.mount)(
    'during an export: exit 9 naming the partial file; it is kept with its sidecar, and --resume completes it',
    async () => {
      // Room for the first pages, not for the whole export.
      const disk = tmpfs('disk', 'size=96k')!;
      const file = join(disk, 'rows.csv');
      const r = await fx.run(['job', 'export', jobId, '--out', file, '--concurrency', '1']);
      expectFailure(
        r,
        9,
        new RegExp(
          `^error: cannot write ${file}\\.partial: no space left on the device: export stopped after [\\d,]+ rows; ${file} was not written, the first [\\d,]+ rows are kept in ${file}\\.partial$`,
        ),
      );
      expect(r.stderr).not.toMatch(/bug/);
      expect(r.stderr).toContain(`hint: resume with: dlake job export ${jobId} --out ${file} --resume`);
      expect(readdirSync(disk).sort()).toEqual(['rows.csv.partial', 'rows.csv.partial.json']);
      // Room made: the export goes on from the rows kept.
      execFileSync('mount', ['-o', 'remount,size=4m', disk]);
      const resumed = await fx.run(['job', 'export', jobId, '--out', file, '--resume']);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(readFileSync(file).equals(whole)).toBe(true);
      expect(readdirSync(disk)).toEqual(['rows.csv']);
    },
  );

  it.skipIf(!allowed.mount)('before the first checkpoint: exit 9, nothing left behind', async () => {
    // Not even the first page fits.
    const disk = tmpfs('tiny', 'size=4k')!;
    const file = join(disk, 'rows.csv');
    const r = await fx.run(['job', 'export', jobId, '--out', file]);
    expectFailure(r, 9, `cannot write ${file}.partial: no space left on the device`);
    expect(readdirSync(disk)).toEqual([]);
  });

  it.skipIf(!allowed.mount)(
    'in the config folder: exit 9 naming the folder, not a bug, before the service is contacted',
    async () => {
      const disk = tmpfs('config', 'size=4k')!;
      // Fill it up, so that the next write of any size fails.
      try {
        execFileSync('dd', ['if=/dev/zero', `of=${join(disk, 'filler')}`, 'bs=4k', 'count=2'], {
          stdio: 'ignore',
        });
      } catch {}
      const r = await fx.run(['login', '-u', ADMIN.name, '--password-stdin'], {
        input: `${ADMIN.password}\n`,
        env: { DLAKE_CONFIG_DIR: disk },
      });
      expectFailure(r, 9, `cannot write the config folder ${disk}: no space left on the device`);
      expect(r.stderr).not.toMatch(/bug/);
      expect(fx.emu.log.find('POST', '/apiv2/login')).toEqual([]);
      expect(existsSync(join(disk, 'credentials.json'))).toBe(false);
    },
  );

  it.skipIf(!allowed.mount)(
    'under pull --dir: exit 9 naming the file, and no definition is left cut short',
    async () => {
      const disk = tmpfs('defs', 'size=4k')!;
      try {
        execFileSync('dd', ['if=/dev/zero', `of=${join(disk, 'filler')}`, 'bs=4k', 'count=2'], {
          stdio: 'ignore',
        });
      } catch {}
      const space = await fx.run([
        'api',
        'POST',
        '/api/v3/catalog',
        '--data',
        '{"entityType":"space","name":"Sales"}',
      ]);
      expect(space.code, space.stderr).toBe(0);
      const r = await fx.run(['pull', '--dir', join(disk, 'lake')]);
      expectFailure(r, 9, /^error: cannot write .*\.yaml: no space left on the device$/);
      const left = execFileSync('find', [disk, '-type', 'f'], { encoding: 'utf8' }).trim().split('\n');
      expect(left).toEqual([join(disk, 'filler')]);
    },
  );

  it.skipIf(!allowed.mknod)(
    'standard output redirected to a full device: exit 9, one line naming standard output',
    async () => {
      execFileSync('mknod', [join(dir, 'full'), 'c', '1', '7']);
      const out = openSync(join(dir, 'full'), 'w');
      const child = spawn(process.execPath, [BIN, 'api', 'GET', '/api/v3/catalog'], {
        env: cleanEnv({ DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url }),
        stdio: ['ignore', out, 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (d) => {
        stderr += d;
      });
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(stderr).toBe('error: cannot write standard output: no space left on the device\n');
      expect(code).toBe(9);
    },
  );
});

describe('a file system that refuses', () => {
  it.skipIf(!allowed.mount)('read-only: exit 9 before the query is submitted, nothing written', async () => {
    const ro = tmpfs('ro', 'ro,size=64k')!;
    const file = join(ro, 'rows.csv');
    const r = await fx.run(['sql', QUERY, '--out', file]);
    expectFailure(r, 9, `cannot write ${file}: read-only file system`);
    expect(fx.emu.log.find('POST', '/api/v3/sql')).toHaveLength(0);
    expect(readdirSync(ro)).toEqual([]);
  });

  it('permission refused, even to root (an immutable folder): exit 9 before the query is submitted', async () => {
    const locked = join(dir, 'locked');
    mkdirSync(locked);
    try {
      execFileSync(
        process.getuid?.() === 0 ? 'chattr' : 'chmod',
        process.getuid?.() === 0 ? ['+i', locked] : ['500', locked],
        {
          stdio: 'ignore',
        },
      );
    } catch {
      return; // no way to lock a folder for this user here
    }
    try {
      const file = join(locked, 'rows.csv');
      const r = await fx.run(['sql', QUERY, '--out', file]);
      expectFailure(r, 9, `cannot write ${file}: permission denied`);
      expect(fx.emu.log.find('POST', '/api/v3/sql')).toHaveLength(0);
      expect(readdirSync(locked)).toEqual([]);
    } finally {
      if (process.getuid?.() === 0) execFileSync('chattr', ['-i', locked]);
    }
  });
});
