// TLS against an emulator served over HTTPS with a self-signed CA (test/fixtures/tls).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFailure, type Fixture, startFixture } from '../helpers/fixture.js';

const TLS = resolve(import.meta.dirname, '../fixtures/tls');
const CA = `${TLS}/ca.pem`;
let fx: Fixture;
let token: string;

beforeAll(async () => {
  fx = await startFixture({
    tls: { key: readFileSync(`${TLS}/server.key`, 'utf8'), cert: readFileSync(`${TLS}/server.pem`, 'utf8') },
  });
  token = fx.emu.state.issueToken(fx.emu.state.userByName('admin')!.id, 'pat', 3_600_000).token;
});
afterAll(() => fx.close());

describe('TLS', () => {
  it('serves HTTPS', () => {
    expect(fx.emu.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('refuses an untrusted certificate by default, with a clear message and the flags to fix it', async () => {
    const r = await fx.run(['api', 'GET', '/api/v3/info'], { env: { DLAKE_TOKEN: token } });
    expectFailure(r, 7, "the server's TLS certificate is not trusted");
    expect(r.stderr).toContain('hint: trust the server certificate with --ca-file FILE');
    expect(fx.emu.log.find('GET', '/api/v3/info')).toHaveLength(0);
  });

  it('accepts it with --ca-file, or DLAKE_CA_FILE', async () => {
    const flag = await fx.run(['api', 'GET', '/api/v3/info', '--ca-file', CA], {
      env: { DLAKE_TOKEN: token },
    });
    expect(flag.code).toBe(0);
    expect(JSON.parse(flag.stdout)).toHaveProperty('version');
    expect(flag.stderr).toBe('');
    const env = await fx.run(['api', 'GET', '/api/v3/info'], {
      env: { DLAKE_TOKEN: token, DLAKE_CA_FILE: CA },
    });
    expect(env.code).toBe(0);
  });

  it('accepts it with --insecure, and warns every time', async () => {
    const r = await fx.run(['api', 'GET', '/api/v3/info', '--insecure'], { env: { DLAKE_TOKEN: token } });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('warning: TLS certificate verification is disabled (--insecure)');
  });

  it('says so when the CA file cannot be read (exit 2)', async () => {
    const r = await fx.run(['api', 'GET', '/api/v3/info', '--ca-file', `${TLS}/missing.pem`], {
      env: { DLAKE_TOKEN: token },
    });
    expectFailure(r, 2, `cannot read the CA file ${TLS}/missing.pem`);
  });
});
