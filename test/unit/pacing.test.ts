// The hosted edition's pacing (src/api/pacing.ts), its routing (src/api/roots.ts), and the progress bar's
// waiting note, on a fake clock.
import { describe, expect, it } from 'vitest';
import { describeWait, limitsOf, Pacer, paceLimits } from '../../src/api/pacing.js';
import { defaultEdition, hostedLoginUrl, relativeApiPath, routePath } from '../../src/api/roots.js';
import { ProgressBar } from '../../src/export/progress.js';

function fakeClock() {
  let t = 0;
  const slept: number[] = [];
  return {
    now: () => t,
    sleep: async (ms: number) => {
      slept.push(ms);
      t += ms;
    },
    advance: (ms: number) => {
      t += ms;
    },
    slept,
  };
}

describe('Pacer', () => {
  it('keeps each limit at 80% of its published value per window', async () => {
    const clock = fakeClock();
    const pacer = new Pacer(paceLimits({}), clock.now, clock.sleep);
    // 100 status calls per minute published: 80 go at once, the 81st waits for the first to leave the window.
    for (let i = 0; i < 80; i++) await pacer.take('/v0/projects/p/job/j');
    expect(clock.slept).toEqual([]);
    await pacer.take('/v0/projects/p/job/j');
    expect(clock.slept).toEqual([60_000]);
    // Results pages count against their own limit, not the status one.
    for (let i = 0; i < 100; i++) await pacer.take('/v0/projects/p/job/j/results');
    expect(clock.slept).toHaveLength(1);
  });

  it('reads DLAKE_RATE_LIMITS and tells listeners about waits', async () => {
    const clock = fakeClock();
    const pacer = new Pacer(paceLimits({ DLAKE_RATE_LIMITS: 'results=10,per=1s' }), clock.now, clock.sleep);
    const events: unknown[] = [];
    pacer.onWait((e) => events.push(e));
    for (let i = 0; i < 9; i++) await pacer.take('/v0/projects/p/job/j/results');
    expect(events).toEqual([{ limit: 'results', waitMs: 1000 }, { done: true }]);
    expect(pacer.waitedMs).toBe(1000);
    expect(() => paceLimits({ DLAKE_RATE_LIMITS: 'results=x' })).toThrow(/DLAKE_RATE_LIMITS/);
  });

  it('holds a limit back after a 429 until its Retry-After, and only that limit', async () => {
    const clock = fakeClock();
    const pacer = new Pacer(paceLimits({}), clock.now, clock.sleep);
    pacer.hold('/v0/projects/p/job/j/results', 3000);
    await pacer.take('/v0/projects/p/catalog');
    expect(clock.slept).toEqual([]);
    await pacer.take('/v0/projects/p/job/j/results');
    expect(clock.slept).toEqual([3000]);
  });

  it('sorts paths into limits', () => {
    expect(limitsOf('/v0/projects/p/job/j')).toEqual(['api', 'status']);
    expect(limitsOf('/v0/projects/p/job/j/cancel')).toEqual(['api', 'cancel']);
    expect(limitsOf('/v0/projects/p/catalog')).toEqual(['api']);
    expect(describeWait('results', 1200)).toBe("waiting 2s for the hosted edition's results-page limit");
  });
});

describe('roots', () => {
  const hosted = { edition: 'cloud' as const, projectId: 'p1' };
  it('maps project and organisation resources, and refuses what the hosted edition lacks', () => {
    expect(routePath(hosted, '/api/v3/catalog/by-path/a')).toBe('/v0/projects/p1/catalog/by-path/a');
    expect(routePath(hosted, '/api/v3/user/by-name/x')).toBe('/v0/user/by-name/x');
    expect(routePath(hosted, '/v0/projects')).toBe('/v0/projects');
    expect(routePath({ edition: 'software' }, '/api/v3/wlm/queue')).toBe('/api/v3/wlm/queue');
    expect(() => routePath(hosted, '/api/v3/wlm/queue')).toThrow('has no workload queues');
    expect(() => routePath(hosted, '/apiv2/login')).toThrow('the password login');
    expect(() => routePath({ edition: 'cloud' }, '/api/v3/sql')).toThrow('needs a project');
    expect(relativeApiPath(hosted, 'catalog')).toBe('/v0/projects/p1/catalog');
    expect(relativeApiPath({ edition: 'software' }, 'catalog')).toBe('/api/v3/catalog');
  });

  it('takes the edition and login service from the published hosts', () => {
    expect(defaultEdition('https://api.dremio.cloud')).toBe('cloud');
    expect(defaultEdition('https://API.EU.dremio.cloud/')).toBe('cloud');
    expect(defaultEdition('https://lake.example.com')).toBe('software');
    expect(hostedLoginUrl('https://api.dremio.cloud')).toBe('https://login.dremio.cloud');
    expect(hostedLoginUrl('https://lake.example.com')).toBeUndefined();
  });
});

describe('ProgressBar while waiting', () => {
  it('says what it waits for, and drops it once the wait is over', () => {
    const out: string[] = [];
    let t = 0;
    const bar = new ProgressBar({ write: (s) => out.push(s), columns: 120 }, 'exporting', () => t);
    bar.update(500, 10_000);
    bar.waiting(describeWait('results', 3000));
    t += 10;
    bar.update(1000, 10_000);
    expect(out.at(-1)).toContain("waiting 3s for the hosted edition's results-page limit");
    bar.waiting(undefined);
    t += 200;
    bar.update(1500, 10_000);
    expect(out.at(-1)).not.toContain('waiting');
  });
});
