// Files that are not files: a named pipe with no writer or reader, a device that reads without end, a symbolic
// link out of dlake's folder, put where dlake reads or writes a file (the SQL shell's history, the CA file,
// a script, `--out`). dlake never blocks on one, never reads one without a bound, never writes through such a
// link, and a signal ends any wait with its exit code (docs/cli-contract.md "Files dlake reads and writes").
// Spawned, each with a short kill timer: a process that blocks or reads without end is what is being checked.
// The device is a private node made with mknod (1,5: what /dev/zero is) in a temporary folder.
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDlake } from '../helpers/dlake.js';
import { expectFailure, useFixture } from '../helpers/fixture.js';
import { KEY, type PtyDlake, startPty } from '../helpers/pty.js';
import { until } from '../helpers/until.js';

/** What a process that blocks or reads without end is given before it is killed (and the test fails). */
const KILL_AFTER_MS = 15_000;

let dir: string;
let shell: PtyDlake | undefined;

const fx = useFixture({ bigRows: 2000, flightPort: 0 });
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-not-files-'));
  return () => rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  // SIGKILL: a shell that reads without end ignores the others (the failure this file checks for).
  shell?.kill('SIGKILL');
  shell = undefined;
});

const canMknod = (() => {
  const probe = mkdtempSync(join(tmpdir(), 'dlake-mknod-'));
  try {
    execFileSync('mknod', [join(probe, 'zero'), 'c', '1', '5'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
})();

/** A private endless device (what /dev/zero is) at `path`. */
const endlessDevice = (path: string): string => {
  execFileSync('mknod', [path, 'c', '1', '5']);
  return path;
};
const fifo = (path: string): string => {
  execFileSync('mkfifo', [path]);
  return path;
};

/** A personal access token, which Flight takes to an endpoint the profile does not name. */
const pat = () => fx.emu.state.issueToken(fx.emu.state.userByName('admin')!.id, 'pat', 3_600_000).token;

const spawnDlake = (args: string[], env: Record<string, string> = {}, input?: string) =>
  startDlake(args, {
    env: { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url, ...env },
    killAfterMs: KILL_AFTER_MS,
    input,
  });
/** What dlake says once it waits for a reader of the named pipe `out` (the event a signal is sent after). */
const waiting = (out: string) => `waiting for a reader of the named pipe ${out}`;

describe("the SQL shell's history file", () => {
  /** A config folder of its own (with the fixture's login), whose sql_history `plant` makes. */
  function configWith(plant: (history: string) => void): string {
    const cfg = join(dir, 'cfg');
    mkdirSync(cfg, { mode: 0o700 });
    for (const name of readdirSync(fx.configDir).filter((n) => n.endsWith('.json')))
      writeFileSync(join(cfg, name), readFileSync(join(fx.configDir, name)), { mode: 0o600 });
    plant(join(cfg, 'sql_history'));
    return cfg;
  }

  async function runOneStatement(cfg: string): Promise<PtyDlake> {
    shell = startPty(['sql'], { DLAKE_CONFIG_DIR: cfg, DLAKE_URL: fx.emu.url });
    await shell.waitFor(/dlake>$/, KILL_AFTER_MS);
    shell.type(`SELECT 7 AS seven;${KEY.enter}`);
    await shell.waitFor(/seven\n7\ndlake>$/);
    shell.type(`\\q${KEY.enter}`);
    expect(await shell.exited).toBe(0);
    return shell;
  }

  /** The screen with its lines joined again (a long warning wraps). */
  const unwrapped = (sh: PtyDlake) => sh.screen().replaceAll('\n', '');

  it('a symbolic link out of the folder: the file it names is neither appended to nor re-moded', async () => {
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious\n', { mode: 0o644 });
    const cfg = configWith((history) => symlinkSync('../victim.txt', history));
    const sh = await runOneStatement(cfg);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(statSync(victim).mode & 0o777).toBe(0o644);
    expect(unwrapped(sh)).toContain(
      `warning: not reading the SQL history ${join(cfg, 'sql_history')}: it is a symbolic link, not a regular file`,
    );
  });

  it.skipIf(!canMknod)(
    'a device that reads without end: the prompt comes at once, nothing read',
    async () => {
      const cfg = configWith((history) => endlessDevice(history));
      const sh = await runOneStatement(cfg);
      expect(unwrapped(sh)).toContain('it is a character device, not a regular file');
    },
  );

  it.skipIf(!canMknod)('a link to such a device: the same', async () => {
    const device = endlessDevice(join(dir, 'zero'));
    const cfg = configWith((history) => symlinkSync(device, history));
    await runOneStatement(cfg);
  });

  it('a named pipe with no writer: the prompt comes, the shell ends on \\q', async () => {
    const cfg = configWith((history) => fifo(history));
    const sh = await runOneStatement(cfg);
    expect(unwrapped(sh)).toContain('it is a named pipe, not a regular file');
  });
});

describe('the CA file (--ca-file, DLAKE_CA_FILE)', () => {
  it('a named pipe with no writer: exit 2 naming it, nothing sent (REST)', async () => {
    const ca = fifo(join(dir, 'ca.pem'));
    const r = await spawnDlake(['catalog', 'ls'], { DLAKE_CA_FILE: ca }).done;
    expectFailure(r, 2, `cannot read the CA file ${ca}: it is a named pipe, not a regular file`);
    expect(fx.emu.log.entries).toHaveLength(0);
  });

  it.skipIf(!canMknod)('an endless device: exit 2 naming it, nothing read, nothing sent (REST)', async () => {
    const ca = endlessDevice(join(dir, 'ca.pem'));
    const r = await spawnDlake(['--ca-file', ca, 'catalog', 'ls']).done;
    expectFailure(r, 2, `cannot read the CA file ${ca}: it is a character device, not a regular file`);
    expect(fx.emu.log.entries).toHaveLength(0);
  });

  it.skipIf(!canMknod)('the same over Arrow Flight (grpc+tls): exit 2, no file, no call', async () => {
    const flightUrl = fx.emu.flight!.url.replace(/^grpc:/, 'grpc+tls:');
    const out = join(dir, 'rows.csv');
    for (const ca of [fifo(join(dir, 'ca-pipe.pem')), endlessDevice(join(dir, 'ca-dev.pem'))]) {
      const r = await spawnDlake(
        ['sql', 'SELECT * FROM big', '--out', out, '--transport', 'flight', '--flight-url', flightUrl],
        { DLAKE_CA_FILE: ca, DLAKE_TOKEN: pat() },
      ).done;
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`cannot read the CA file ${ca}: it is `);
      expect(fx.emu.flight!.calls).toHaveLength(0);
      expect(readdirSync(dir).filter((n) => n.startsWith('rows'))).toEqual([]);
    }
  });

  it('a CA file larger than any bundle: refused (exit 2), not read whole', async () => {
    const ca = join(dir, 'huge.pem');
    writeFileSync(ca, '');
    execFileSync('truncate', ['-s', '9M', ca]);
    const r = await spawnDlake(['catalog', 'ls'], { DLAKE_CA_FILE: ca }).done;
    expectFailure(r, 2, `cannot read the CA file ${ca}: it is larger than 8 MiB`);
  });
});

describe('a file the user names', () => {
  it('sql --file on a named pipe with no writer: exit 2 naming it, nothing submitted', async () => {
    const script = fifo(join(dir, 'script.sql'));
    const r = await spawnDlake(['sql', '--file', script]).done;
    expectFailure(r, 2, `cannot read ${script}: it is a named pipe, not a regular file`);
    expect(r.stderr).toContain(
      'hint: dlake reads only regular files by name; where the command takes -, that reads',
    );
    expect(fx.emu.log.find('POST', '/api/v3/sql')).toHaveLength(0);
  });

  it.skipIf(!canMknod)('sql --file on an endless device: exit 2, nothing read', async () => {
    const script = endlessDevice(join(dir, 'script.sql'));
    const r = await spawnDlake(['sql', '--file', script]).done;
    expectFailure(r, 2, `cannot read ${script}: it is a character device, not a regular file`);
  });
});

describe('--out onto a named pipe that no one reads', () => {
  it.each([
    ['SIGTERM', 143, 'terminated (SIGTERM)'],
    ['SIGINT', 130, 'interrupted'],
    ['SIGHUP', 129, 'hung up (SIGHUP)'],
  ] as const)(
    '%s ends the wait for a reader: exit %i, nothing left beside the pipe',
    async (signal, code, words) => {
      const id = (await fx.run(['sql', 'SELECT * FROM big', '--no-wait'])).stdout.trim();
      await until(() => fx.emu.jobs.get(id)?.state === 'COMPLETED', 'the job completes');
      fx.emu.log.clear();
      const out = fifo(join(dir, 'rows.csv'));
      const child = spawnDlake(['job', 'export', id, '--out', out]);
      // The job's state is read, then the pipe opened (before any results page is asked for).
      await until(() => child.stderr.includes(waiting(out)), 'the wait for a reader');
      child.kill(signal);
      const r = await child.done;
      expect(r.signal, r.stderr).toBeNull();
      expectFailure(r, code, `error: ${words} while waiting for a reader of the named pipe ${out}`);
      expect(fx.emu.log.find('GET', `/api/v3/job/${id}/results`)).toHaveLength(0);
      expect(readdirSync(dir)).toEqual(['rows.csv']);
      expect(statSync(out).isFIFO()).toBe(true);
    },
  );

  it('job list --out onto it: SIGTERM ends the wait, exit 143', async () => {
    const out = fifo(join(dir, 'jobs.csv'));
    const child = spawnDlake(['job', 'list', '--out', out]);
    await until(() => fx.emu.log.find('POST', '/api/v3/sql').length > 0, 'the jobs are asked for');
    await until(() => child.stderr.includes(waiting(out)), 'the wait for a reader');
    child.kill('SIGTERM');
    const r = await child.done;
    expect(r.signal, r.stderr).toBeNull();
    expectFailure(r, 143, `error: terminated (SIGTERM) while waiting for a reader of the named pipe ${out}`);
    expect(readdirSync(dir)).toEqual(['jobs.csv']);
  });

  it('a reader that opens the pipe and never reads: SIGTERM still ends the export, exit 143', async () => {
    const id = (await fx.run(['sql', 'SELECT * FROM big', '--no-wait'])).stdout.trim();
    await until(() => fx.emu.jobs.get(id)?.state === 'COMPLETED', 'the job completes');
    fx.emu.log.clear();
    const out = fifo(join(dir, 'rows.csv'));
    // The read end held open, never read: the pipe fills and the writes wait.
    const reader = openSync(out, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const child = spawnDlake(['job', 'export', id, '--out', out]);
      await until(
        () => fx.emu.log.find('GET', `/api/v3/job/${id}/results`).length >= 4,
        'the rows are fetched',
        KILL_AFTER_MS,
      );
      await new Promise((r) => setTimeout(r, 500));
      child.kill('SIGTERM');
      const r = await child.done;
      expect(r.signal, r.stderr).toBeNull();
      // The pipe took a part of a write, which is all it can be said to hold.
      expectFailure(
        r,
        143,
        /^error: terminated \(SIGTERM\): export stopped after 2,000 rows, not all of them written into /,
      );
      expect(readdirSync(dir)).toEqual(['rows.csv']);
    } finally {
      closeSync(reader);
    }
  });

  it("the SQL shell's \\o: Ctrl-C ends the wait, and the shell goes on", async () => {
    const out = fifo(join(dir, 'shell.csv'));
    shell = startPty(['sql'], { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url });
    await shell.waitFor(/dlake>$/);
    shell.type(`\\o ${out}${KEY.enter}`);
    await shell.waitFor(`The next result goes to ${out}.`);
    shell.type(`SELECT * FROM big;${KEY.enter}`);
    await shell.waitFor(waiting(out));
    shell.type(KEY.ctrlC);
    await shell.waitFor(/interrupted while waiting for a reader[^>]*\ndlake>$/);
    // \o still holds after a failure (for the statement run again): printed again from here.
    shell.type(`\\o${KEY.enter}`);
    await shell.waitFor('The next result is printed.');
    shell.type(`SELECT 5 AS five;${KEY.enter}`);
    await shell.waitFor(/five\n5\ndlake>$/);
    shell.type(`\\q${KEY.enter}`);
    expect(await shell.exited).toBe(0);
    expect(readdirSync(dir)).toEqual(['shell.csv']);
  });
});

describe("dlake's own files and an export's partial file", () => {
  it('config.json as a named pipe: exit 2 naming it, at once; credentials.json as one: a warning', async () => {
    const cfg = join(dir, 'cfg');
    mkdirSync(cfg, { mode: 0o700 });
    fifo(join(cfg, 'config.json'));
    const r = await startDlake(['profile', 'list'], {
      env: { DLAKE_CONFIG_DIR: cfg },
      killAfterMs: KILL_AFTER_MS,
    }).done;
    expectFailure(r, 2, `the config file ${join(cfg, 'config.json')} is not valid: it is a named pipe`);
    rmSync(join(cfg, 'config.json'));
    fifo(join(cfg, 'credentials.json'));
    const c = await startDlake(['profile', 'list'], {
      env: { DLAKE_CONFIG_DIR: cfg },
      killAfterMs: KILL_AFTER_MS,
    }).done;
    expect(c.code, c.stderr).toBe(0);
    expect(c.stderr).toContain('credentials.json is not valid (it is a named pipe, not a regular file)');
  });

  it("a link planted as FILE.partial or its sidecar's temporary file is replaced, never written through", async () => {
    const id = (await fx.run(['sql', 'SELECT * FROM big', '--no-wait'])).stdout.trim();
    await until(() => fx.emu.jobs.get(id)?.state === 'COMPLETED', 'the job completes');
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious\n');
    const out = join(dir, 'rows.csv');
    symlinkSync(victim, `${out}.partial`);
    // The sidecar's temporary file too (written at the export's first checkpoint).
    symlinkSync(victim, `${out}.partial.json.tmp`);
    const r = await fx.run(['job', 'export', id, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(lstatSync(out).isFile()).toBe(true);
    expect(readFileSync(out, 'utf8')).toMatch(/^id,name,amount,flag,note\n1,/);
    expect(readdirSync(dir).sort()).toEqual(['rows.csv', 'victim.txt']);
  });

  it('--resume with a named pipe as the sidecar or the partial file: exit 2 naming it, nothing fetched', async () => {
    const id = (await fx.run(['sql', 'SELECT * FROM big', '--no-wait'])).stdout.trim();
    await until(() => fx.emu.jobs.get(id)?.state === 'COMPLETED', 'the job completes');
    fx.emu.log.clear();
    const out = join(dir, 'rows.csv');
    fifo(`${out}.partial.json`);
    const sidecar = await spawnDlake(['job', 'export', id, '--out', out, '--resume']).done;
    expectFailure(
      sidecar,
      2,
      `cannot resume from ${out}.partial.json: it is a named pipe, not a regular file`,
    );
    rmSync(`${out}.partial.json`);
    writeFileSync(
      `${out}.partial.json`,
      JSON.stringify({ jobId: id, format: 'csv', gzip: false, rows: 10, bytes: 100, crc32: 0 }),
    );
    fifo(`${out}.partial`);
    const partial = await spawnDlake(['job', 'export', id, '--out', out, '--resume']).done;
    expectFailure(partial, 2, `cannot resume ${out}.partial: it is a named pipe, not a regular file`);
    expect(fx.emu.log.find('GET', `/api/v3/job/${id}/results`)).toHaveLength(0);
  });
});

describe('standard input', () => {
  it('more than a file may hold: refused (exit 2), nothing submitted', async () => {
    const r = await spawnDlake(['sql', '-'], {}, `SELECT '${'x'.repeat(65 * 1024 * 1024)}'`).done;
    expectFailure(r, 2, 'standard input holds more than 64 MiB, more than dlake reads from it');
    expect(fx.emu.log.find('POST', '/api/v3/sql')).toHaveLength(0);
  });
});
