// The emulator's Arrow Flight endpoint (docs/api-facts.md §14), read with dlake's own Flight client: the auth2
// handshake and what it refuses (a REST session token, which it also ends), the Arrow types of DuckDB's
// columns, and `dlake-emulator --flight-port` / `--flight-fault` from the command line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlightClient } from '../../src/export/flight/client.js';
import { parseFlightUrl } from '../../src/export/flight/endpoint.js';
import { readStream } from '../../src/export/flight/result.js';
import { type Emulator, startEmulator } from '../src/index.js';
import { runEmulatorCommand, startEmulatorCommand } from './command.js';

let emu: Emulator;
const client = (url = emu.flight!.url) => new FlightClient({ endpoint: parseFlightUrl(url), idleMs: 20_000 });
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 0,
    (e: { code?: number }) => e.code,
  );

beforeAll(async () => {
  emu = await startEmulator({ flightPort: 0, bigRows: 10 });
});
afterAll(() => emu.close());

describe('authentication', () => {
  it('Basic user:password answers a bearer token that later calls use', async () => {
    const c = client();
    const bearer = await c.handshakeBasic('analyst', 'analyst-pass-1');
    const info = await c.getFlightInfo('SELECT 1 AS a', `Bearer ${bearer}`);
    expect(info.tickets).toHaveLength(1);
    expect(info.totalRecords).toBe(-1);
    c.close();
    expect(emu.flight!.calls.slice(-2).map((x) => `${x.method}:${x.credential}:${x.user}`)).toEqual([
      'Handshake:password:analyst',
      'GetFlightInfo:flight:analyst',
    ]);
    // A Flight token is not a REST credential.
    const rest = await fetch(`${emu.url}/api/v3/catalog`, { headers: { authorization: `Bearer ${bearer}` } });
    expect(rest.status).toBe(401);
  });

  it('a wrong password is UNAUTHENTICATED (16)', async () => {
    const c = client();
    expect(await codeOf(c.handshakeBasic('analyst', 'nope'))).toBe(16);
    c.close();
  });

  it('a REST session token is refused, and the session it belonged to is ended', async () => {
    const login = await fetch(`${emu.url}/apiv2/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userName: 'analyst', password: 'analyst-pass-1' }),
    });
    const { token } = (await login.json()) as { token: string };
    const ok = await fetch(`${emu.url}/api/v3/catalog`, { headers: { authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    const c = client();
    expect(await codeOf(c.getFlightInfo('SELECT 1', `Bearer ${token}`))).toBe(16);
    c.close();
    expect(emu.flight!.calls.at(-1)?.credential).toBe('session');
    const after = await fetch(`${emu.url}/api/v3/catalog`, { headers: { authorization: `Bearer ${token}` } });
    expect(after.status).toBe(401);
  });
});

describe('results as Arrow', () => {
  it('DuckDB types as the Arrow types of docs/api-facts.md §14', async () => {
    const c = client();
    const auth = `Bearer ${await c.handshakeBasic('admin', 'admin-pass-1')}`;
    const info = await c.getFlightInfo(
      `SELECT 1::BIGINT AS b, 2::INTEGER AS i, 3::SMALLINT AS s, 1.5::DOUBLE AS d, 2.5::FLOAT AS f, true AS t,
        'x' AS v, DATE '2024-01-02' AS day, TIMESTAMP '2024-01-02 03:04:05.678' AS ts, 12.50::DECIMAL(9,2) AS m,
        [1, 2] AS l`,
      auth,
    );
    const batches = [];
    for await (const b of await readStream(c.doGet(info.tickets[0]!, auth))) batches.push(b);
    c.close();
    expect(batches[0]!.schema.fields.map((f) => `${f.name} ${f.type}`)).toEqual([
      'b Int64',
      'i Int32',
      's Int16',
      'd Float64',
      'f Float32',
      't Bool',
      'v Utf8',
      'day Date64<MILLISECOND>',
      'ts Timestamp<MILLISECOND>',
      'm Decimal[9e+2]',
      'l List<Int32>',
    ]);
    const row = batches[0]!.get(0)!.toJSON();
    expect(row.b).toBe(1n);
    expect(row.ts).toBe(Date.UTC(2024, 0, 2, 3, 4, 5, 678));
    expect([...row.l]).toEqual([1, 2]);
  });

  it('a query error is INVALID_ARGUMENT (3) with DuckDB’s message', async () => {
    const c = client();
    const auth = `Bearer ${await c.handshakeBasic('admin', 'admin-pass-1')}`;
    const err = await c
      .getFlightInfo('SELECT * FROM nowhere', auth)
      .catch((e: Error & { code: number }) => e);
    c.close();
    expect((err as { code: number }).code).toBe(3);
    expect((err as Error).message).toMatch(/nowhere/);
  });
});

describe('dlake-emulator --flight-port and --flight-fault', () => {
  it('serves Flight on a free port, says where, and arms the faults', async () => {
    const proc = await startEmulatorCommand([
      '--port',
      '0',
      '--flight-port',
      '0',
      '--flight-fault',
      'refuse-auth:1',
    ]);
    try {
      const url = /Arrow Flight on (grpc:\/\/\S+)/.exec(proc.stdout())?.[1];
      expect(url).toMatch(/^grpc:\/\/127\.0\.0\.1:\d+$/);
      const c = client(url);
      expect(await codeOf(c.handshakeBasic('analyst', 'analyst-pass-1'))).toBe(16);
      expect(await c.handshakeBasic('analyst', 'analyst-pass-1')).toBeTruthy();
      c.close();
    } finally {
      expect(await proc.stop()).toBe(0);
    }
  });

  it('refuses a bad --flight-fault (exit 2) and documents the options', async () => {
    const bad = await runEmulatorCommand(['--port', '0', '--flight-fault', 'explode']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toBe('emulator: --flight-fault: unknown fault "explode"');
    const help = await runEmulatorCommand(['--help']);
    expect(help.stdout).toContain('--flight-port N');
    expect(help.stdout).toContain('--flight-fault WHAT[:K][:TIMES]');
  });
});

describe('batches as the service sends them', () => {
  /** The rows of each batch of `sql`'s result, read with dlake's validating reader. */
  const batchRows = async (e: Emulator, sql: string): Promise<number[]> => {
    const c = client(e.flight!.url);
    const auth = `Bearer ${await c.handshakeBasic('admin', 'admin-pass-1')}`;
    const info = await c.getFlightInfo(sql, auth);
    const rows: number[] = [];
    for await (const b of await readStream(c.doGet(info.tickets[0]!, auth))) rows.push(b.numRows);
    c.close();
    return rows;
  };

  it('4,095 rows a batch by default, whatever DuckDB’s chunks, every row once and in order', async () => {
    const e = await startEmulator({ flightPort: 0, bigRows: 10_000 });
    try {
      expect(await batchRows(e, 'SELECT * FROM big ORDER BY id')).toEqual([4095, 4095, 1810]);
      const c = client(e.flight!.url);
      const auth = `Bearer ${await c.handshakeBasic('admin', 'admin-pass-1')}`;
      const info = await c.getFlightInfo('SELECT id, name, flag FROM big ORDER BY id', auth);
      const ids: number[] = [];
      let nulls = 0;
      for await (const b of await readStream(c.doGet(info.tickets[0]!, auth))) {
        for (const row of b) {
          const r = row!.toJSON();
          ids.push(Number(r.id));
          if (r.name === null) nulls++;
        }
      }
      c.close();
      expect(ids).toEqual(Array.from({ length: 10_000 }, (_, i) => i + 1));
      expect(nulls).toBe(Math.floor(10_000 / 97));
    } finally {
      await e.close();
    }
  });

  it('flightBatchRows from 1 to 65,536', async () => {
    const one = await startEmulator({ flightPort: 0, bigRows: 5, flightBatchRows: 1 });
    const most = await startEmulator({ flightPort: 0, bigRows: 70_000, flightBatchRows: 65_536 });
    try {
      expect(await batchRows(one, 'SELECT * FROM big')).toEqual([1, 1, 1, 1, 1]);
      expect(await batchRows(most, 'SELECT id FROM big')).toEqual([65_536, 4_464]);
    } finally {
      await one.close();
      await most.close();
    }
    await expect(startEmulator({ flightPort: 0, flightBatchRows: 65_537 })).rejects.toThrow(/1 to 65536/);
  });

  it('the table wide: rows of kilobytes, a batch of megabytes', async () => {
    const c = client();
    const auth = `Bearer ${await c.handshakeBasic('admin', 'admin-pass-1')}`;
    const info = await c.getFlightInfo('SELECT * FROM wide ORDER BY id', auth);
    let rows = 0;
    let shortest = Number.POSITIVE_INFINITY;
    for await (const b of await readStream(c.doGet(info.tickets[0]!, auth))) {
      rows += b.numRows;
      for (const row of b) shortest = Math.min(shortest, String(row!.toJSON().a).length);
    }
    c.close();
    expect(rows).toBe(1000);
    expect(shortest).toBeGreaterThanOrEqual(2048);
  });

  it('--flight-batch-rows on the command line, refused outside 1 to 65536', async () => {
    const r = await runEmulatorCommand(['--port', '0', '--flight-port', '0', '--flight-batch-rows', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--flight-batch-rows needs 1 to 65536, got 0');
  });
});
