// Pacing within the hosted edition's rate limits (docs/api-facts.md §13.5), with the limits lowered to a
// one-second window on both sides so that a 100-page export meets them many times over in a few seconds.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Fixture, startFixture } from '../helpers/fixture.js';

const PID = '31111111-2222-4333-8444-555555555555';
const ROWS = 52_000; // 104 pages of 500
const LIMITS = { results: 40, status: 20, cancel: 20, api: 2000 };
let fx: Fixture;
let dir: string;

beforeAll(async () => {
  fx = await startFixture({
    edition: 'cloud',
    bigRows: ROWS,
    cloud: { projectId: PID, rateLimits: LIMITS, rateWindowMs: 1000 },
  });
  const token = fx.emu.state.issueToken(fx.emu.state.userByName('admin')!.id, 'pat', 3_600_000).token;
  const r = await fx.run(['--edition', 'cloud', '--project-id', PID, 'login', '--token-stdin'], {
    input: `${token}\n`,
  });
  expect(r.code, r.stderr).toBe(0);
  dir = mkdtempSync(join(tmpdir(), 'dlake-hosted-pacing-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await fx.close();
});
beforeEach(() => {
  fx.emu.log.clear();
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
