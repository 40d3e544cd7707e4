// dlake always ends: on a terminal that reports 0 columns (`script`, `docker run -t`, `ssh -tt`) the spinner
// of `sql`, `catalog tree` and `job wait` neither loops nor blocks a signal, and a signal ends dlake in bounded
// time even when the cancel request hangs (docs/cli-contract.md "Streams and formats", "Jobs, results and
// export"). Spawned in a pseudo-terminal or as a process: what is tested is the process itself. No timing is
// asserted: a process that does not end is killed by the test's bound and fails the test.
import { beforeEach, describe, expect, it } from 'vitest';
import { startDlake } from '../helpers/dlake.js';
import { expectFailure, useFixture } from '../helpers/fixture.js';
import { startPty } from '../helpers/pty.js';
import { until } from '../helpers/until.js';

const fx = useFixture();
beforeEach(() => {
  fx.emu.faults.clear();
  fx.emu.log.clear();
});

const env = () => ({ DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url });

/** The exit code, or 'hung' when the process had to be killed (the bound, not an assertion on time). */
async function ended(p: ReturnType<typeof startPty>, boundMs = 20_000): Promise<number | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => {
      p.kill('SIGKILL');
      resolve('hung');
    }, boundMs);
  });
  try {
    return await Promise.race([p.exited, hung]);
  } finally {
    clearTimeout(timer);
  }
}

const SPINNER_FRAME = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

describe('a terminal of 0, 1 or 5 columns', () => {
  // The terminals at once, up to the SIGTERM test (each test's processes are its own; none reads the emulator's
  // log or arms a fault).
  it.concurrent.each([
    [0, ['sql', 'catalog tree', 'job wait']],
    [1, ['sql']],
    [5, ['sql']],
  ])('at %i columns, %j end and print their result', async (cols, commands) => {
    const id = (await fx.run(['sql', 'SELECT 2 AS y /* sleep:600 */', '--no-wait'])).stdout.trim();
    const argsOf: Record<string, string[]> = {
      sql: ['sql', 'SELECT 1 AS x /* sleep:600 */'],
      'catalog tree': ['catalog', 'tree'],
      'job wait': ['job', 'wait', id],
    };
    // The commands at once, each on a terminal of its own.
    const ptys = commands.map((command) => startPty(argsOf[command]!, env(), { cols, rows: 30 }));
    const codes = await Promise.all(ptys.map((p) => ended(p)));
    for (const [k, command] of commands.entries()) {
      const p = ptys[k]!;
      expect(codes[k], `${command}\n${p.raw.slice(0, 2000)}`).toBe(0);
      // A spinner that cannot keep to one line is not drawn: no stream of cursor moves.
      expect(p.raw.length, command).toBeLessThan(20_000);
      expect(p.raw).not.toMatch(SPINNER_FRAME);
    }
  });

  it.concurrent('NO_COLOR turns the spinner’s colour off (a wide terminal still shows it)', async () => {
    const p = startPty(
      ['sql', 'SELECT 1 AS x /* sleep:600 */'],
      { ...env(), NO_COLOR: '1' },
      { cols: 100, rows: 30 },
    );
    expect(await ended(p)).toBe(0);
    expect(p.raw).toMatch(SPINNER_FRAME);
    expect(p.raw).not.toMatch(/\u001b\[3\dm/);
  });

  it('SIGTERM during a wait at 0 columns ends dlake with 143, the job cancelled', async () => {
    const p = startPty(['sql', 'SELECT 1 /* sleep:10000 */'], env(), { cols: 0, rows: 30 });
    await until(() => fx.emu.log.find('GET', '/api/v3/job/').length > 0, 'the wait polls');
    p.kill('SIGTERM');
    expect(await ended(p), p.raw.slice(0, 2000)).toBe(143);
    expect(p.raw).toContain('terminated (SIGTERM)');
    expect(fx.emu.log.find('POST', /\/cancel$/)).toHaveLength(1);
  });
});

describe('a signal ends dlake in bounded time', () => {
  const start = (args: string[]) => startDlake(args, { env: env(), killAfterMs: 30_000 });

  it('SIGTERM while the cancel request hangs: exit 143, naming the job that may still run', async () => {
    fx.emu.fault({ kind: 'latency', method: 'POST', path: /\/cancel$/, latencyMs: 40_000 });
    const child = start(['sql', 'SELECT 1 /* sleep:20000 */']);
    await until(() => /job [0-9a-f-]{36} submitted/.test(child.stderr), 'the job is submitted');
    const id = /job ([0-9a-f-]{36})/.exec(child.stderr)![1]!;
    await until(() => fx.emu.log.find('GET', `/api/v3/job/${id}`).length > 0, 'the wait polls');
    child.terminate();
    const r = await child.done;
    expectFailure(r, 143, `terminated (SIGTERM) while waiting for job ${id}`);
    expect(r.stderr).toContain(`could not cancel job ${id}: the cancel request did not complete within 5s`);
    expect(r.stderr).toContain(`hint: job ${id} may still be running on the service; cancel it with`);
    expect(fx.emu.log.find('POST', `/api/v3/job/${id}/cancel`)).toHaveLength(1);
  });

  it('a second Ctrl-C while the cancel request hangs: exit 130 at once, naming the job', async () => {
    fx.emu.fault({ kind: 'latency', method: 'POST', path: /\/cancel$/, latencyMs: 40_000 });
    const child = start(['sql', 'SELECT 1 /* sleep:20000 */']);
    await until(() => /job [0-9a-f-]{36} submitted/.test(child.stderr), 'the job is submitted');
    const id = /job ([0-9a-f-]{36})/.exec(child.stderr)![1]!;
    await until(() => fx.emu.log.find('GET', `/api/v3/job/${id}`).length > 0, 'the wait polls');
    child.interrupt();
    await until(() => fx.emu.log.find('POST', `/api/v3/job/${id}/cancel`).length > 0, 'the cancel is sent');
    child.interrupt();
    const r = await child.done;
    expectFailure(r, 130, 'interrupted');
    expect(r.stderr).toContain(`hint: job ${id} may still be running on the service; cancel it with`);
  });
});
