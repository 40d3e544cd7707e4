// Faults armed from the command line: `dlake-emulator --fault WHAT:[METHOD:]PATH[:TIMES]`.
import { afterAll, describe, expect, it } from 'vitest';
import { parseFaultFlag } from '../src/faults.js';
import { type EmulatorProcess, runEmulatorCommand, startEmulatorCommand } from './command.js';

describe('parseFaultFlag', () => {
  it.each([
    ['503:/api/v3/job:3', { kind: 'status', status: 503, path: '/api/v3/job', times: 3 }],
    ['503:/api/v3/job', { kind: 'status', status: 503, path: '/api/v3/job' }],
    [
      '429@2:POST:/api/v3/sql:1',
      { kind: 'status', status: 429, retryAfter: 2, method: 'POST', path: '/api/v3/sql', times: 1 },
    ],
    ['latency@1500:/api/v3/catalog', { kind: 'latency', latencyMs: 1500, path: '/api/v3/catalog' }],
    ['reset:GET:/', { kind: 'reset', method: 'GET', path: '/' }],
    ['truncate:/api/v3/job:1', { kind: 'truncate', path: '/api/v3/job', times: 1 }],
    ['html:/', { kind: 'html', path: '/' }],
    ['schema:/api/v3/catalog', { kind: 'schema', path: '/api/v3/catalog' }],
    ['malformed:/api/v3/user', { kind: 'malformed', path: '/api/v3/user' }],
  ])('%s', (flag, spec) => {
    expect(parseFaultFlag(flag)).toEqual(spec);
  });

  it.each([
    ['', /the path must start with "\/"/],
    ['503', /the path must start with "\/"/],
    ['503:api/v3/job', /the path must start with "\/"/],
    ['503:GET', /the path must start with "\/"/],
    ['200:/api', /the status must be from 400 to 599, got 200/],
    ['999:/api', /the status must be from 400 to 599, got 999/],
    ['503:/api:0', /TIMES must be a positive integer, got "0"/],
    ['503:/api:two', /TIMES must be a positive integer, got "two"/],
    ['503:/api:1:2', /too many ":"-separated parts/],
    ['latency:/api', /latency@MS must be an integer from 0 to 600000, got ""/],
    ['latency@-5:/api', /latency@MS must be an integer/],
    ['429@soon:/api', /Retry-After seconds must be an integer/],
    ['reset@3:/api', /reset takes no "@" value/],
    ['503@1@2:/api', /has more than one "@"/],
    ['boom:/api', /unknown fault "boom"/],
    ['get:/api', /unknown fault "get"/],
  ])('rejects %j', (flag, message) => {
    expect(() => parseFaultFlag(flag)).toThrow(message);
    expect(() => parseFaultFlag(flag)).toThrow(/expected WHAT:\[METHOD:\]PATH\[:TIMES\]/);
  });
});

describe('dlake-emulator --fault', () => {
  let emu: EmulatorProcess | undefined;
  afterAll(async () => {
    await emu?.stop();
  });

  it('arms the faults it was given, says so at start, and counts them down', async () => {
    emu = await startEmulatorCommand([
      '--port',
      '0',
      '--fault',
      '503:/api/v3/catalog:2',
      '--fault',
      '429@7:POST:/api/v3/sql:1',
    ]);
    expect(emu.stdout()).toContain('Faults armed:\n  503 on /api/v3/catalog*, 2 time(s)\n');
    expect(emu.stdout()).toContain('  429 (Retry-After: 7) on POST /api/v3/sql*, 1 time(s)\n');
    const get = (path: string) => fetch(`${emu!.url}${path}`);
    expect((await get('/api/v3/catalog')).status).toBe(503);
    const second = await get('/api/v3/catalog/by-path/Samples');
    expect(second.status).toBe(503);
    expect(await second.json()).toEqual({ errorMessage: 'Injected 503', moreInfo: '' });
    // Used up: the catalog answers as it always does (no login here, so 401).
    expect((await get('/api/v3/catalog')).status).toBe(401);
    // The method must match too.
    expect((await get('/api/v3/sql')).status).not.toBe(429);
    const post = await fetch(`${emu.url}/api/v3/sql`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(429);
    expect(post.headers.get('retry-after')).toBe('7');
    expect((await fetch(`${emu.url}/api/v3/sql`, { method: 'POST', body: '{}' })).status).toBe(401);
    expect(await emu.stop()).toBe(0);
    emu = undefined;
  });

  it('refuses a bad --fault with one line naming it and exit code 2, before listening', async () => {
    const r = await runEmulatorCommand(['--port', '0', '--fault', '503:/api:0']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      'emulator: --fault "503:/api:0": TIMES must be a positive integer, got "0" (expected WHAT:[METHOD:]PATH[:TIMES], e.g. 503:/api/v3/job:3)',
    );
    expect(r.stdout).toBe('');
  });

  it('documents --fault in its help', async () => {
    const r = await runEmulatorCommand(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--fault WHAT:[METHOD:]PATH[:TIMES]');
    expect(r.stdout).toContain('e.g. --fault 503:/api/v3/job:3');
  });
});
