// What only a real process shows, through the built bundle (bin/dlake.js → dist/): the exit code a shell sees,
// data on stdout and everything else on stderr, `--version` answered before anything is loaded. Command
// behaviour is tested in-process (test/helpers/in-process.ts); signals in signals.test.ts, cross-process
// locking in store-*.test.ts.
import { beforeAll, expect, it } from 'vitest';
import { expectFailure, useFixture } from '../helpers/fixture.js';

const fx = useFixture({}, { login: false });
beforeAll(async () => {
  expect(
    (await fx.spawn(['login', '-u', 'admin', '--password-stdin'], { input: 'admin-pass-1\n' })).code,
  ).toBe(0);
});

it('--version prints the version, the build it came from and the Node.js that runs it', async () => {
  const r = await fx.spawn(['--version']);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(
    /^dlake version \d+\.\d+\.\d+ \(commit [0-9a-f]{7,}, \d{4}-\d\d-\d\d; npm package\)\nNode\.js v\d+\.\d+\.\d+ on \w+-\w+\n$/,
  );
  expect(r.stdout).toContain(`Node.js ${process.version} `);
  expect(r.stderr).toBe('');
  // The same through the command tree, with a global option before it.
  expect((await fx.spawn(['--debug', '--version'])).stdout).toBe(r.stdout);
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

it("a socks5:// proxy: Node's experimental-feature warning is not printed among dlake's lines", async () => {
  // Port 9 refuses: the request fails fast, after the proxy agent was made (which is when undici warns).
  const r = await fx.spawn(['catalog', 'ls', '--timeout', '1s'], {
    env: { HTTP_PROXY: 'socks5://127.0.0.1:9', HTTPS_PROXY: 'socks5://127.0.0.1:9' },
  });
  expect(r.code).toBe(7);
  expect(r.stderr).not.toMatch(/Warning|SOCKS5|trace-warnings/);
  expect(
    r.stderr
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(':')[0]),
  ).toEqual(['error', 'hint']);
});
