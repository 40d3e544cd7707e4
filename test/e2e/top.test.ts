// `dlake top` in a real terminal (docs/cli-contract.md "Operations insight"): the running jobs refreshed, ↑/↓
// select (the selection follows its job when a refresh lists a new job above it), `c` then `y` cancels the
// selected job on the service, `q` quits with exit 0; a terminal that reports 0 columns is drawn all the same and
// quits the same.
import { beforeAll, expect, it } from 'vitest';
import { useFixture } from '../helpers/fixture.js';
import { KEY, startPty } from '../helpers/pty.js';
import { until } from '../helpers/until.js';

let env: Record<string, string>;
const fx = useFixture({ jobHistory: 50 });
beforeAll(async () => {
  env = { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url };
});

it('shows the running jobs, cancels the selected one after y, and quits on q', async () => {
  // One after the other, the emulator's clock a second on between them, so that slow_two is the newer: submitted
  // in the same millisecond, the two would tie in top's newest-first order, and a refresh could show them either
  // way round.
  const slow = fx.run(['sql', 'SELECT 1 AS slow_one /* sleep:30000 */', '-o', 'json']);
  await until(() => fx.emu.jobs.list().some((j) => j.state === 'RUNNING'), 'slow_one running');
  fx.emu.state.clockOffsetMs += 1000;
  const other = fx.run(['sql', 'SELECT 2 AS slow_two /* sleep:30000 */', '-o', 'json']);
  await until(() => fx.emu.jobs.list().filter((j) => j.state === 'RUNNING').length === 2, 'two running jobs');
  const top = startPty(['top', '--interval', '300ms'], env);
  await top.waitFor('slow_two');
  await top.waitFor('slow_one');
  // The newest first: slow_two is selected; ↓ selects slow_one, ↑ back, ↓ again.
  top.type(KEY.down);
  top.type(KEY.up);
  top.type(KEY.down);
  const target = fx.emu.jobs.list().find((j) => j.sql.includes('slow_one'))!;
  top.type('c');
  await top.waitFor(`cancel job ${target.id}? [y/N]`);
  top.type('y');
  await top.waitFor(`cancellation of job ${target.id} requested`);
  await until(() => fx.emu.jobs.get(target.id)!.state === 'CANCELED', 'the job canceled');
  expect(fx.emu.jobs.list().find((j) => j.sql.includes('slow_two'))!.state).toBe('RUNNING');
  const topQueries = () =>
    fx.emu.jobs.list().filter((j) => j.sql.startsWith('SELECT * FROM sys.jobs WHERE status NOT IN'));
  await until(() => topQueries().length >= 3, 'a few refreshes');
  top.type('q');
  expect(await top.exited).toBe(0);
  expect((await slow).code).toBe(6);
  // One query per refresh, each read with one results page, and nothing else submitted.
  const refreshes = fx.emu.jobs
    .list()
    .filter((j) => j.sql.startsWith('SELECT * FROM sys.jobs WHERE status NOT IN'));
  expect(refreshes.length).toBeGreaterThanOrEqual(2);
  expect(fx.emu.jobs.list()).toHaveLength(refreshes.length + 2);
  for (const j of refreshes) {
    const pages = fx.emu.log.entries.filter(
      (e) => e.method === 'GET' && e.path === `/api/v3/job/${j.id}/results`,
    );
    expect(pages.length).toBeLessThanOrEqual(1);
  }
  // The other job is left running: cancel it so that the file ends quickly.
  const two = fx.emu.jobs.list().find((j) => j.sql.includes('slow_two'))!;
  await fx.run(['job', 'cancel', two.id, '--yes']);
  expect((await other).code).toBe(6);
}, 60_000);

it('the selection follows its job: a new job listed above it, c and y cancel the job that was selected', async () => {
  const slow = fx.run(['sql', 'SELECT 1 AS first_job /* sleep:30000 */', '-o', 'json']);
  await until(
    () => fx.emu.jobs.list().some((j) => j.sql.includes('first_job') && j.state === 'RUNNING'),
    'first_job running',
  );
  const first = fx.emu.jobs.list().find((j) => j.sql.includes('first_job'))!;
  const top = startPty(['top', '--interval', '200ms'], env);
  await top.waitFor('first_job');
  // The newest first: a job submitted a second later is listed above the one selected, on the first row.
  fx.emu.state.clockOffsetMs += 1000;
  const later = fx.run(['sql', 'SELECT 2 AS newer_job /* sleep:30000 */', '-o', 'json']);
  await top.waitFor('newer_job');
  const lines = top.screen().split('\n');
  expect(lines.findIndex((l) => l.includes('newer_job'))).toBeLessThan(
    lines.findIndex((l) => l.includes('first_job')),
  );
  expect(lines.find((l) => l.includes('first_job'))!.startsWith('>')).toBe(true);
  expect(lines.find((l) => l.includes('newer_job'))!.startsWith('>')).toBe(false);
  top.type('c');
  await top.waitFor(/cancel job \S+\? \[y\/N\]/);
  expect(top.screen()).toContain(`cancel job ${first.id}? [y/N]`);
  top.type('y');
  await top.waitFor(/cancellation of job \S+ requested/);
  expect(top.screen()).toContain(`cancellation of job ${first.id} requested`);
  const newer = fx.emu.jobs.list().find((j) => j.sql.includes('newer_job'))!;
  const cancels = fx.emu.log.entries.filter((e) => e.method === 'POST' && e.path.endsWith('/cancel'));
  expect(cancels.map((e) => e.path)).toEqual([`/api/v3/job/${first.id}/cancel`]);
  await until(() => fx.emu.jobs.get(first.id)!.state === 'CANCELED', 'the selected job canceled');
  expect(fx.emu.jobs.get(newer.id)!.state).toBe('RUNNING');
  top.type('q');
  expect(await top.exited).toBe(0);
  expect((await slow).code).toBe(6);
  await fx.run(['job', 'cancel', newer.id, '--yes']);
  expect((await later).code).toBe(6);
}, 60_000);

it('a terminal of 0 columns: drawn, and q quits', async () => {
  const top = startPty(['top', '--interval', '200ms'], env, { cols: 0, rows: 10 });
  await top.waitFor('dlake top:');
  top.type('n');
  top.type('q');
  expect(await top.exited).toBe(0);
}, 30_000);

it.each([
  ['SIGTERM', 143],
  ['SIGHUP', 129],
  ['SIGINT', 130],
] as const)(
  '%s: the cursor shown again and the exit code of the signal',
  async (signal, code) => {
    const top = startPty(['top', '--interval', '30d'], env);
    await top.waitFor('dlake top:');
    top.kill(signal);
    expect(await top.exited).toBe(code);
    // The last cursor command written shows it.
    expect(top.raw.lastIndexOf('\u001b[?25h')).toBeGreaterThan(top.raw.lastIndexOf('\u001b[?25l'));
  },
  30_000,
);

it('--interval 30d waits (a timer holds at most 24.8 days): one refresh, not one after another', async () => {
  const queries = () =>
    fx.emu.jobs.list().filter((j) => j.sql.startsWith('SELECT * FROM sys.jobs WHERE status NOT IN')).length;
  const before = queries();
  const top = startPty(['top', '--interval', '30d'], env);
  await top.waitFor('dlake top:');
  // A key redraws the screen without a refresh: once it shows, the first refresh is long done.
  top.type('j');
  top.type('q');
  expect(await top.exited).toBe(0);
  expect(top.raw).not.toContain('TimeoutOverflowWarning');
  expect(queries() - before).toBe(1);
}, 30_000);

it('lines cut by the columns a terminal shows: wide characters take two', async () => {
  const wide = fx.run(['sql', `SELECT '${'漢'.repeat(60)}' AS wide /* sleep:30000 */`, '-o', 'json']);
  await until(
    () => fx.emu.jobs.list().some((j) => j.state === 'RUNNING' && j.sql.includes('漢')),
    'the job runs',
  );
  const top = startPty(['top', '--interval', '30d'], env, { cols: 100, rows: 30 });
  await top.waitFor('漢');
  // The row fits the screen's line, ending in the cut's mark, with nothing wrapped onto the next line.
  const row = top
    .screen()
    .split('\n')
    .find((l) => l.includes('漢'))!;
  expect(row.endsWith('…')).toBe(true);
  const next = top.screen().split('\n')[top.screen().split('\n').indexOf(row) + 1] ?? '';
  expect(next).not.toContain('漢');
  top.type('q');
  expect(await top.exited).toBe(0);
  const id = fx.emu.jobs.list().find((j) => j.sql.includes('漢'))!.id;
  await fx.run(['job', 'cancel', id, '--yes']);
  expect((await wide).code).toBe(6);
}, 30_000);
