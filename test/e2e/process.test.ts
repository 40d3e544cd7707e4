// What only a real process shows, through the built bundle (bin/dlake.js → dist/): the exit code a shell sees,
// data on stdout and everything else on stderr, `--version` answered before anything is loaded. Command
// behaviour is tested in-process (test/helpers/in-process.ts); signals in signals.test.ts, cross-process
// locking in store-*.test.ts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectFailure, type Fixture, startFixture } from '../helpers/fixture.js';

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
  expect(
    (await fx.spawn(['login', '-u', 'admin', '--password-stdin'], { input: 'admin-pass-1\n' })).code,
  ).toBe(0);
});
afterAll(() => fx.close());

it('--version prints the version alone', async () => {
  const r = await fx.spawn(['--version']);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  expect(r.stderr).toBe('');
});

it('data goes to stdout and notices to stderr; the exit code is the contract', async () => {
  const ok = await fx.spawn(['catalog', 'ls', '-o', 'json']);
  expect(ok.code, ok.stderr).toBe(0);
  expect(Array.isArray(JSON.parse(ok.stdout))).toBe(true);
  const created = await fx.spawn(['catalog', 'create', '--file', '-', '-o', 'json'], {
    input: '{"entityType": "space", "name": "ProcessSpace"}',
  });
  expect(created.code, created.stderr).toBe(0);
  expect(JSON.parse(created.stdout).name).toBe('ProcessSpace');
  expect(created.stderr).toContain('Created space ProcessSpace.');
  expectFailure(await fx.spawn(['catalog', 'get', 'NoSuchSpace']), 4, 'NoSuchSpace');
  expectFailure(
    await fx.spawn(['catalog', 'ls', '--no-such-option']),
    2,
    "unknown option '--no-such-option'",
  );
});
