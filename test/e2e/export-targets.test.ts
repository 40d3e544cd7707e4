// Where `--out` writes, and what it leaves: a device, a named pipe or a socket is written into and never
// replaced; a symbolic link stays and the file it leads to is written the safe way; `--resume` checks the
// partial file against its sidecar before it trusts it, and a failed resume keeps what it had; a full disk
// or a failing device is one `error:` line naming the file, exit 9, with the partial file handled as on
// Ctrl-C. Device nodes are private ones made with mknod in a temporary folder (never the machine's own).
import { execFileSync } from 'node:child_process';
import {
  createReadStream,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectFailure, useFixture } from '../helpers/fixture.js';
import { KEY, startPty } from '../helpers/pty.js';
import { until } from '../helpers/until.js';

const ROWS = 5000;
const QUERY = 'SELECT * FROM big ORDER BY id';

let dir: string;
/** The job of QUERY, completed, and its CSV export to a regular file. */
let jobId: string;
let wholeCsv: Buffer;

const fx = useFixture({ bigRows: ROWS, jobStepMs: 5 });
beforeAll(async () => {
  jobId = (await fx.run(['sql', QUERY, '--no-wait'])).stdout.trim();
  await until(() => fx.emu.jobs.get(jobId)?.state === 'COMPLETED', 'the job completes');
  const scratch = mkdtempSync(join(tmpdir(), 'dlake-targets-whole-'));
  const r = await fx.run(['job', 'export', jobId, '--out', join(scratch, 'whole.csv')]);
  expect(r.code, r.stderr).toBe(0);
  wholeCsv = readFileSync(join(scratch, 'whole.csv'));
  rmSync(scratch, { recursive: true, force: true });
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-targets-'));
  fx.emu.faults.clear();
  return () => rmSync(dir, { recursive: true, force: true });
});

const resultRequests = () => fx.emu.log.find('GET', /^\/api\/v3\/job\/[^/]+\/results$/);

/** A private device node (major, minor) in the test's folder, or undefined where mknod is not allowed. */
function mknod(name: string, type: 'c' | 'b', major: number, minor: number): string | undefined {
  const path = join(dir, name);
  try {
    execFileSync('mknod', [path, type, String(major), String(minor)], { stdio: 'ignore' });
    return path;
  } catch {
    return undefined;
  }
}

const canMknod = (() => {
  const probe = mkdtempSync(join(tmpdir(), 'dlake-mknod-'));
  try {
    execFileSync('mknod', [join(probe, 'null'), 'c', '1', '3'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
})();

describe('--out that is not a regular file', () => {
  it.skipIf(!canMknod)(
    'a character device (a private /dev/null) is written into, never replaced',
    async () => {
      const dev = mknod('null', 'c', 1, 3)!;
      const r = await fx.run(['job', 'export', jobId, '--out', dev]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`wrote 5,000 rows to ${dev} (CSV)`);
      expect(statSync(dev).isCharacterDevice()).toBe(true);
      expect(readdirSync(dir)).toEqual(['null']);
      expect(resultRequests().length).toBeGreaterThan(0);
    },
  );

  it.skipIf(!canMknod)(
    'a full device (a private /dev/full): exit 9 naming it and the cause, none of the rows written, the node kept',
    async () => {
      const dev = mknod('full', 'c', 1, 7)!;
      // It takes no byte: the rows handed over were in dlake's buffers only (CSV and Parquet alike).
      const parquet = await fx.run(['job', 'export', jobId, '--out', dev, '--format', 'parquet']);
      expectFailure(parquet, 9, /: export stopped after [\d,]+ rows, none of them written into /);
      const r = await fx.run(['job', 'export', jobId, '--out', dev]);
      expectFailure(
        r,
        9,
        new RegExp(
          `^error: cannot write ${dev}: no space left on the device: export stopped after [\\d,]+ rows, none of them written into ${dev}$`,
        ),
      );
      expect(r.stderr).not.toContain('bug');
      expect(statSync(dev).isCharacterDevice()).toBe(true);
      expect(readdirSync(dir)).toEqual(['full']);
    },
  );

  it.skipIf(!canMknod)('a block device with nothing behind it: exit 9, the node kept', async () => {
    // Major 240 is reserved for local use: no driver answers it here.
    const dev = mknod('blk', 'b', 240, 0)!;
    const r = await fx.run(['job', 'export', jobId, '--out', dev]);
    expectFailure(r, 9, `cannot write ${dev}: no device or reader behind it`);
    expect(statSync(dev).isBlockDevice()).toBe(true);
    expect(readdirSync(dir)).toEqual(['blk']);
  });

  it('a named pipe is written into for its reader, also through a symbolic link (as /dev/stdout is)', async () => {
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    symlinkSync(fifo, join(dir, 'stdout'));
    for (const out of [fifo, join(dir, 'stdout')]) {
      const chunks: Buffer[] = [];
      const reader = createReadStream(fifo).on('data', (c) => chunks.push(c as Buffer));
      const read = new Promise<void>((resolve) => reader.on('close', () => resolve()));
      const r = await fx.run(['job', 'export', jobId, '--out', out]);
      expect(r.code, r.stderr).toBe(0);
      await read;
      expect(Buffer.concat(chunks).equals(wholeCsv)).toBe(true);
    }
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(readlinkSync(join(dir, 'stdout'))).toBe(fifo);
    expect(readdirSync(dir).sort()).toEqual(['pipe', 'stdout']);
  });

  it('--out /dev/stdout is the standard output, whatever it is (here a socket pair): the rows come down it', async () => {
    const r = await fx.spawn(['job', 'export', jobId, '--out', '/dev/stdout']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(wholeCsv.toString('utf8'));
    expect(lstatSync('/dev/stdout').isSymbolicLink()).toBe(true);
  });

  it('a socket is connected to and written into, never replaced', async () => {
    const sock = join(dir, 'sock');
    const chunks: Buffer[] = [];
    const server = createServer((c) => c.on('data', (d) => chunks.push(d)));
    await new Promise<void>((resolve) => server.listen(sock, resolve));
    let closed: Promise<void>;
    try {
      const r = await fx.run(['job', 'export', jobId, '--out', sock]);
      expect(r.code, r.stderr).toBe(0);
      await until(() => Buffer.concat(chunks).length === wholeCsv.length, 'the socket got every byte');
      expect(Buffer.concat(chunks).equals(wholeCsv)).toBe(true);
      expect(statSync(sock).isSocket()).toBe(true);
    } finally {
      closed = new Promise((resolve) => server.close(() => resolve()));
    }
    await closed;
  });

  it('a symbolic link stays a link: the file it leads to is written through its own .partial', async () => {
    mkdirSync(join(dir, 'real'));
    const target = join(dir, 'real', 'rows.csv');
    writeFileSync(target, 'old content\n');
    const link = join(dir, 'rows.csv');
    symlinkSync(join('real', 'rows.csv'), link);
    // A dangling link: the file is created where it points.
    const dangling = join(dir, 'new.csv');
    symlinkSync(join(dir, 'real', 'new.csv'), dangling);
    for (const out of [link, dangling]) {
      const r = await fx.run(['job', 'export', jobId, '--out', out]);
      expect(r.code, r.stderr).toBe(0);
    }
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(join('real', 'rows.csv'));
    expect(lstatSync(dangling).isSymbolicLink()).toBe(true);
    expect(readFileSync(target).equals(wholeCsv)).toBe(true);
    expect(readFileSync(join(dir, 'real', 'new.csv')).equals(wholeCsv)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['new.csv', 'real', 'rows.csv']);
    expect(readdirSync(join(dir, 'real')).sort()).toEqual(['new.csv', 'rows.csv']);
  });

  it.skipIf(!canMknod)('--resume into a device is refused (exit 2) before anything is fetched', async () => {
    const dev = mknod('null', 'c', 1, 3)!;
    const r = await fx.run(['job', 'export', jobId, '--out', dev, '--resume']);
    expectFailure(r, 2, `cannot resume into ${dev}: it is a character device`);
    expect(resultRequests()).toHaveLength(0);
    expect(statSync(dev).isCharacterDevice()).toBe(true);
  });
});

describe('--resume checks before it trusts', () => {
  /** An export stopped by a service failure after a few pages: FILE.partial and its sidecar are kept. */
  async function stoppedExport(file: string, keptBeside = file): Promise<{ rows: number; bytes: number }> {
    fx.emu.fault({ kind: 'latency', path: /\/results$/, latencyMs: 1, times: 4 });
    fx.emu.fault({ kind: 'status', status: 500, path: /\/results$/ });
    const r = await fx.run(['job', 'export', jobId, '--out', file, '--concurrency', '1']);
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toContain('are kept in');
    fx.emu.faults.clear();
    fx.emu.log.clear();
    return JSON.parse(readFileSync(`${keptBeside}.partial.json`, 'utf8'));
  }

  /** Both files as they are (the bytes as base64: comparing Buffers element by element is slow). */
  const snapshot = (file: string) => [
    readFileSync(`${file}.partial`).toString('base64'),
    readFileSync(`${file}.partial.json`, 'utf8'),
  ];

  it.each(['rows.csv', 'rows.ndjson', 'rows.json'])(
    '%s: a sidecar whose rows disagree with the partial file is refused (exit 2), both left as they were',
    async (name) => {
      const file = join(dir, name);
      const record = await stoppedExport(file);
      expect(record.rows).toBeGreaterThan(0);
      for (const rows of [record.rows - 500, record.rows + 500]) {
        writeFileSync(`${file}.partial.json`, JSON.stringify({ ...record, rows }));
        const before = snapshot(file);
        const r = await fx.run(['job', 'export', jobId, '--out', file, '--resume']);
        expectFailure(
          r,
          2,
          `it holds ${record.rows.toLocaleString('en-US')} rows, but ${file}.partial.json says ${rows.toLocaleString('en-US')}`,
        );
        expect(snapshot(file)).toEqual(before);
        expect(existsSync(file)).toBe(false);
        expect(resultRequests()).toHaveLength(0);
      }
    },
  );

  it('a partial file changed since its sidecar was written is refused (exit 2), both left as they were', async () => {
    const file = join(dir, 'rows.csv');
    await stoppedExport(file);
    const record = JSON.parse(readFileSync(`${file}.partial.json`, 'utf8'));
    const bytes = readFileSync(`${file}.partial`);
    // The same length and line breaks, one digit of the last row kept changed: only the checksum can tell.
    const at = bytes.lastIndexOf('\n', record.bytes - 2) + 1;
    bytes[at] = bytes[at] === 0x31 ? 0x32 : 0x31;
    writeFileSync(`${file}.partial`, bytes);
    const before = snapshot(file);
    const r = await fx.run(['job', 'export', jobId, '--out', file, '--resume']);
    expectFailure(r, 2, 'are not those');
    expect(snapshot(file)).toEqual(before);
    expect(existsSync(file)).toBe(false);
    expect(resultRequests()).toHaveLength(0);
  });

  it('a resume that fails keeps the partial file; the next one completes it, byte for byte', async () => {
    const file = join(dir, 'rows.csv');
    const record = await stoppedExport(file);
    // The service fails again from the first page asked.
    fx.emu.fault({ kind: 'status', status: 500, path: /\/results$/ });
    const failed = await fx.run(['job', 'export', jobId, '--out', file, '--resume']);
    expect(failed.code).toBe(7);
    expect(failed.stderr).toContain(`are kept in ${file}.partial`);
    expect(existsSync(`${file}.partial`)).toBe(true);
    const kept = JSON.parse(readFileSync(`${file}.partial.json`, 'utf8'));
    expect(kept.rows).toBeGreaterThanOrEqual(record.rows);
    expect(existsSync(file)).toBe(false);
    fx.emu.faults.clear();
    const resumed = await fx.run(['job', 'export', jobId, '--out', file, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(readFileSync(file).equals(wholeCsv)).toBe(true);
    expect(readdirSync(dir)).toEqual(['rows.csv']);
  });

  it('a resume that the service cuts short keeps the partial file as it was; the next one completes it', async () => {
    const file = join(dir, 'rows.csv');
    const record = await stoppedExport(file);
    const before = snapshot(file);
    // The first page asked comes back with no rows though the job has more: its rowCount cannot be met.
    const first = JSON.parse(
      (await fx.run(['api', 'GET', `/api/v3/job/${jobId}/results?offset=0&limit=1`])).stdout,
    );
    fx.emu.log.clear();
    fx.emu.fault({
      kind: 'schema',
      path: /\/results$/,
      times: 1,
      body: { rowCount: ROWS, schema: first.schema, rows: [] },
    });
    const failed = await fx.run(['job', 'export', jobId, '--out', file, '--resume']);
    expectFailure(
      failed,
      7,
      `export stopped after ${record.rows.toLocaleString('en-US')} rows; ${file} was not written, ${file}.partial and its sidecar are kept`,
    );
    expect(snapshot(file)[1]).toEqual(before[1]);
    expect(existsSync(file)).toBe(false);
    const resumed = await fx.run(['job', 'export', jobId, '--out', file, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(readFileSync(file).equals(wholeCsv)).toBe(true);
    expect(readdirSync(dir)).toEqual(['rows.csv']);
  });

  it('through a symbolic link: the partial file lies beside the file the link leads to', async () => {
    mkdirSync(join(dir, 'real'));
    const link = join(dir, 'rows.csv');
    symlinkSync(join(dir, 'real', 'rows.csv'), link);
    await stoppedExport(link, join(dir, 'real', 'rows.csv'));
    expect(readdirSync(join(dir, 'real')).sort()).toEqual(['rows.csv.partial', 'rows.csv.partial.json']);
    const resumed = await fx.run(['job', 'export', jobId, '--out', link, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(link).equals(wholeCsv)).toBe(true);
    expect(readdirSync(join(dir, 'real'))).toEqual(['rows.csv']);
  });
});

describe('--no-clobber', () => {
  it('without it a FILE that exists is replaced (as curl does); with it, exit 2 before the query runs', async () => {
    const file = join(dir, 'rows.csv');
    writeFileSync(file, 'mine\n');
    const sql = await fx.run(['sql', QUERY, '--out', file, '--no-clobber']);
    expectFailure(sql, 2, `${file} exists, and --no-clobber keeps it`);
    expect(sql.stderr).toContain('hint: choose another --out, or remove it first');
    expect(fx.emu.log.find('POST', '/api/v3/sql')).toHaveLength(0);
    const exported = await fx.run(['job', 'export', jobId, '--out', file, '--no-clobber']);
    expectFailure(exported, 2, `${file} exists, and --no-clobber keeps it`);
    expect(resultRequests()).toHaveLength(0);
    expect(readFileSync(file, 'utf8')).toBe('mine\n');
    expect(readdirSync(dir)).toEqual(['rows.csv']);

    const replaced = await fx.run(['job', 'export', jobId, '--out', file]);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(readFileSync(file).equals(wholeCsv)).toBe(true);
  });

  it('a FILE that appears while the rows are written is kept: exit 2, nothing of the export left', async () => {
    const file = join(dir, 'rows.csv');
    fx.emu.fault({ kind: 'latency', path: /\/results$/, latencyMs: 50 });
    const running = fx.run(['job', 'export', jobId, '--out', file, '--no-clobber', '--concurrency', '1']);
    await until(() => existsSync(`${file}.partial`), 'the export writes its partial file');
    writeFileSync(file, 'theirs\n');
    const r = await running;
    expectFailure(
      r,
      2,
      `${file} exists, and --no-clobber keeps it: export stopped after 5,000 rows; ${file} was not written`,
    );
    expect(readFileSync(file, 'utf8')).toBe('theirs\n');
    expect(readdirSync(dir)).toEqual(['rows.csv']);
  });

  it("the SQL shell's \\o FILE --no-clobber: refused before the query runs, the file kept", async () => {
    const file = join(dir, 'rows.csv');
    writeFileSync(file, 'mine\n');
    const sh = startPty(['sql'], { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url });
    try {
      await sh.waitFor(/dlake>$/);
      sh.type(`\\o ${file} --no-clobber${KEY.enter}`);
      await sh.waitFor(/--no-clobber keeps it[\s\S]*dlake>$/);
      sh.type(`\\o ${join(dir, 'new.csv')} --no-clobber${KEY.enter}`);
      await sh.waitFor(`The next result goes to ${join(dir, 'new.csv')}.`);
      sh.type(`SELECT * FROM big ORDER BY id;${KEY.enter}`);
      await sh.waitFor(/wrote 5,000 rows[\s\S]*dlake>$/);
      sh.type(`\\q${KEY.enter}`);
      expect(await sh.exited).toBe(0);
    } finally {
      sh.kill('SIGKILL');
    }
    expect(readFileSync(file, 'utf8')).toBe('mine\n');
    expect(readFileSync(join(dir, 'new.csv')).equals(wholeCsv)).toBe(true);
  });

  it('a new FILE is written as usual', async () => {
    const file = join(dir, 'new.csv');
    const r = await fx.run(['job', 'export', jobId, '--out', file, '--no-clobber']);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(file).equals(wholeCsv)).toBe(true);
    expect(readdirSync(dir)).toEqual(['new.csv']);
  });
});

describe("the closing line's time", () => {
  /** `1s 523ms` in milliseconds. */
  const ms = (text: string): number =>
    [...text.matchAll(/(\d+)(ms|h|m|s)/g)].reduce(
      (sum, [, n, unit]) => sum + Number(n) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit!]!,
      0,
    );

  it("is what the user waited for: the job's wait included, not the export alone", async () => {
    const file = join(dir, 'rows.csv');
    const r = await fx.run(['sql', 'SELECT * FROM big /* sleep:1500 */', '--out', file]);
    expect(r.code, r.stderr).toBe(0);
    const took = /wrote 5,000 rows to .* \(CSV\) in (.+)$/m.exec(r.stderr)?.[1];
    expect(took, r.stderr).toBeDefined();
    // The job ran 1.5 s at least before a row could be exported.
    expect(ms(took!)).toBeGreaterThanOrEqual(1500);
  });
});
