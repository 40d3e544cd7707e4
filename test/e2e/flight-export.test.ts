// Export over Arrow Flight end to end against the emulator's Flight endpoint: every format byte for byte the
// REST export (Parquet read back type for type), no REST job beside a Flight export, each way of
// authenticating (and never the REST session token), the transport's choice and its fallback, and each fault
// as its exit code with no file left behind.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ANALYST, expectFailure, SERVICE_USER, useFixture } from '../helpers/fixture.js';
import { until } from '../helpers/until.js';

const ROWS = 12_000;
const QUERY = 'SELECT * FROM big ORDER BY id';

let dir: string;
let flightUrl: string;
const flightCalls = () => fx.emu.flight!.calls;
const restJobs = () => fx.emu.log.find('POST', '/api/v3/sql');

const fx = useFixture({ bigRows: ROWS, jobStepMs: 5, flightPort: 0 }, { login: false });
beforeAll(async () => {
  flightUrl = fx.emu.flight!.url;
  const login = await fx.run(['--flight-url', flightUrl, 'login', '-u', 'admin', '--password-stdin'], {
    input: 'admin-pass-1\n',
  });
  expect(login.code, login.stderr).toBe(0);
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-flight-'));
  fx.emu.faults.clear();
  fx.emu.flight!.clearFaults();
  flightCalls().length = 0;
  return () => rmSync(dir, { recursive: true, force: true });
});

/** What is in `dir` besides the files named (no FILE.partial, no sidecar). */
const leftovers = (...keep: string[]) => readdirSync(dir).filter((f) => !keep.includes(f));

describe('login --flight-url', () => {
  it('stores the endpoint in the profile and the handshake bearer beside the session, never the password', () => {
    const config = fx.readJson('config.json');
    expect(config.profiles.default.flightUrl).toBe(flightUrl);
    const token = fx.readJson('credentials.json').tokens.default;
    expect(token.kind).toBe('session');
    expect(token.flight).toEqual({ token: expect.any(String), url: flightUrl });
    expect(token.flight.token).not.toBe(token.token);
    expect(JSON.stringify(fx.readJson('credentials.json'))).not.toContain('admin-pass-1');
  });
});

describe('every format, byte for byte the REST export', () => {
  it('CSV, JSON, NDJSON and their gzip: Flight (no REST job) and REST give the same bytes', async () => {
    for (const ext of ['csv', 'json', 'ndjson', 'csv.gz', 'ndjson.gz']) {
      const viaFlight = join(dir, `flight.${ext}`);
      const viaRest = join(dir, `rest.${ext}`);
      fx.emu.log.clear();
      const f = await fx.run(['sql', QUERY, '--out', viaFlight, '--transport', 'flight']);
      expect(f.code, f.stderr).toBe(0);
      expect(f.stderr).toContain(`wrote 12,000 rows to ${viaFlight}`);
      expect(f.stderr).toContain(`over Arrow Flight (${flightUrl})`);
      expect(restJobs()).toHaveLength(0);
      const r = await fx.run(['sql', QUERY, '--out', viaRest, '--transport', 'rest']);
      expect(r.code, r.stderr).toBe(0);
      expect(restJobs()).toHaveLength(1);
      const read = (file: string) =>
        ext.endsWith('.gz') ? gunzipSync(readFileSync(file)) : readFileSync(file);
      expect(read(viaFlight).equals(read(viaRest)), ext).toBe(true);
    }
    const calls = flightCalls().filter((c) => c.method === 'DoGet');
    expect(calls).toHaveLength(5);
    expect(calls.every((c) => c.rows === ROWS && c.credential === 'flight' && c.code === 0)).toBe(true);
  });

  it('dates, timestamps, integers, floats, booleans and NULLs as REST writes them', async () => {
    const sql = `SELECT i::INTEGER AS i, (i * 3)::SMALLINT AS s, i / 7 AS d, (i / 3)::FLOAT AS f, i % 2 = 0 AS b,
      DATE '2024-02-27' + i::INTEGER AS day, TIMESTAMP '1969-12-31 23:59:58.5' + to_milliseconds(i * 1234) AS ts,
      CASE WHEN i % 3 = 0 THEN NULL ELSE 'x' || i END AS t FROM range(0, 50) r(i) ORDER BY i`;
    for (const ext of ['csv', 'json']) {
      const f = await fx.run(['sql', sql, '--out', join(dir, `f.${ext}`), '--transport', 'flight']);
      const r = await fx.run(['sql', sql, '--out', join(dir, `r.${ext}`), '--transport', 'rest']);
      expect([f.code, r.code], f.stderr + r.stderr).toEqual([0, 0]);
      expect(readFileSync(join(dir, `f.${ext}`), 'utf8')).toBe(readFileSync(join(dir, `r.${ext}`), 'utf8'));
    }
  });

  it('an empty result: the header alone, and [] for JSON', async () => {
    const sql = 'SELECT id, name FROM big WHERE id < 0';
    const csv = await fx.run(['sql', sql, '--out', join(dir, 'e.csv'), '--transport', 'flight']);
    const json = await fx.run(['sql', sql, '--out', join(dir, 'e.json'), '--transport', 'flight']);
    expect([csv.code, json.code]).toEqual([0, 0]);
    expect(readFileSync(join(dir, 'e.csv'), 'utf8')).toBe('id,name\n');
    expect(readFileSync(join(dir, 'e.json'), 'utf8')).toBe('[]\n');
  });

  it('Parquet from the Arrow columns has the REST export’s Parquet types and rows', async () => {
    const sql = `SELECT id, name, amount, flag, DATE '2024-01-01' + (id % 30)::INTEGER AS day,
      TIMESTAMP '2024-01-01 00:00:00' + to_seconds(id) AS ts, ((id % 1000)::DECIMAL(9,2) / 4)::DECIMAL(9,2) AS price,
      id::INTEGER AS small FROM big ORDER BY id LIMIT 5000`;
    const f = await fx.run(['sql', sql, '--out', join(dir, 'f.parquet'), '--transport', 'flight']);
    const r = await fx.run(['sql', sql, '--out', join(dir, 'r.parquet'), '--transport', 'rest']);
    expect([f.code, r.code], f.stderr + r.stderr).toEqual([0, 0]);
    const describe = (file: string) =>
      fx.emu.runEngineQuery(`DESCRIBE SELECT * FROM read_parquet('${join(dir, file)}')`);
    const types = (await describe('f.parquet')).map((c) => `${c.column_name} ${c.column_type}`);
    expect(types).toEqual((await describe('r.parquet')).map((c) => `${c.column_name} ${c.column_type}`));
    expect(types).toEqual([
      'id BIGINT',
      'name VARCHAR',
      'amount DOUBLE',
      'flag BOOLEAN',
      'day DATE',
      'ts TIMESTAMP',
      'price DECIMAL(9,2)',
      'small INTEGER',
    ]);
    const rows = (file: string) =>
      fx.emu.runEngineQuery(
        `SELECT * EXCLUDE (price), price::VARCHAR AS p FROM read_parquet('${join(dir, file)}')`,
      );
    expect(await rows('f.parquet')).toEqual(await rows('r.parquet'));
  });
});

describe('job export ID over Flight', () => {
  it('reads sys.job_results."ID": the same bytes as REST, no second job', async () => {
    const submitted = await fx.run(['sql', 'SELECT * FROM big ORDER BY id LIMIT 2500', '--no-wait']);
    const id = submitted.stdout.trim();
    await until(() => fx.emu.jobs.get(id)?.state === 'COMPLETED', 'the job completes');
    fx.emu.log.clear();
    const f = await fx.run(['job', 'export', id, '--out', join(dir, 'f.csv'), '--transport', 'flight']);
    expect(f.code, f.stderr).toBe(0);
    expect(restJobs()).toHaveLength(0);
    expect(flightCalls().find((c) => c.method === 'GetFlightInfo')?.sql).toBe(
      `SELECT * FROM sys.job_results."${id}"`,
    );
    const r = await fx.run(['job', 'export', id, '--out', join(dir, 'r.csv'), '--transport', 'rest']);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'f.csv')).equals(readFileSync(join(dir, 'r.csv')))).toBe(true);
  });

  it('--resume with --transport flight is refused before anything is asked (exit 2)', async () => {
    const r = await fx.run([
      'job',
      'export',
      'abc',
      '--out',
      join(dir, 'x.csv'),
      '--resume',
      '--transport',
      'flight',
    ]);
    expectFailure(r, 2, '--transport flight cannot be combined with --resume');
    expect(fx.emu.log.entries).toHaveLength(0);
    expect(flightCalls()).toHaveLength(0);
  });

  it('an id that is not a job id never reaches the SQL (exit 2)', async () => {
    const r = await fx.run([
      'job',
      'export',
      'x"; DROP',
      '--out',
      join(dir, 'x.csv'),
      '--transport',
      'flight',
    ]);
    expectFailure(r, 2, 'is not a job id');
    expect(flightCalls()).toHaveLength(0);
  });
});

describe('the transport', () => {
  it('--transport flight with no endpoint is exit 2, and nothing is asked', async () => {
    // The default profile without its stored flightUrl: a fresh config folder.
    const cfg = mkdtempSync(join(tmpdir(), 'dlake-flight-cfg-'));
    const none = await fx.run(['sql', 'SELECT 1', '--out', join(dir, 'x.csv'), '--transport', 'flight'], {
      env: { DLAKE_CONFIG_DIR: cfg, DLAKE_TOKEN: 'whatever' },
    });
    rmSync(cfg, { recursive: true, force: true });
    expectFailure(none, 2, '--transport flight needs an Arrow Flight endpoint');
    expect(flightCalls()).toHaveLength(0);
    expect(restJobs()).toHaveLength(0);
  });

  it('auto (the default) uses Flight when the endpoint answers, and says so', async () => {
    const r = await fx.run(['sql', QUERY, '--out', join(dir, 'a.csv')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('over Arrow Flight');
    expect(restJobs()).toHaveLength(0);
  });

  it('auto falls back to REST when the endpoint does not answer, saying once which it used', async () => {
    fx.emu.flight!.fault({ kind: 'unavailable' });
    const r = await fx.run(['sql', QUERY, '--out', join(dir, 'a.csv')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.match(/exporting over REST: /g)).toHaveLength(1);
    expect(r.stderr).toContain('wrote 12,000 rows');
    expect(r.stderr).not.toContain('over Arrow Flight (');
    expect(restJobs()).toHaveLength(1);
    // Retried before falling back: three attempts.
    expect(flightCalls().filter((c) => c.method === 'GetFlightInfo')).toHaveLength(3);
  });

  it('flag > DLAKE_FLIGHT_URL > profile', async () => {
    const dead = 'grpc://127.0.0.1:1';
    const viaFlag = await fx.run(
      [
        '--flight-url',
        flightUrl,
        'sql',
        'SELECT 1 AS a',
        '--out',
        join(dir, 'a.csv'),
        '--transport',
        'flight',
      ],
      {
        env: { DLAKE_FLIGHT_URL: dead },
      },
    );
    expect(viaFlag.code, viaFlag.stderr).toBe(0);
    const viaEnv = await fx.run(
      ['sql', 'SELECT 1 AS a', '--out', join(dir, 'b.csv'), '--transport', 'flight'],
      {
        env: { DLAKE_FLIGHT_URL: dead },
      },
    );
    // The profile's stored credentials are for its own endpoint, not this one: exit 2 naming both.
    expectFailure(
      viaEnv,
      2,
      `DLAKE_FLIGHT_URL (${dead}) is not the Flight endpoint of profile "default" (${flightUrl})`,
    );
    expect(viaEnv.stderr).toContain('hint: unset DLAKE_FLIGHT_URL');
  });

  it('a PAT profile never sends its PAT to a Flight URL of the environment that is not its own', async () => {
    const created = await fx.run(['pat', 'create', 'analyst', '--label', 'elsewhere', '--expires', '5d']);
    expect(created.code, created.stderr).toBe(0);
    const cfg = mkdtempSync(join(tmpdir(), 'dlake-flight-cfg-'));
    const own = 'grpc://127.0.0.1:1';
    const login = await fx.run(['--flight-url', own, 'login', '--token-stdin', '-p', 'prod'], {
      env: { DLAKE_CONFIG_DIR: cfg },
      input: `${created.stdout.trim()}\n`,
    });
    expect(login.code, login.stderr).toBe(0);
    flightCalls().length = 0;
    for (const transport of ['flight', 'auto']) {
      // The emulator's endpoint stands for "another host": it must see no call at all.
      const r = await fx.run(
        ['-p', 'prod', 'sql', 'SELECT 1 AS a', '--out', join(dir, 'a.csv'), '--transport', transport],
        { env: { DLAKE_CONFIG_DIR: cfg, DLAKE_FLIGHT_URL: flightUrl } },
      );
      expectFailure(
        r,
        2,
        `DLAKE_FLIGHT_URL (${flightUrl}) is not the Flight endpoint of profile "prod" (${own})`,
      );
      expect(flightCalls()).toHaveLength(0);
      expect(existsSync(join(dir, 'a.csv'))).toBe(false);
    }
    rmSync(cfg, { recursive: true, force: true });
  });

  it('a malformed Flight URL is exit 2', async () => {
    const r = await fx.run(['--flight-url', 'http://x:1', 'sql', 'SELECT 1', '--out', join(dir, 'a.csv')]);
    expectFailure(r, 2, '--flight-url is not a Flight URL');
  });
});

describe('authentication as the service does it', () => {
  it('a password profile sends its Flight bearer token; the REST session is never sent and stays valid', async () => {
    const r = await fx.run([
      'sql',
      'SELECT 1 AS a',
      '--out',
      join(dir, 'a.csv'),
      '--transport',
      'flight',
      '--debug',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(flightCalls().every((c) => c.credential === 'flight' && c.authScheme === 'Bearer')).toBe(true);
    const stored = fx.readJson('credentials.json').tokens.default;
    expect(r.stderr).toContain('debug: flight');
    expect(r.stderr).not.toContain(stored.token);
    expect(r.stderr).not.toContain(stored.flight.token);
    // The session cookie the endpoint set came back on the next call of the export.
    expect(flightCalls().find((c) => c.method === 'DoGet')?.cookie).toBe(true);
    expect((await fx.run(['catalog', 'ls'])).code).toBe(0);
  });

  it('the REST session token sent to Flight is refused, and the service ends the session (emulator)', async () => {
    const session = fx.readJson('credentials.json').tokens.default.token as string;
    const cfg = mkdtempSync(join(tmpdir(), 'dlake-flight-cfg-'));
    // DLAKE_TOKEN is sent as it is: here it is a session token, as a careless script might do.
    const r = await fx.run(
      ['--flight-url', flightUrl, 'sql', 'SELECT 1', '--out', join(dir, 'a.csv'), '--transport', 'flight'],
      {
        env: { DLAKE_CONFIG_DIR: cfg, DLAKE_TOKEN: session },
      },
    );
    rmSync(cfg, { recursive: true, force: true });
    expectFailure(r, 3, 'the Flight endpoint refused the credentials');
    expect(flightCalls()[0]?.credential).toBe('session');
    // The emulator, as the service, ended that session: log in again for the other tests.
    expect((await fx.run(['catalog', 'ls'])).code).toBe(3);
    const again = await fx.run(['--flight-url', flightUrl, 'login', '-u', 'admin', '--password-stdin'], {
      input: 'admin-pass-1\n',
    });
    expect(again.code).toBe(0);
  });

  it('a password profile logged in without --flight-url: --flight-url is not its endpoint (exit 2, the login hint)', async () => {
    const login = await fx.run(['login', '-u', ANALYST.name, '--password-stdin', '-p', 'plain'], {
      input: `${ANALYST.password}\n`,
    });
    expect(login.code).toBe(0);
    const f = await fx.run([
      '-p',
      'plain',
      '--flight-url',
      flightUrl,
      'sql',
      'SELECT 1',
      '--out',
      join(dir, 'a.csv'),
      '--transport',
      'flight',
    ]);
    expectFailure(
      f,
      2,
      `--flight-url (${flightUrl}) is not the Flight endpoint of profile "plain" (none stored)`,
    );
    expect(f.stderr).toContain(`dlake login -p plain --flight-url ${flightUrl}\``);
    expect(flightCalls()).toHaveLength(0);
  });

  it('a PAT as Bearer', async () => {
    const created = await fx.run(['pat', 'create', 'analyst', '--label', 'flight', '--expires', '5d']);
    expect(created.code, created.stderr).toBe(0);
    const pat = created.stdout.trim();
    const cfg = mkdtempSync(join(tmpdir(), 'dlake-flight-cfg-'));
    const env = { DLAKE_CONFIG_DIR: cfg };
    const login = await fx.run(['--flight-url', flightUrl, 'login', '--token-stdin'], {
      env,
      input: `${pat}\n`,
    });
    expect(login.code, login.stderr).toBe(0);
    const r = await fx.run(['sql', 'SELECT 1 AS a', '--out', join(dir, 'a.csv'), '--transport', 'flight'], {
      env,
    });
    rmSync(cfg, { recursive: true, force: true });
    expect(r.code, r.stderr).toBe(0);
    expect(flightCalls().map((c) => c.credential)).toEqual(['pat', 'pat']);
    expect(flightCalls()[0]?.authScheme).toBe('Bearer');
  });

  it('an OAuth access token (client credentials) as Bearer', async () => {
    const cfg = mkdtempSync(join(tmpdir(), 'dlake-flight-cfg-'));
    const r = await fx.run(
      [
        '--flight-url',
        flightUrl,
        'sql',
        'SELECT 1 AS a',
        '--out',
        join(dir, 'a.csv'),
        '--transport',
        'flight',
      ],
      {
        env: {
          DLAKE_CONFIG_DIR: cfg,
          DLAKE_CLIENT_ID: SERVICE_USER.clientId,
          DLAKE_CLIENT_SECRET: SERVICE_USER.clientSecret,
        },
      },
    );
    rmSync(cfg, { recursive: true, force: true });
    expect(r.code, r.stderr).toBe(0);
    expect(flightCalls().map((c) => `${c.credential}:${c.user}`)).toEqual(['oauth:svc-ci', 'oauth:svc-ci']);
  });
});

describe('faults as exit codes, and no file left behind', () => {
  it('credentials refused: exit 3 with the login hint', async () => {
    fx.emu.flight!.fault({ kind: 'refuse-auth' });
    const r = await fx.run(['sql', QUERY, '--out', join(dir, 'a.csv'), '--transport', 'flight']);
    expectFailure(r, 3, 'the Flight endpoint refused the credentials');
    expect(r.stderr).toContain('--flight-url');
    expect(leftovers()).toEqual([]);
  });

  it('a query error is exit 6 with the service’s message', async () => {
    const r = await fx.run([
      'sql',
      'SELECT * FROM no_such_table',
      '--out',
      join(dir, 'a.csv'),
      '--transport',
      'flight',
    ]);
    expectFailure(r, 6, /the query failed: .*no_such_table/);
    expect(leftovers()).toEqual([]);
    expect(restJobs()).toHaveLength(0);
  });

  it('a stream cut after K batches: exit 7 naming the rows received, no FILE, no FILE.partial, no retry', async () => {
    fx.emu.flight!.fault({ kind: 'break', afterBatches: 3 });
    const r = await fx.run(['sql', QUERY, '--out', join(dir, 'a.csv'), '--transport', 'flight']);
    expectFailure(
      r,
      7,
      /^error: the Flight stream from \S+ broke: Connection lost.*: export stopped after [\d,]+ rows; .*a\.csv was not written$/,
    );
    expect(leftovers()).toEqual([]);
    expect(flightCalls().filter((c) => c.method === 'DoGet')).toHaveLength(1);
  });

  it('a query failing mid-stream is exit 6, naming the rows received', async () => {
    fx.emu.flight!.fault({ kind: 'fail', afterBatches: 2 });
    const r = await fx.run(['sql', QUERY, '--out', join(dir, 'a.ndjson'), '--transport', 'flight']);
    expectFailure(
      r,
      6,
      /^error: the query failed: Query failed while sending results.*: export stopped after [\d,]+ rows; .*a\.ndjson was not written$/,
    );
    expect(leftovers()).toEqual([]);
  });

  it('unavailable before the first batch is retried; with flight, never REST', async () => {
    fx.emu.flight!.fault({ kind: 'unavailable', times: 1 });
    const once = await fx.run(['sql', QUERY, '--out', join(dir, 'a.csv'), '--transport', 'flight']);
    expect(once.code, once.stderr).toBe(0);
    expect(flightCalls().filter((c) => c.method === 'GetFlightInfo')).toHaveLength(2);
    fx.emu.flight!.fault({ kind: 'unavailable' });
    const always = await fx.run(['sql', QUERY, '--out', join(dir, 'b.csv'), '--transport', 'flight']);
    expectFailure(
      always,
      7,
      /broke: The Flight service is unavailable: export stopped after 0 rows; .*b\.csv was not written$/,
    );
    expect(restJobs()).toHaveLength(0);
    expect(existsSync(join(dir, 'b.csv'))).toBe(false);
  });
});
