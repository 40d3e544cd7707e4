// Pacing within the hosted edition's rate limits (docs/api-facts.md §13.5), with the limits lowered to a
// one-second window on both sides so that a 100-page export meets them many times over in a few seconds.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDlake } from '../helpers/dlake.js';
import { expectFailure, useFixture } from '../helpers/fixture.js';
import { until } from '../helpers/until.js';

const PID = '31111111-2222-4333-8444-555555555555';
const ROWS = 52_000; // 104 pages of 500
const LIMITS = { results: 40, status: 20, cancel: 20, api: 2000 };
let dir: string;

const fx = useFixture(
  {
    edition: 'cloud',
    bigRows: ROWS,
    cloud: { projectId: PID, rateLimits: LIMITS, rateWindowMs: 1000 },
  },
  { login: false },
);
beforeAll(async () => {
  const token = fx.emu.state.issueToken(fx.emu.state.userByName('admin')!.id, 'pat', 3_600_000).token;
  const r = await fx.run(['--edition', 'cloud', '--project-id', PID, 'login', '--token-stdin'], {
    input: `${token}\n`,
  });
  expect(r.code, r.stderr).toBe(0);
  dir = mkdtempSync(join(tmpdir(), 'dlake-hosted-pacing-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  const refused = fx.emu.cloud!.limiter.refused;
  for (const k of Object.keys(refused) as Array<keyof typeof refused>) refused[k] = 0;
});

const resultsRequests = () => fx.emu.log.entries.filter((e) => e.path.endsWith('/results'));

describe('an export of 100+ pages', () => {
  it('stays within the limits it knows, with at most a few 429s', async () => {
    const out = join(dir, 'paced.ndjson');
    const r = await fx.run(['sql', 'SELECT * FROM big ORDER BY id', '--out', out, '--concurrency', '8'], {
      env: { DLAKE_RATE_LIMITS: 'results=40,status=20,cancel=20,api=2000,per=1s' },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8').trimEnd().split('\n')).toHaveLength(ROWS);
    expect(resultsRequests().length).toBeGreaterThanOrEqual(104);
    const refused = fx.emu.cloud!.limiter.refused;
    expect(refused.results + refused.status + refused.api).toBeLessThanOrEqual(3);
  });

  it('honours 429 and Retry-After when one comes anyway (another client behind the address), and completes', async () => {
    const out = join(dir, 'throttled.ndjson');
    // Three results pages answered 429 with Retry-After: 1, as if another client had used the budget.
    fx.emu.fault({ kind: 'status', status: 429, retryAfter: 1, method: 'GET', path: /\/results$/, times: 3 });
    const r = await fx.run(['sql', 'SELECT * FROM big ORDER BY id LIMIT 30000', '--out', out], {
      env: { DLAKE_RATE_LIMITS: 'results=40,status=20,cancel=20,api=2000,per=1s' },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8').trimEnd().split('\n')).toHaveLength(30_000);
    expect(resultsRequests().filter((e) => e.status === 429)).toHaveLength(3);
    // Every page was asked for until it was answered: 60 pages, and the 3 refused ones again.
    expect(resultsRequests().filter((e) => e.status === 200)).toHaveLength(60);
  });
});

describe('DLAKE_RATE_LIMITS', () => {
  it.each([
    ['results=0', 'a limit must be at least 1 request'],
    ['status=0', 'a limit must be at least 1 request'],
    ['per=0s', 'the window must be longer than 0'],
  ])('%s is a usage error (exit 2) before anything is sent', async (value, why) => {
    const r = await fx.run(['sql', 'SELECT 1', '--out', join(dir, 'never.csv')], {
      env: { DLAKE_RATE_LIMITS: value },
    });
    expectFailure(r, 2, `error: DLAKE_RATE_LIMITS: cannot read "${value}": ${why}`);
    expect(fx.emu.log.entries).toEqual([]);
  });
});

describe('a wait for a limit', () => {
  // What only a process shows: the signal, the clean-up and the exit code.
  it.each([
    ['SIGTERM', 143, 'terminated (SIGTERM)'],
    ['SIGINT', 130, 'interrupted'],
  ] as const)(
    'ends on %s with exit %i, after cancelling the job it was waiting for',
    async (signal, code, words) => {
      // One job-status request a minute: the second poll waits for the limit, and the signal comes during it.
      const child = startDlake(['sql', 'SELECT 1 /* sleep:20000 */'], {
        env: { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url, DLAKE_RATE_LIMITS: 'status=1,per=60s' },
        killAfterMs: 30_000,
      });
      await until(() => /job [0-9a-f-]{36} submitted/.test(child.stderr), 'the job is submitted');
      const id = /job ([0-9a-f-]{36})/.exec(child.stderr)![1]!;
      const polls = () => fx.emu.log.find('GET', `/v0/projects/${PID}/job/${id}`);
      await until(() => polls().length === 1, 'the first poll');
      await new Promise((r) => setTimeout(r, 300));
      child.kill(signal);
      const r = await child.done;
      expectFailure(r, code, `error: ${words} while waiting for job ${id}`);
      expect(r.stderr).not.toContain('unexpected failure');
      expect(polls()).toHaveLength(1);
      expect(fx.emu.log.find('POST', `/v0/projects/${PID}/job/${id}/cancel`)).toHaveLength(1);
      await until(() => fx.emu.jobs.get(id)?.state === 'CANCELED', 'the job is canceled');
    },
  );

  it("the cancel is not held back by dlake's own pacing when the limit every call counts against is spent", async () => {
    // Three calls a minute in all: what leads to the first poll spends them, the second poll waits for the next
    // minute, and the cancel after SIGTERM would wait behind it.
    const child = startDlake(['sql', 'SELECT 1 /* sleep:20000 */'], {
      env: { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url, DLAKE_RATE_LIMITS: 'api=3,per=60s' },
      killAfterMs: 30_000,
    });
    await until(() => /job [0-9a-f-]{36} submitted/.test(child.stderr), 'the job is submitted');
    const id = /job ([0-9a-f-]{36})/.exec(child.stderr)![1]!;
    await until(() => fx.emu.log.find('GET', `/v0/projects/${PID}/job/${id}`).length === 1, 'the first poll');
    child.kill('SIGTERM');
    const r = await child.done;
    expectFailure(r, 143, `error: terminated (SIGTERM) while waiting for job ${id}`);
    expect(r.stderr).not.toContain('could not cancel');
    expect(fx.emu.log.find('POST', `/v0/projects/${PID}/job/${id}/cancel`)).toHaveLength(1);
    await until(() => fx.emu.jobs.get(id)?.state === 'CANCELED', 'the job is canceled');
  });
});
