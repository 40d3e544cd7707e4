// The hosted edition's pacing (src/api/pacing.ts), its routing (src/api/roots.ts), and the progress bar's
// waiting note, on a fake clock.
import { describe, expect, it } from 'vitest';
import { hostedOnly, organisationResource, type Target, v3 } from '../../src/api/endpoint.js';
import { describeWait, limitsOf, Pacer, paceLimits } from '../../src/api/pacing.js';
import {
  defaultEdition,
  hostedLoginUrl,
  type Root,
  relativeApiPath,
  routeTarget,
} from '../../src/api/roots.js';
import { InterruptedError, UsageError } from '../../src/errors.js';
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
    for (let i = 0; i < 80; i++) await pacer.take('status');
    expect(clock.slept).toEqual([]);
    await pacer.take('status');
    expect(clock.slept).toEqual([60_000]);
    // Results pages count against their own limit, not the status one.
    for (let i = 0; i < 100; i++) await pacer.take('results');
    expect(clock.slept).toHaveLength(1);
  });

  it('reads DLAKE_RATE_LIMITS and tells listeners about waits', async () => {
    const clock = fakeClock();
    const pacer = new Pacer(paceLimits({ DLAKE_RATE_LIMITS: 'results=10,per=1s' }), clock.now, clock.sleep);
    const events: unknown[] = [];
    pacer.onWait((e) => events.push(e));
    for (let i = 0; i < 9; i++) await pacer.take('results');
    expect(events).toEqual([{ limit: 'results', waitMs: 1000 }, { done: true }]);
    expect(pacer.waitedMs).toBe(1000);
    expect(() => paceLimits({ DLAKE_RATE_LIMITS: 'results=x' })).toThrow(/DLAKE_RATE_LIMITS/);
  });

  it.each(['results=0', 'status=0', 'api=0', 'cancel=0', 'per=0s', 'per=0', 'per=soon'])(
    'refuses DLAKE_RATE_LIMITS=%s as a usage error: a limit of 0 waits for ever, a window of 0 paces nothing',
    (value) => {
      const err = (() => {
        try {
          paceLimits({ DLAKE_RATE_LIMITS: value });
        } catch (e) {
          return e as UsageError;
        }
      })();
      expect(err).toBeInstanceOf(UsageError);
      expect(err?.exitCode).toBe(2);
      expect(err?.message).toContain(`DLAKE_RATE_LIMITS: cannot read "${value}"`);
    },
  );

  it('a signal ends a wait for a limit with an interruption (exit 130), not a failure', async () => {
    const pacer = new Pacer(paceLimits({ DLAKE_RATE_LIMITS: 'status=1,per=60s' }));
    await pacer.take('status');
    const stop = new AbortController();
    const waiting = pacer.take('status', stop.signal);
    stop.abort();
    const err = await waiting.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InterruptedError);
    expect((err as InterruptedError).exitCode).toBe(130);
  });

  it('holds a limit back after a 429 until its Retry-After, and only that limit', async () => {
    const clock = fakeClock();
    const pacer = new Pacer(paceLimits({}), clock.now, clock.sleep);
    pacer.hold('results', 3000);
    await pacer.take('api');
    expect(clock.slept).toEqual([]);
    await pacer.take('results');
    expect(clock.slept).toEqual([3000]);
  });

  it('counts every request against `api`, and a job endpoint against its own limit too', () => {
    expect(limitsOf('status')).toEqual(['api', 'status']);
    expect(limitsOf('cancel')).toEqual(['api', 'cancel']);
    expect(limitsOf('api')).toEqual(['api']);
    expect(describeWait('results', 1200)).toBe("waiting 2s for the hosted edition's results-page limit");
  });
});

describe('roots', () => {
  const hosted = { edition: 'cloud' as const, projectId: 'p1' };
  const paths = (root: Root, t: Target) => routeTarget(root, t).map((f) => f.path);
  it('puts project and organisation resources below their roots, and refuses what an edition lacks', () => {
    expect(paths(hosted, v3('catalog', 'catalog/by-path/a'))).toEqual(['/v0/projects/p1/catalog/by-path/a']);
    expect(paths(hosted, organisationResource('user', { id: 'u' }, 'u'))).toEqual([
      '/v0/users/u',
      '/v1/users/u',
    ]);
    expect(routeTarget(hosted, organisationResource('user', { name: 'b"o' }, 'b%22o'))).toEqual([
      { path: '/v0/users', filter: 'name == "b\\"o"' },
      { path: '/v1/users', filter: 'name == "b\\"o"' },
    ]);
    expect(paths({ edition: 'software' }, organisationResource('user', { name: 'bob' }, 'bob'))).toEqual([
      '/api/v3/user/by-name/bob',
    ]);
    expect(paths(hosted, hostedOnly('project', '/v0/projects', 'organisation'))).toEqual(['/v0/projects']);
    const queues = v3('queue', 'wlm/queue', { gap: 'queues' });
    expect(paths({ edition: 'software' }, queues)).toEqual(['/api/v3/wlm/queue']);
    expect(() => routeTarget(hosted, queues)).toThrow('has no workload queues');
    expect(() => routeTarget({ edition: 'software' }, hostedOnly('engine', '/engines', 'project'))).toThrow(
      'engines exist on the hosted edition only',
    );
    expect(() => routeTarget({ edition: 'cloud' }, v3('sql', 'sql'))).toThrow('needs a project');
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
