// Every entry point that writes rows out goes through the one delivery pipeline: entry point (`sql --out`,
// `job export`, `sql -f`, the SQL shell's `\o`) × transport (REST, Flight) × format (CSV, NDJSON, JSON,
// Parquet, .gz) against the emulator, each file byte for byte the REST `job export` of the same rows (Parquet:
// the same rows read back); and the faults (a stream broken mid-way, a full disk on a private tmpfs, a closed
// pipe, SIGINT, SIGTERM, two SIGTERMs): the exit code, exactly one `error:` line, no FILE, and no FILE.partial
// but the resumable one a REST export keeps. In-process runs for everything but what only a process shows
// (signals, a closed pipe, the terminal of the shell). The batch shapes of real servers (4,095 and 65,536
// rows, wide rows) are test/unit/delivery-matrix.test.ts.
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { constants as osConstants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parquetReadObjects } from 'hyparquet';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, startDlake } from '../helpers/dlake.js';
import { expectFailure, useFixture } from '../helpers/fixture.js';
import { KEY, startPty } from '../helpers/pty.js';
import { canMountTmpfs, mountTmpfs, unmount } from '../helpers/tmpfs.js';
import { until } from '../helpers/until.js';

const ROWS = 6000;
const QUERIES = {
  big: 'SELECT * FROM big ORDER BY id',
  // Wide rows: cells of kilobytes.
  wide: "SELECT id, note, repeat(coalesce(name, 'null'), 400) AS wide FROM big WHERE id <= 1500 ORDER BY id",
  one: 'SELECT * FROM big WHERE id = 3',
};
/**
 * Every row wide (for the signals: each batch and each page reaches the file as it comes), twice over: three
 * Flight batches, since a batch reaches the file once the next one has arrived.
 */
const WIDE_ALL = "SELECT id, repeat('x', 3000) AS w FROM big, (VALUES (1), (2)) AS t(k) ORDER BY id, k";
const EXTS = ['csv', 'ndjson', 'json', 'parquet', 'csv.gz'] as const;
type Ext = (typeof EXTS)[number];
const TRANSPORTS = ['rest', 'flight'] as const;

let dir: string;
/** The REST `job export` of each query in each format: what every other way must write. */
const reference = new Map<string, Buffer | unknown[]>();
const jobs = new Map<string, string>();

async function contents(file: string, ext: Ext): Promise<Buffer | unknown[]> {
  const bytes = readFileSync(file);
  if (ext === 'parquet') {
    const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    return parquetReadObjects({ file: buf });
  }
  return ext.endsWith('.gz') ? gunzipSync(bytes) : bytes;
}

const fx = useFixture({ bigRows: ROWS, jobStepMs: 5, flightPort: 0 }, { login: false });
beforeAll(async () => {
  const login = await fx.run(
    ['--flight-url', fx.emu.flight!.url, 'login', '-u', 'admin', '--password-stdin'],
    {
      input: 'admin-pass-1\n',
    },
  );
  expect(login.code, login.stderr).toBe(0);
  const scratch = mkdtempSync(join(tmpdir(), 'dlake-delivery-ref-'));
  for (const [name, sql] of Object.entries(QUERIES)) {
    const id = (await fx.run(['sql', sql, '--no-wait'])).stdout.trim();
    await until(() => fx.emu.jobs.get(id)?.state === 'COMPLETED', 'the job completes');
    jobs.set(name, id);
    await Promise.all(
      EXTS.map(async (ext) => {
        const file = join(scratch, `${name}.${ext}`);
        const r = await fx.run(['job', 'export', id, '--out', file, '--transport', 'rest']);
        expect(r.code, r.stderr).toBe(0);
        reference.set(`${name}.${ext}`, await contents(file, ext));
      }),
    );
  }
  rmSync(scratch, { recursive: true, force: true });
}, 120_000);
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-delivery-'));
  fx.emu.faults.clear();
  fx.emu.flight!.clearFaults();
  return () => rmSync(dir, { recursive: true, force: true });
});

/** Scripts written so far: each run reads a script of its own (runs go at once). */
let scripts = 0;

/** The command line of an in-process entry point writing query `name` to `out`. */
function entry(
  kind: 'sql' | 'job' | 'script',
  name: keyof typeof QUERIES,
  out: string,
  transport: string,
): string[] {
  if (kind === 'job') return ['job', 'export', jobs.get(name)!, '--out', out, '--transport', transport];
  if (kind === 'sql') return ['sql', QUERIES[name], '--out', out, '--transport', transport];
  const script = join(dir, `script-${++scripts}.sql`);
  writeFileSync(script, `-- one statement\n${QUERIES[name]};\n`);
  return ['sql', '-f', script, '--out', out, '--transport', transport];
}

describe.each(['sql', 'job', 'script'] as const)('%s, in-process', (kind) => {
  it.each(TRANSPORTS)('over %s: every format and shape byte for byte the REST export', async (transport) => {
    // The 15 exports at once, each into a file of its own: a `sql` run spends most of its time waiting for its
    // job's next poll, and those waits overlap.
    const cases = (['big', 'wide', 'one'] as const).flatMap((name) =>
      EXTS.map((ext) => {
        const out = join(dir, `${name}.${ext}`);
        return { name, ext, out, args: entry(kind, name, out, transport) };
      }),
    );
    const results = await Promise.all(cases.map((c) => fx.run(c.args)));
    for (const [k, { name, ext, out }] of cases.entries()) {
      const r = results[k]!;
      expect(r.code, `${name}.${ext}: ${r.stderr}`).toBe(0);
      expect(r.stderr).toMatch(new RegExp(`wrote [\\d,]+ rows? to ${out} `));
      if (transport === 'flight') expect(r.stderr).toContain('over Arrow Flight');
      const got = await contents(out, ext);
      const want = reference.get(`${name}.${ext}`)!;
      if (Buffer.isBuffer(got))
        expect(got.equals(want as Buffer), `${kind} ${transport} ${name}.${ext}`).toBe(true);
      else expect(got).toEqual(want);
    }
    expect(readdirSync(dir).filter((f) => f.includes('.partial'))).toEqual([]);
  });

  it.each(TRANSPORTS)(
    'over %s, the stream broken mid-way: exit 7, one error line, no FILE',
    async (transport) => {
      if (transport === 'flight') fx.emu.flight!.fault({ kind: 'break', afterBatches: 1 });
      // The first results page answers (faults are taken in the order armed, and it is asked for alone); every
      // later page is not JSON (a proxy's answer).
      else {
        fx.emu.faults.add({ kind: 'latency', latencyMs: 1, path: /\/results$/, times: 1 });
        fx.emu.faults.add({ kind: 'malformed', path: /\/results$/ });
      }
      const out = join(dir, 'big.csv');
      const r = await fx.run(entry(kind, 'big', out, transport));
      expectFailure(r, 7, /: export stopped after [\d,]+ rows; .*big\.csv was not written/);
      expect(existsSync(out)).toBe(false);
      // REST keeps what it can resume (with the sidecar that describes it); Flight never keeps anything.
      const left = readdirSync(dir)
        .filter((f) => f.startsWith('big.csv'))
        .sort();
      if (transport === 'flight') expect(left).toEqual([]);
      else expect([[], ['big.csv.partial', 'big.csv.partial.json']]).toContainEqual(left);
    },
  );
});

describe.skipIf(!canMountTmpfs())('a full disk (a private tmpfs)', () => {
  it.each(['sql', 'job', 'script'] as const)(
    '%s, REST and Flight, every format, with and without --debug: exit 9, one line, no FILE',
    async (kind) => {
      // The 20 runs at once, each onto a full disk of its own.
      const cases = TRANSPORTS.flatMap((transport) =>
        EXTS.flatMap((ext) => [[], ['--debug']].map((debug) => ({ transport, ext, debug }))),
      ).map((c, k) => ({ ...c, disk: join(dir, `disk-${k}`) }));
      const disks = cases.map((c) => c.disk);
      for (const disk of disks) mkdirSync(disk);
      mountTmpfs(disks, 'size=16k');
      try {
        const results = await Promise.all(
          cases.map(({ transport, ext, debug, disk }) =>
            fx.run([...debug, ...entry(kind, 'big', join(disk, `big.${ext}`), transport)]),
          ),
        );
        for (const [k, { transport, ext, disk }] of cases.entries()) {
          const r = results[k]!;
          const out = join(disk, `big.${ext}`);
          expectFailure(
            {
              ...r,
              stderr: r.stderr
                .split('\n')
                .filter((l) => !l.startsWith('debug:'))
                .join('\n'),
            },
            9,
            new RegExp(
              `^error: (statement 1 \\(line 2\\): )?cannot write ${out}\\.partial: no space left on the device: export stopped after [\\d,]+ rows; ${out} was not written`,
            ),
          );
          expect(r.stderr).not.toMatch(/this is a bug|TypeError/);
          const left = readdirSync(disk);
          expect(left).not.toContain(`big.${ext}`);
          // A REST export keeps the rows it can resume, with the sidecar that describes them.
          if (left.length > 0) {
            expect(transport).toBe('rest');
            expect(left.sort()).toEqual([`big.${ext}.partial`, `big.${ext}.partial.json`]);
          }
        }
      } finally {
        unmount(disks);
      }
    },
  );
});

describe('what only a process shows', () => {
  const env = () => ({ DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url });
  /**
   * The first rows come at once and the rest are held until dlake goes away (the emulator's waits end when
   * the caller leaves): the signals always find the export mid-way, however loaded the machine.
   */
  const slow = (transport: string) => {
    // Flight sends 4,095-row batches, three for these rows: the third is held.
    if (transport === 'flight') fx.emu.flight!.fault({ kind: 'slow', afterBatches: 2, latencyMs: 600_000 });
    else {
      // This test's job alone: a page that an earlier test's in-process run still had on its way (the emulator
      // shares the test's event loop) must neither take the first page's pass nor be held.
      const earlier = fx.emu.jobs.list().map((j) => j.id.replace(/[^\w-]/g, '\\$&'));
      const ours = new RegExp(`/job/(?!(?:${earlier.join('|')})/)[^/]+/results$`);
      fx.emu.faults.add({ kind: 'latency', latencyMs: 0, path: ours, times: 1 });
      fx.emu.faults.add({ kind: 'latency', latencyMs: 600_000, path: ours });
    }
  };
  const CODES: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

  it.each(
    TRANSPORTS.flatMap((t) =>
      [
        ['SIGINT', 'interrupted'],
        ['SIGTERM', 'terminated \\(SIGTERM\\)'],
        // A second signal stops dlake at once, wherever its clean-up is.
        ['SIGTERM SIGTERM', '(terminated \\(SIGTERM\\)|terminated \\(SIGTERM\\): export stopped after .*)'],
        ['SIGTERM SIGINT SIGTERM', '(terminated \\(SIGTERM\\)|interrupted)(: export stopped after .*)?'],
      ].map(([s, w]) => [t, s, w] as const),
    ),
  )(
    'over %s, %s mid-export: its exit code, one error line, no FILE and no partial file nothing describes',
    async (transport, signals, words) => {
      slow(transport);
      const out = join(dir, 'rows.csv');
      // Rows of kilobytes: each batch (each page) reaches the file as it comes.
      const child = startDlake(
        ['sql', WIDE_ALL, '--out', out, '--transport', transport, '--concurrency', '1'],
        { env: env() },
      );
      await until(
        () => existsSync(`${out}.partial`) && readFileSync(`${out}.partial`).length > 0,
        'rows arrive',
      );
      const sent = String(signals).split(' ') as NodeJS.Signals[];
      // One after the other, as a CI runner's stop and then its kill would (the kernel merges a signal sent
      // again before the first is handled).
      for (const [k, s] of sent.entries()) {
        if (k > 0) await new Promise((r) => setTimeout(r, 20));
        child.kill(s);
      }
      const r = await child.done;
      // A signal that comes once dlake has finished its clean-up, as it exits, ends it by that signal: the
      // shell then shows 128 + its number, as for the exit code.
      const code = r.code ?? (r.signal ? 128 + osConstants.signals[r.signal] : undefined);
      expect(
        sent.map((s) => CODES[s]),
        r.stderr,
      ).toContain(code);
      const errors = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
      expect(errors, r.stderr).toHaveLength(1);
      expect(errors[0]).toMatch(new RegExp(`^error: ${words}`));
      if (sent.length === 1)
        expect(errors[0]).toMatch(/: export stopped after [\d,]+ rows; .*rows\.csv was not written/);
      const left = readdirSync(dir).sort();
      // REST may keep FILE.partial for --resume, always with the sidecar that describes it; nothing else stays.
      if (transport === 'flight') expect(left).toEqual([]);
      else expect([[], ['rows.csv.partial', 'rows.csv.partial.json']]).toContainEqual(left);
    },
  );

  it.each(TRANSPORTS)(
    'over %s, `--out -` into a pipe its reader closes: exit 0, no error line',
    async (transport) => {
      const child = spawn(
        process.execPath,
        [BIN, 'sql', QUERIES.big, '--out', '-', '--transport', transport, '--format', 'ndjson'],
        {
          env: cleanEnv(env()),
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      // `| head -c 1000`: the reader takes a little and goes.
      let got = 0;
      child.stdout.on('data', (d: Buffer) => {
        got += d.length;
        if (got > 1000) child.stdout.destroy();
      });
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(got).toBeGreaterThan(1000);
      expect(stderr).not.toMatch(/^error:/m);
      expect(code, stderr).toBe(0);
    },
  );

  it.skipIf(!canMountTmpfs())(
    "the shell's \\o onto a full disk, over REST and Flight: one error line, no FILE, the shell goes on",
    async () => {
      const disk = join(dir, 'disk');
      mkdirSync(disk);
      mountTmpfs([disk], 'size=16k');
      const sh = startPty(['sql'], env());
      try {
        await sh.waitFor(/dlake>$/);
        for (const transport of TRANSPORTS) {
          const out = join(disk, `${transport}.csv`);
          sh.type(`\\o ${out} --transport ${transport}${KEY.enter}`);
          await sh.waitFor(`The next result goes to ${out}`);
          sh.type(`${QUERIES.big};${KEY.enter}`);
          await sh.waitFor(/was not written\s*\ndlake>$/);
          const screen = sh.screen();
          // The screen wraps long lines: read them whole.
          const tail = screen
            .slice(screen.lastIndexOf(`${QUERIES.big};`))
            .replace(/\n(?!error:|dlake>)/g, '');
          expect(tail.match(/error: /g), tail).toHaveLength(1);
          expect(tail).toMatch(
            /error: cannot write .*\.partial: no space left on the device: export stopped after/,
          );
          expect(existsSync(out)).toBe(false);
          for (const f of readdirSync(disk)) rmSync(join(disk, f));
        }
        sh.type(`\\q${KEY.enter}`);
        expect(await sh.exited).toBe(0);
      } finally {
        sh.kill();
        unmount([disk]);
      }
    },
  );

  it.each(TRANSPORTS)(
    "the shell's \\o over %s: CSV and NDJSON byte for byte the REST export",
    async (transport) => {
      const sh = startPty(['sql'], env());
      try {
        await sh.waitFor(/dlake>$/);
        for (const ext of ['csv', 'ndjson'] as const) {
          const out = join(dir, `shell.${ext}`);
          sh.type(`\\o ${out} --transport ${transport}${KEY.enter}`);
          await sh.waitFor(`The next result goes to ${out}`);
          sh.type(`${QUERIES.wide};${KEY.enter}`);
          await sh.waitFor(new RegExp(`wrote 1,500 rows to .*shell\\.${ext}[\\s\\S]*dlake>$`));
          expect(((await contents(out, ext)) as Buffer).equals(reference.get(`wide.${ext}`) as Buffer)).toBe(
            true,
          );
        }
        sh.type(`\\q${KEY.enter}`);
        expect(await sh.exited).toBe(0);
      } finally {
        sh.kill();
      }
    },
  );
});
