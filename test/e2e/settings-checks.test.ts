// Settings and values are checked before anything is sent (docs/cli-contract.md "Global options, environment
// and precedence", "Human units"): a bad value from the environment or the profile is a usage error (exit 2)
// as a bad flag is, and the request log shows that nothing reached the service.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectFailure, useFixture } from '../helpers/fixture.js';

const fx = useFixture();

const sent = () => fx.emu.log.entries.map((e) => `${e.method} ${e.path}`);

describe('a setting from the environment is checked before the first request', () => {
  it('DLAKE_OUTPUT=xml: queue create creates nothing, catalog delete deletes nothing (exit 2)', async () => {
    const create = await fx.run(['queue', 'create', '--name', 'never'], { env: { DLAKE_OUTPUT: 'xml' } });
    expectFailure(create, 2, 'DLAKE_OUTPUT: unknown output format "xml"');
    expect(sent()).toEqual([]);
    expect((await fx.run(['queue', 'get', 'never'])).code).toBe(4);

    const made = await fx.run(['api', 'POST', 'catalog', '--data', '{"entityType":"space","name":"Keep"}']);
    expect(made.code, made.stderr).toBe(0);
    fx.emu.log.clear();
    const del = await fx.run(['catalog', 'delete', 'Keep', '-y'], { env: { DLAKE_OUTPUT: 'xml' } });
    expectFailure(del, 2, 'unknown output format "xml"');
    expect(sent()).toEqual([]);
    expect((await fx.run(['catalog', 'get', 'Keep'])).code).toBe(0);
  });

  it.each([
    [{ DLAKE_TIMEOUT: '1' }, 'DLAKE_TIMEOUT: invalid duration "1": give a unit'],
    [{ DLAKE_TIMEOUT: '0' }, 'DLAKE_TIMEOUT must be longer than 0'],
    [{ DLAKE_TIMEOUT: 'soon' }, 'DLAKE_TIMEOUT: invalid duration "soon"'],
    [{ HTTPS_PROXY: 'http://[bad' }, 'HTTPS_PROXY is not a proxy URL'],
    [{ HTTP_PROXY: 'user:secret@corp-proxy' }, 'HTTP_PROXY is not a proxy URL'],
    [{ https_proxy: 'ftp://proxy' }, 'https_proxy is not a proxy URL'],
    [{ DLAKE_TOKEN: 'a\r\nb' }, 'DLAKE_TOKEN holds a control character'],
    [{ DLAKE_TOKEN: 'tok\u001b[31m' }, 'DLAKE_TOKEN holds a control character'],
  ])('%j is exit 2 naming it, nothing sent', async (env, message) => {
    const r = await fx.run(['catalog', 'ls'], { env });
    expectFailure(r, 2, message);
    expect(sent()).toEqual([]);
    // A secret is never repeated: not the token, not a proxy URL (it may carry a password).
    for (const [name, value] of Object.entries(env)) {
      if (/TOKEN|PROXY/i.test(name)) expect(r.stderr).not.toContain(value);
    }
  });

  it.each([
    [['--timeout', '1'], '--timeout: invalid duration "1": give a unit'],
    [['--timeout', '0'], '--timeout must be longer than 0'],
    [['queue', 'create', '--name', 'q', '--max-run-timeout', '15'], 'invalid duration "15": give a unit'],
    [['job', 'wait', 'x', '--timeout', '10'], 'invalid duration "10": give a unit'],
  ])('flags: %j is exit 2 asking for a unit', async (args, message) => {
    const r = await fx.run(args[0] === '--timeout' ? [...args, 'catalog', 'ls'] : args);
    expectFailure(r, 2, message);
    expect(r.stderr).toMatch(/hint: e\.g\. \d+s or \d+m|hint: e\.g\. 30s/);
    expect(sent()).toEqual([]);
  });

  it('a token with a line break on `login --token-stdin` is exit 2, nothing sent', async () => {
    const r = await fx.run(['login', '-p', 'pat-bad', '--token-stdin'], { input: 'abc\u0007def\n' });
    expectFailure(r, 2, 'the token on standard input holds a control character');
    expect(sent()).toEqual([]);
  });
});

describe('profile names that are JavaScript’s', () => {
  it.each(['valueOf', 'constructor', 'toString', 'hasOwnProperty'])(
    '%s is a profile like any other: no phantom token, no `Bearer undefined`',
    async (name) => {
      const set = await fx.run(['profile', 'set', name, '--url', fx.emu.url]);
      expect(set.code, set.stderr).toBe(0);
      const who = await fx.run(['whoami', '-p', name, '-o', 'json']);
      expect(who.code, who.stderr).toBe(0);
      expect(who.stdout).not.toContain('undefined');
      const ls = await fx.run(['catalog', 'ls', '-p', name]);
      expectFailure(ls, 3, `not logged in (profile "${name}")`);
      expect(sent()).toEqual([]);

      const login = await fx.login(undefined, name);
      expect(login.code, login.stderr).toBe(0);
      const ok = await fx.run(['catalog', 'ls', '-p', name]);
      expect(ok.code, ok.stderr).toBe(0);
      expect(fx.emu.log.entries.every((e) => e.authScheme !== 'other' && e.status < 400)).toBe(true);
      expect((await fx.run(['profile', 'delete', name, '-y'])).code).toBe(0);
    },
  );

  it.each(['__proto__', '_x', 'a b'])('%j is refused at profile set and at login (exit 2)', async (name) => {
    expectFailure(await fx.run(['profile', 'set', name, '--url', fx.emu.url]), 2, 'invalid profile name');
    expectFailure(await fx.run(['profile', 'set', '', '--url', fx.emu.url]), 2, 'invalid profile name');
    const login = await fx.run(['login', '-p', name, '-u', 'admin', '--password-stdin'], { input: 'x\n' });
    expect(login.code, login.stderr).toBe(2);
    expect(sent()).toEqual([]);
    expect(Object.keys(fx.readJson('config.json').profiles)).not.toContain(name);
  });
});

describe('values the service or the user gets wrong', () => {
  it('a rowCount below 0 from the service is exit 7', async () => {
    const r0 = await fx.run(['sql', 'SELECT 1 AS x', '--no-wait', '-q']);
    expect(r0.code, r0.stderr).toBe(0);
    const id = r0.stdout.trim();
    fx.emu.fault({
      kind: 'schema',
      path: /\/results$/,
      times: 1,
      body: { rowCount: -1, schema: [], rows: [] },
    });
    const r = await fx.run(['job', 'results', id]);
    expectFailure(r, 7, /rowCount: expected 0 or more, not -1/);
    fx.emu.fault({
      kind: 'schema',
      path: /\/api\/v3\/job\/[^/]+$/,
      times: 1,
      body: { jobState: 'COMPLETED', rowCount: -5 },
    });
    const status = await fx.run(['job', 'get', id]);
    expectFailure(status, 7, /rowCount/);
    fx.emu.faults.clear();
  });

  it('reflection create --display a,a,A refuses the duplicate before anything is sent', async () => {
    const r = await fx.run(['reflection', 'create', 'Sales/orders', '--type', 'raw', '--display', 'a,a,A']);
    expectFailure(r, 2, '--display: field "a" is given twice');
    const m = await fx.run([
      'reflection',
      'create',
      'S/o',
      '--type',
      'aggregation',
      '--measure',
      'x:SUM,X:COUNT',
    ]);
    expectFailure(m, 2, '--measure: field "X" is given twice (as "x")');
    expect(sent()).toEqual([]);
  });

  it('pull --dir FILE says the path is a file, before anything is read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dlake-pull-'));
    try {
      const file = join(dir, 'defs');
      writeFileSync(file, 'keep');
      const r = await fx.run(['pull', '--dir', file]);
      expectFailure(r, 2, `--dir ${file} is a file, not a folder`);
      expect(sent()).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
