// What a newcomer types first and expects to work: psql's `sql -c`, `whoami` naming every endpoint in force (the
// Flight one included) with where it came from, and the emulator answering in the service's words.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFailure, startFixture, useFixture } from '../helpers/fixture.js';
import { until } from '../helpers/until.js';

const fx = useFixture(
  { flightPort: 0, samplesDir: join(import.meta.dirname, '../fixtures/samples') },
  { login: false },
);
beforeAll(async () => {
  const login = await fx.run(
    ['--flight-url', fx.emu.flight!.url, 'login', '-u', 'admin', '--password-stdin'],
    {
      input: 'admin-pass-1\n',
    },
  );
  expect(login.code, login.stderr).toBe(0);
});

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

describe("the emulator answers in the service's words", () => {
  it('the samples are formatted into tables when a query names them, as a source with autoPromoteDatasets does', async () => {
    const r = await fx.run(['sql', 'SELECT * FROM Samples."customers.json" WHERE id = 2', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject([{ id: 2, name: 'Globex' }]);
    const table = await fx.run(['catalog', 'get', 'Samples/customers.json', '-o', 'json']);
    expect(JSON.parse(table.stdout)).toMatchObject({ type: 'PHYSICAL_DATASET', format: { type: 'JSON' } });
  });

  it('a file or folder not promoted is "not found within" its folder, never the engine\'s own words', async () => {
    const samples = fx.emu.catalog.store.at(['Samples']);
    if (samples?.kind !== 'source') throw new Error('no Samples source');
    samples.metadataPolicy.autoPromoteDatasets = false;
    const file = await fx.run(['sql', 'SELECT * FROM Samples.sales."2024.csv"']);
    expectFailure(file, 6, "Object '2024.csv' not found within 'Samples.sales'");
    const folder = await fx.run(['sql', '--context', 'Samples', 'SELECT region FROM sales']);
    expectFailure(folder, 6, "Object 'sales' not found within 'Samples'");
    for (const r of [file, folder])
      expect(r.stderr).not.toMatch(/IO Error|Catalog Error|sqlite_master|LINE 1/);
    samples.metadataPolicy.autoPromoteDatasets = true;
  });

  it('a profile only for a job that ran, zipped with a real date', async () => {
    const held = (await fx.run(['sql', 'SELECT /* sleep:600000 */ 1', '--no-wait'])).stdout.trim();
    await until(() => fx.emu.jobs.get(held)?.state === 'RUNNING', 'the job runs');
    expect((await fx.run(['job', 'cancel', held, '-y'])).code).toBe(0);
    const ran = (await fx.run(['sql', 'SELECT 1 AS x', '--no-wait'])).stdout.trim();
    await until(() => fx.emu.jobs.get(ran)?.state === 'COMPLETED', 'the job completes');
    const dir = mkdtempSync(join(tmpdir(), 'dlake-profile-'));
    try {
      const out = join(dir, 'p.zip');
      expect((await fx.run(['job', 'profile', ran, '--out', out])).code).toBe(0);
      // Each entry's MS-DOS date (local header, offset 12): a year from 1980, a month 1–12, a day 1–31.
      const zip = readFileSync(out);
      const date = zip.readUInt16LE(12);
      const [year, month, day] = [1980 + (date >> 9), (date >> 5) & 15, date & 31];
      expect(year).toBe(new Date().getUTCFullYear());
      expect(month).toBeGreaterThanOrEqual(1);
      expect(month).toBeLessThanOrEqual(12);
      expect(day).toBeGreaterThanOrEqual(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // A job still being planned (each step of this emulator lasts ten minutes) has not run: no profile.
    const slow = await startFixture({ jobStepMs: 600_000 });
    try {
      expect((await slow.login()).code).toBe(0);
      const planned = (await slow.run(['sql', 'SELECT 2', '--no-wait'])).stdout.trim();
      expect(slow.emu.jobs.get(planned)?.state).toBe('PLANNING');
      const none = await slow.run(['job', 'profile', planned]);
      expectFailure(none, 4, `job ${planned} has no profile: it did not run (PLANNING)`);
      expect(slow.emu.log.find('POST', `/apiv2/support/${planned}/download`).map((e) => e.status)).toEqual([
        404,
      ]);
    } finally {
      await slow.close();
    }
  });
});
