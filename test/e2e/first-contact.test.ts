// What a newcomer types first and expects to work: psql's `sql -c`, and `whoami` naming every endpoint in force
// (the Flight one included) with where it came from.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFailure, type Fixture, startFixture } from '../helpers/fixture.js';

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture({ flightPort: 0 });
  const login = await fx.run(
    ['--flight-url', fx.emu.flight!.url, 'login', '-u', 'admin', '--password-stdin'],
    {
      input: 'admin-pass-1\n',
    },
  );
  expect(login.code, login.stderr).toBe(0);
});
afterAll(() => fx.close());

describe('sql -c', () => {
  it('runs the query given with -c, as psql does', async () => {
    fx.emu.log.clear();
    const r = await fx.run(['sql', '-c', 'SELECT 41 + 1 AS answer', '-o', 'csv']);
    expect([r.code, r.stdout], r.stderr).toEqual([0, 'answer\n42\n']);
    expect(fx.emu.jobs.list().at(-1)!.sql).toBe('SELECT 41 + 1 AS answer');
  });

  it('with a query argument or --file too: exit 2, nothing sent', async () => {
    fx.emu.log.clear();
    expectFailure(await fx.run(['sql', '-c', 'SELECT 1', 'SELECT 2']), 2, 'either as an argument or with -c');
    expectFailure(await fx.run(['sql', '-c', 'SELECT 1', '-f', 'x.sql']), 2, 'either with -c or with --file');
    expect(fx.emu.log.find('POST', '/api/v3/sql')).toHaveLength(0);
  });
});

describe('whoami', () => {
  it('shows the Flight endpoint in force and where it came from', async () => {
    const url = fx.emu.flight!.url;
    const stored = JSON.parse((await fx.run(['whoami', '-o', 'json'])).stdout);
    expect(stored['flight-url']).toEqual({ value: url, source: 'profile' });
    const env = JSON.parse(
      (
        await fx.run(['whoami', '-o', 'json'], {
          env: { DLAKE_FLIGHT_URL: 'grpc+tls://lake.example.com:32010' },
        })
      ).stdout,
    );
    expect(env['flight-url']).toEqual({
      value: 'grpc+tls://lake.example.com:32010',
      source: 'environment (DLAKE_FLIGHT_URL)',
    });
    const table = await fx.run(['whoami']);
    expect(table.stdout).toMatch(new RegExp(`^flight-url +${url.replaceAll('.', '\\.')} +profile$`, 'm'));
  });
});
