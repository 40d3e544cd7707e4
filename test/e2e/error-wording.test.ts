// Errors that say the right thing: bad URLs are bad input, one spelling per service URL, one `error:` line
// then one line per invalid field, a corrupt credentials file warned about once on one line, and input
// checks before any request.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectFailure, type Fixture, startFixture } from '../helpers/fixture.js';

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(() => fx.close());
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
