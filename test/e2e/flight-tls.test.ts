// Export over Arrow Flight with TLS (grpc+tls://), against the emulator's Flight endpoint served with the
// self-signed CA of test/fixtures/tls: refused by default, trusted with --ca-file, or unchecked with --insecure.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFailure, useFixture } from '../helpers/fixture.js';

const TLS = resolve(import.meta.dirname, '../fixtures/tls');
let dir: string;
let env: Record<string, string>;

const fx = useFixture(
  {
    tls: { key: readFileSync(`${TLS}/server.key`, 'utf8'), cert: readFileSync(`${TLS}/server.pem`, 'utf8') },
    flightPort: 0,
    bigRows: 100,
  },
  { login: false },
);
beforeAll(async () => {
  const pat = fx.emu.state.issueToken(fx.emu.state.userByName('admin')!.id, 'pat', 3_600_000).token;
  env = { DLAKE_TOKEN: pat, DLAKE_FLIGHT_URL: fx.emu.flight!.url };
  dir = mkdtempSync(join(tmpdir(), 'dlake-flight-tls-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
});

describe('Flight over TLS', () => {
  it('serves grpc+tls', () => {
    expect(fx.emu.flight!.url).toMatch(/^grpc\+tls:\/\/127\.0\.0\.1:\d+$/);
  });

  it('an untrusted certificate fails the export (exit 7), no file', async () => {
    const out = join(dir, 'a.csv');
    const r = await fx.run(['sql', 'SELECT * FROM big', '--out', out, '--transport', 'flight'], { env });
    expectFailure(
      r,
      7,
      /the Flight stream from grpc\+tls:\/\/.* broke: .*certificate: export stopped after 0 rows; .*a\.csv was not written$/,
    );
    expect(r.stderr).toContain('hint: trust the server certificate with --ca-file FILE');
    expect(fx.emu.flight!.calls).toHaveLength(0);
  });

  it('--ca-file trusts it; --insecure skips the check, with a warning', async () => {
    const a = await fx.run(
      [
        '--ca-file',
        `${TLS}/ca.pem`,
        'sql',
        'SELECT * FROM big',
        '--out',
        join(dir, 'a.csv'),
        '--transport',
        'flight',
      ],
      { env },
    );
    expect(a.code, a.stderr).toBe(0);
    expect(readFileSync(join(dir, 'a.csv'), 'utf8')).toMatch(/^id,name,amount,flag,note\n1,user_1,/);
    const b = await fx.run(
      ['--insecure', 'sql', 'SELECT * FROM big', '--out', join(dir, 'b.csv'), '--transport', 'flight'],
      { env },
    );
    expect(b.code, b.stderr).toBe(0);
    expect(b.stderr).toContain('TLS certificate verification is disabled (--insecure)');
    expect(readFileSync(join(dir, 'b.csv')).equals(readFileSync(join(dir, 'a.csv')))).toBe(true);
  });
});
