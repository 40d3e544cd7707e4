// TLS against an emulator served over HTTPS with a self-signed CA (test/fixtures/tls).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFailure, startFixture, useFixture } from '../helpers/fixture.js';

const TLS = resolve(import.meta.dirname, '../fixtures/tls');
const CA = `${TLS}/ca.pem`;
let token: string;

const fx = useFixture(
  {
    tls: { key: readFileSync(`${TLS}/server.key`, 'utf8'), cert: readFileSync(`${TLS}/server.pem`, 'utf8') },
  },
  { login: false },
);
beforeAll(async () => {
  token = fx.emu.state.issueToken(fx.emu.state.userByName('admin')!.id, 'pat', 3_600_000).token;
});

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

  it('a CA file without a certificate, or a folder: refused in words (exit 2), nothing sent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dlake-ca-'));
    fx.emu.log.clear();
    try {
      writeFileSync(join(dir, 'empty.pem'), 'not a certificate\n');
      const empty = await fx.run(['api', 'GET', '/api/v3/info', '--ca-file', join(dir, 'empty.pem')], {
        env: { DLAKE_TOKEN: token },
      });
      expectFailure(empty, 2, `the CA file ${join(dir, 'empty.pem')} holds no PEM certificate`);
      const folder = await fx.run(['api', 'GET', '/api/v3/info', '--ca-file', dir], {
        env: { DLAKE_TOKEN: token },
      });
      expectFailure(folder, 2, `cannot read the CA file ${dir}: it is a folder, not a file`);
      expect(fx.emu.log.find('GET', '/api/v3/info')).toHaveLength(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a host name the certificate does not name: says so, and does not suggest --ca-file', async () => {
    // 0.0.0.0 reaches the emulator on this machine, but the certificate names only 127.0.0.1 and localhost.
    const other = await startFixture({
      host: '0.0.0.0',
      tls: {
        key: readFileSync(`${TLS}/server.key`, 'utf8'),
        cert: readFileSync(`${TLS}/server.pem`, 'utf8'),
      },
    });
    try {
      const r = await other.run(['api', 'GET', '/api/v3/info', '--ca-file', CA], {
        env: { DLAKE_TOKEN: token },
      });
      expectFailure(r, 7, "the server's TLS certificate is for another host name");
      expect(r.stderr).toContain('hint: use the host name the certificate names in --url');
      expect(r.stderr).not.toContain('--ca-file FILE');
    } finally {
      await other.close();
    }
  });

  it('https:// against a plain-HTTP port: one line in words', async () => {
    const plain = createServer((_req, res) => res.end('hello'));
    await new Promise<void>((done) => plain.listen(0, '127.0.0.1', done));
    try {
      const { port } = plain.address() as AddressInfo;
      const r = await fx.run(['api', 'GET', '/api/v3/info', '--url', `https://127.0.0.1:${port}`], {
        env: { DLAKE_TOKEN: token },
      });
      expectFailure(r, 7, 'the server does not speak TLS (https) on this port');
      expect(r.stderr.trim().split('\n')).toHaveLength(2);
      expect(r.stderr).toContain('hint: use http:// in --url');
    } finally {
      plain.close();
    }
  });
});
