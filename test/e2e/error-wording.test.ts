// Errors that say the right thing: bad URLs are bad input, one spelling per service URL, one `error:` line
// then one line per invalid field, a corrupt credentials file warned about once on one line, and input
// checks before any request.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { expectFailure, useFixture } from '../helpers/fixture.js';

const fx = useFixture({}, { login: false });
beforeEach(async () => {
  for (const f of ['config.json', 'credentials.json']) writeFileSync(join(fx.configDir, f), '{}');
  fx.emu.faults.clear();
  expect((await fx.login()).code).toBe(0);
  fx.emu.log.clear();
});

describe('service URLs', () => {
  it('a URL that is not http(s): exit 2 naming where it came from, nothing sent', async () => {
    const notUrl = await fx.run(['catalog', 'ls', '--url', 'notaurl']);
    expectFailure(notUrl, 2, '--url "notaurl" is not an http(s) URL');
    const ftp = await fx.run(['catalog', 'ls'], { env: { DLAKE_URL: 'ftp://x' } });
    expectFailure(ftp, 2, 'DLAKE_URL "ftp://x" is not an http(s) URL');
    expect(notUrl.stderr + ftp.stderr).not.toContain('bug in dlake');
    expect(fx.emu.log.entries).toEqual([]);
  });

  it('DLAKE_URL with a trailing slash, upper-case scheme and host means the same service', async () => {
    const url = new URL(fx.emu.url);
    const shouted = `HTTP://${url.hostname.toUpperCase()}:${url.port}/`;
    const r = await fx.run(['catalog', 'ls', '-o', 'json'], { env: { DLAKE_URL: shouted } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // The stored token was recognised as this service's, and sent.
    expect(fx.emu.log.find('GET', '/api/v3/catalog')).toHaveLength(1);
  });

  it('a URL pasted with /api/v3 on its end is the service URL: login and every command work with it', async () => {
    writeFileSync(join(fx.configDir, 'credentials.json'), '{}');
    fx.emu.log.clear();
    const login = await fx.run(
      ['login', '-u', 'admin', '--password-stdin', '--url', `${fx.emu.url}/api/v3`],
      {
        url: false,
        input: 'admin-pass-1\n',
      },
    );
    expect(login.code, login.stderr).toBe(0);
    expect(fx.emu.log.find('POST', '/apiv2/login')).toHaveLength(1);
    expect(fx.readJson('config.json').profiles.default.url).toBe(fx.emu.url);
    const ls = await fx.run(['catalog', 'ls', '-o', 'json'], { env: { DLAKE_URL: `${fx.emu.url}/api/v3/` } });
    expect([ls.code, ls.stderr]).toEqual([0, '']);
    expect(fx.emu.log.entries.map((e) => e.path)).toEqual(['/apiv2/login', '/api/v3/catalog']);
  });

  it('the login hint after a failure keeps the --url given', async () => {
    const other = 'http://127.0.0.1:9';
    const r = await fx.run(['catalog', 'ls', '--url', `${other}/`]);
    expectFailure(r, 3, 'not logged in');
    expect(r.stderr).toContain(`hint: run \`dlake login --url ${other} -u admin\``);
    // A token the service refuses (401): the hint logs in at that URL too.
    const refused = await fx.run(['catalog', 'ls', '--url', fx.emu.url], {
      env: { DLAKE_TOKEN: 'not-a-token' },
    });
    expectFailure(refused, 3, '');
    expect(refused.stderr).toContain(`hint: log in again with \`dlake login --url ${fx.emu.url}\``);
  });

  it('login without a URL complains about the URL first, before asking for a password', async () => {
    writeFileSync(join(fx.configDir, 'config.json'), '{}');
    const r = await fx.run(['login', '-u', 'admin'], { url: false });
    expectFailure(r, 2, 'no service URL is set');
    expect(r.stderr).not.toMatch(/password/i);
  });
});

describe('error lines', () => {
  it('a validation failure: one error line, then one line per invalid field, each once', async () => {
    const file = join(fx.configDir, 'space.json');
    writeFileSync(file, JSON.stringify({ entityType: 'space', name: 'a.b' }));
    const r = await fx.run(['catalog', 'create', '--file', file]);
    expectFailure(r, 2, 'Invalid input');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('error: Invalid input');
    const fieldLines = lines.filter((l) => l.includes('name: Space name can not contain periods'));
    expect(fieldLines).toEqual(['  name: Space name can not contain periods, double quotes or @.']);
  });

  it('a corrupt credentials file: one warning, on one line, once', async () => {
    writeFileSync(join(fx.configDir, 'credentials.json'), '{"tokens": {\n  "default": \n');
    const r = await fx.run(['catalog', 'ls']);
    expect(r.code).toBe(3);
    const warnings = r.stderr.split('\n').filter((l) => l.includes('credentials.json is not valid'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^warning: .*treating every profile as logged out$/);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('error:'))).toEqual([
      'error: not logged in (profile "default"): the credentials file is not valid',
    ]);
  });

  it('a file that cannot be read is said in words, never as a bare code', async () => {
    const missing = await fx.run(['catalog', 'create', '--file', join(fx.configDir, 'nope.json')]);
    expectFailure(missing, 2, `cannot read ${join(fx.configDir, 'nope.json')}: no such file or folder`);
    const folder = await fx.run(['sql', '--file', fx.configDir]);
    expectFailure(folder, 2, `cannot read ${fx.configDir}: it is a folder, not a file`);
    expect(missing.stderr + folder.stderr).not.toMatch(/ENOENT|EISDIR/);
  });
});

describe('input checks, before any request', () => {
  it('refuses an empty tag, an e-mail address without a domain, an unknown filter value, a concurrency over 32', async () => {
    expectFailure(await fx.run(['catalog', 'tags', 'Samples', '--set', '']), 2, '--set needs a value');
    expectFailure(
      await fx.run(['user', 'create', 'bob', '--email', 'notanemail']),
      2,
      '--email "notanemail" is not an e-mail address',
    );
    expectFailure(
      await fx.run(['reflection', 'summary', '--filter', 'reflectionType=RAWW']),
      2,
      '--filter reflectionType "RAWW" is not one of: RAW, AGGREGATION',
    );
    expectFailure(
      await fx.run(['catalog', 'tree', '--concurrency', '64']),
      2,
      '--concurrency "64" is too large: at most 32',
    );
    expectFailure(
      await fx.run(['sql', 'SELECT 1', '--max-rows', '99999999999999999999']),
      2,
      '--max-rows "99999999999999999999" is too large',
    );
    expect(fx.emu.log.entries).toEqual([]);
  });
});

describe('a missing entity', () => {
  it('reads alike in every command: "not found: …", exit 4, and where to look', async () => {
    const cases: Array<[string[], string, string]> = [
      [
        ['catalog', 'get', 'Samples/nope'],
        'not found: Samples/nope',
        'see what Samples holds with: dlake catalog ls Samples',
      ],
      [['catalog', 'ls', 'Nope'], 'not found: Nope', 'list the top level with: dlake catalog ls'],
      [
        ['catalog', 'tags', 'Samples/a b/c'],
        'not found: Samples/a b/c',
        "see what Samples/a b holds with: dlake catalog ls 'Samples/a b'",
      ],
      [['source', 'get', 'nope'], 'not found: source "nope"', 'list the sources with: dlake source list'],
      [['user', 'get', 'nobody'], 'not found: user "nobody"', 'list the users with: dlake user list'],
      [['pat', 'list', 'nobody'], 'not found: user "nobody"', 'list the users with: dlake user list'],
      [['role', 'get', 'nope'], 'not found: role "nope"', 'list the roles with: dlake role list'],
      [['queue', 'get', 'nope'], 'not found: queue "nope"', 'list the queues with: dlake queue list'],
      [
        ['reflection', 'get', '00000000-0000-4000-8000-000000000001'],
        'not found: reflection 00000000-0000-4000-8000-000000000001',
        'list the reflections with: dlake reflection list',
      ],
    ];
    for (const [args, error, hint] of cases) {
      const r = await fx.run(args);
      expectFailure(r, 4, `error: ${error}`);
      expect(r.stderr, args.join(' ')).toBe(`error: ${error}\nhint: ${hint}\n`);
    }
    const job = await fx.run(['job', 'get', '00000000-0000-4000-8000-000000000002']);
    expect([job.code, job.stderr]).toEqual([
      4,
      'error: not found: job 00000000-0000-4000-8000-000000000002\n' +
        'hint: it is in neither the job store nor the job history; list the recent jobs with: dlake job list\n',
    ]);
    // The service's own words stay at hand with -v.
    const verbose = await fx.run(['queue', 'get', 'nope', '-v']);
    expect(verbose.stderr).toContain('  Queue [nope] not found.\n');
  });
});
