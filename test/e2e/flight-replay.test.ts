// The benchmarks' replay Flight server (bench/flight-replay/): dlake's Flight client logs in to it as to the
// service (a Basic handshake answered with a bearer token) and reads a table replayed to any row count, flat or
// nested; the bare Arrow C++ reader reads the same rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareRead, type ReplayServer, startReplayServer } from '../../bench/flight-replay/replay.js';
import { FlightClient } from '../../src/export/flight/client.js';
import { parseFlightUrl } from '../../src/export/flight/endpoint.js';
import { readStream } from '../../src/export/flight/result.js';

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
}, 120_000);
afterAll(() => server?.close());

describe('the replay Flight server', () => {
  it("answers dlake's handshake and replays 4,095-row batches to the row count asked, flat and nested", async () => {
    const c = new FlightClient({ endpoint: parseFlightUrl(server.url), idleMs: 20_000 });
    const bearer = await c.handshakeBasic('bench', 'bench');
    for (const [table, rows] of [
      ['flat', 300_000],
      ['nested', 5000],
    ] as const) {
      const info = await c.getFlightInfo(`SELECT * FROM ${table} LIMIT ${rows}`, `Bearer ${bearer}`);
      const sizes: number[] = [];
      let fields = '';
      for await (const b of await readStream(c.doGet(info.tickets[0]!, `Bearer ${bearer}`))) {
        sizes.push(b.numRows);
        fields = b.schema.fields.map((f) => `${f.name} ${f.type}`).join(', ');
      }
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(rows);
      expect(sizes.slice(0, -1).every((n) => n === 4095)).toBe(true);
      expect(fields).toBe(
        table === 'flat'
          ? 'id Int64, name Utf8, amount Float64, flag Bool, note Utf8'
          : 'id Int64, tags List<Utf8>, point Struct<{x:Float64, y:Float64}>, attrs Map<{key:Utf8, value:Int32}>, note Utf8',
      );
    }
    c.close();
  });

  it('the bare reader reads every row and says how long it took', async () => {
    const read = await bareRead(server.url, 'SELECT * FROM nested LIMIT 100000');
    expect(read.rows).toBe(100_000);
    expect(read.ms).toBeGreaterThan(0);
  });
});
