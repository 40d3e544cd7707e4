// The admin's day as docs/guide.md "Operating the service" tells it: what ran (job list, never listing its own
// query, a table at 80 columns, every row whole when piped), what failed overnight and why (job why, job get and
// job profile of a job the service keeps only the history row of), typos refused, one wording of not-found,
// a listing taller than the terminal paged, and top at 80×24 on the alternate screen.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/runtime.js';
import { expectFailure, startFixture, useFixture } from '../helpers/fixture.js';
import { startPty } from '../helpers/pty.js';
import { until } from '../helpers/until.js';

const fx = useFixture({ jobHistory: 200 });

interface Job {
  id: string;
  state: string;
  query: string | null;
  error: string | null;
}
const jobs = async (...args: string[]): Promise<Job[]> => {
  const r = await fx.run(['job', 'list', ...args, '-o', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Job[];
};

/** stdout of a run whose stdout is a terminal of `columns` columns. */
async function onTerminal(args: string[], columns: number): Promise<{ stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const sink = (keep: (s: string) => void) =>
    new Writable({
      write(chunk, _e, done) {
        keep(String(chunk));
        done();
      },
    });
  const out = Object.assign(
    sink((s) => {
      stdout += s;
    }),
    { isTTY: true, columns, rows: 1000 },
  );
  const err = sink((s) => {
    stderr += s;
  });
  const env = { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url, NO_COLOR: '1', PAGER: '' };
  const streams = {
    stdin: Readable.from([]) as unknown as NodeJS.ReadStream,
    stdout: out as unknown as NodeJS.WriteStream,
    stderr: err as unknown as NodeJS.WriteStream,
  };
  const code = await runCli(['node', 'dlake', ...args], { env, streams });
  expect(code, stderr).toBe(0);
  return { stdout, stderr };
}

describe('job list', () => {
  it('never lists its own query, nor an earlier one of dlake; --text finds the job searched for', async () => {
    const mine = await fx.run(['sql', 'SELECT 42 AS orders_total_by_region']);
    expect(mine.code, mine.stderr).toBe(0);
    await jobs();
    await jobs();
    const all = await jobs('--limit', '500');
    expect(all.filter((j) => /sys\.jobs|dlake: job history/.test(j.query ?? ''))).toEqual([]);
    const found = await jobs('--text', 'orders_total_by_region', '--limit', '1');
    expect(found.map((j) => j.query)).toEqual(['SELECT 42 AS orders_total_by_region']);
    // The listing query itself is in the emulator's job store, marked, and left out by the service's filter.
    const reads = fx.emu.jobs.list().filter((j) => j.sql.includes('/* dlake: job history */'));
    expect(reads.length).toBeGreaterThanOrEqual(4);
  });

  it('a typo in --status or --type is exit 2 naming the accepted values, nothing sent', async () => {
    fx.emu.log.clear();
    const status = await fx.run(['job', 'list', '--status', 'FAILD']);
    expectFailure(status, 2, '--status "FAILD" is not one of the service\'s values');
    expect(status.stderr).toMatch(/^hint: use one of: COMPLETED, FAILED, CANCELED, RUNNING, /m);
    const type = await fx.run(['job', 'list', '--type', 'restt']);
    expectFailure(type, 2, '--type "RESTT" is not one of the service\'s values');
    expect(type.stderr).toContain('UI_RUN');
    expect(fx.emu.log.find('POST', '/api/v3/sql')).toHaveLength(0);
    // Both spellings of the cancelled state, and any case, are accepted.
    expect((await fx.run(['job', 'list', '--status', 'cancelled,failed', '--type', 'jdbc'])).code).toBe(0);
  });

  it('on an 80-column terminal: a table (short ids, the query taking the rest); --wide and pipes get it all', async () => {
    const long = `SELECT 1 AS a_rather_long_column_name_to_make_the_query_wider_than_sixty_characters`;
    expect((await fx.run(['sql', long])).code).toBe(0);
    const narrow = await onTerminal(['job', 'list', '--limit', '20'], 80);
    const lines = narrow.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^JOB ID +STATE +USER +SUBMITTED +DURATION +ROWS +QUERY$/);
    expect(lines).toHaveLength(21);
    for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(80);
    expect(lines[1]).toMatch(
      /^[0-9a-f]{8} +COMPLETED +admin +\d\d-\d\d \d\d:\d\d +\S+ +1 +SELECT 1 AS a_rathe/,
    );
    expect(narrow.stderr).toContain('--wide (or -o json) shows them whole');
    const wide = await onTerminal(['job', 'list', '--limit', '1', '--wide'], 300);
    expect(wide.stdout).toMatch(
      /^JOB ID +STATE +USER +TYPE +SUBMITTED +DURATION +ROWS +QUEUE\/ENGINE +ACCEL +QUERY$/m,
    );
    expect(wide.stdout).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/m);
    // Piped: whole ids and the whole query, never cut.
    const piped = await fx.run(['job', 'list', '--limit', '1']);
    expect(piped.stdout).toContain(long);
    expect(piped.stdout).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12} /m);
  });
});

describe('what failed overnight, and why', () => {
  /** A failed job of the seeded history: in the job history, no longer in the service's job store. */
  let failed: Job;
  beforeAll(async () => {
    failed = (await jobs('--status', 'FAILED', '--since', '24h', '--limit', '1'))[0]!;
    expect(failed).toBeDefined();
    expect(fx.emu.jobs.get(failed.id)).toBeUndefined();
  });

  it('job why explains it from its history row, saying what is missing; a short id is taken', async () => {
    const r = await fx.run(['job', 'why', failed.id.slice(0, 8)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^id +${failed.id}$`, 'm'));
    expect(r.stdout).toMatch(/^state +FAILED$/m);
    expect(r.stdout).toMatch(/^queue +\S/m);
    expect(r.stdout).toMatch(/^executing +\S/m);
    expect(r.stdout).toMatch(/^error +\S/m);
    expect(r.stdout).toMatch(
      /^not known +the service no longer keeps this job, only its row of the job history/m,
    );
    const json = JSON.parse((await fx.run(['job', 'why', failed.id, '-o', 'json'])).stdout);
    expect(json).toMatchObject({ id: failed.id, state: 'FAILED', reflections: [], error: failed.error });
    expect(json.missing).toContain('without the reflections');
  });

  it('job get shows its history row with the same note; job profile says why there is none', async () => {
    const get = await fx.run(['job', 'get', failed.id]);
    expect(get.code, get.stderr).toBe(0);
    expect(get.stderr).toContain(
      'note: the service no longer keeps this job, only its row of the job history',
    );
    expect(get.stdout).toMatch(/^state +FAILED$/m);
    const profile = await fx.run(['job', 'profile', failed.id]);
    expectFailure(profile, 4, `the service has no profile of job ${failed.id} (FAILED, submitted `);
    // The hint leads on, never back to the listing the job came from.
    expect(profile.stderr).toContain(`hint: \`dlake job why ${failed.id}\` explains it from its history row`);
  });

  it('a job neither the store nor the history has: one wording, from every command', async () => {
    const unknown = '11111111-2222-4333-8444-555555555555';
    for (const verb of ['why', 'get', 'profile']) {
      const r = await fx.run(['job', verb, unknown]);
      expectFailure(r, 4, `not found: job ${unknown}`);
      expect(r.stderr, verb).toContain('hint: it is in neither the job store nor the job history');
    }
    expectFailure(await fx.run(['job', 'why', 'zzzzzzzz']), 2, '"zzzzzzzz" is not a job id');
  });
});

describe("a job past the job store's retention", () => {
  it('answers 404 by id, stays in the history, and is explained from its row as the seeded ones are', async () => {
    // The job store keeps a job an hour after it ended (the service: jobs.max.age_in_days); the clock is moved,
    // never waited for.
    const kept = await startFixture({ jobRetentionMs: 60 * 60_000 });
    try {
      expect((await kept.login()).code).toBe(0);
      const id = (await kept.run(['sql', 'SELECT 42 AS answer', '--no-wait'])).stdout.trim();
      await until(() => kept.emu.jobs.get(id)?.state === 'COMPLETED', 'the job completes');
      const fresh = await kept.run(['job', 'get', id]);
      expect([fresh.code, fresh.stderr]).toEqual([0, '']);
      kept.emu.state.clockOffsetMs += 61 * 60_000;
      expect(kept.emu.jobs.get(id)).toBeUndefined();
      kept.emu.log.clear();
      const get = await kept.run(['job', 'get', id]);
      expect(get.code, get.stderr).toBe(0);
      expect(get.stderr).toContain(
        'note: the service no longer keeps this job, only its row of the job history',
      );
      expect(get.stdout).toMatch(/^state +COMPLETED$/m);
      expect(kept.emu.log.find('GET', `/api/v3/job/${id}`).map((e) => e.status)).toEqual([404]);
      const why = JSON.parse((await kept.run(['job', 'why', id, '-o', 'json'])).stdout);
      expect(why).toMatchObject({ id, state: 'COMPLETED', error: null });
      expectFailure(await kept.run(['job', 'profile', id]), 4, `the service has no profile of job ${id}`);
      const listed = JSON.parse(
        (await kept.run(['job', 'list', '--text', '42 AS answer', '-o', 'json'])).stdout,
      );
      expect(listed.map((j: Job) => j.id)).toEqual([id]);
    } finally {
      await kept.close();
    }
  });
});

describe('job list taller than the terminal', () => {
  /** A pager that says it was run and how many lines it was given, in place of the text. */
  let dir: string;
  let pager: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'dlake-pager-'));
    pager = join(dir, 'pager.sh');
    writeFileSync(pager, '#!/bin/sh\necho "PAGED $(wc -l) lines, LESS=$LESS"\n', { mode: 0o755 });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const env = () => ({ DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url, DLAKE_PAGER: pager });

  /** `job list ARGS` on an 80×24 terminal: the screen once it exited, and its exit code. */
  const onScreen = async (args: string[], extra: Record<string, string> = {}) => {
    const t = startPty(['job', 'list', ...args], { ...env(), ...extra }, { cols: 80, rows: 24 });
    const code = await t.exited;
    await t.waitFor(/\S/);
    return { code, screen: t.screen() };
  };

  it('goes through DLAKE_PAGER on a terminal (LESS=FRX when unset), as git and gh page theirs', async () => {
    const paged = await onScreen([]);
    expect(paged.code).toBe(0);
    // The 50 rows and the header went to the pager, not to the screen.
    expect(paged.screen).toMatch(/^PAGED 51 lines, LESS=FRX$/m);
    expect(paged.screen).not.toMatch(/COMPLETED|FAILED/);
  });

  it('never when it fits, with --no-pager, -o json, in CI, or piped', async () => {
    const cases = [
      [['--limit', '5'], {}],
      [['--no-pager'], {}],
      [['-o', 'json'], {}],
      [[], { CI: 'true' }],
    ] as const;
    // The five processes at once: each mostly waits for its query's job.
    const [piped, ...shown] = await Promise.all([
      fx.spawn(['job', 'list'], { env: { DLAKE_PAGER: pager } }),
      ...cases.map(([args, extra]) => onScreen([...args], extra)),
    ]);
    for (const [k, [args]] of cases.entries()) {
      const r = shown[k]!;
      expect(r.code).toBe(0);
      expect(r.screen, args.join(' ')).not.toContain('PAGED');
      expect(r.screen, args.join(' ')).toMatch(/COMPLETED|FAILED|CANCELED/);
    }
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).not.toContain('PAGED');
    expect(piped.stdout.trim().split('\n')).toHaveLength(51);
  });
});

describe('top at 80×24', () => {
  it('shows the running job with its query on the alternate screen, and gives the screen back on q', async () => {
    const id = (await fx.run(['sql', 'SELECT /* sleep:600000 */ 7 AS n', '--no-wait'])).stdout.trim();
    await until(() => fx.emu.jobs.get(id)?.state === 'RUNNING', 'the job runs');
    const top = startPty(
      ['top', '--interval', '300ms'],
      { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url },
      {
        cols: 80,
        rows: 24,
      },
    );
    await top.waitFor(`>${id.slice(0, 8)} RUNNING`);
    await top.waitFor('SELECT /* sleep:600000 */ 7 AS n');
    top.type('q');
    expect(await top.exited).toBe(0);
    expect(top.raw).toContain('\x1b[?1049h');
    expect(top.raw.lastIndexOf('\x1b[?1049l')).toBeGreaterThan(top.raw.lastIndexOf('7 AS n'));
    expect((await fx.run(['job', 'cancel', id, '-y'])).code).toBe(0);
  });
});
