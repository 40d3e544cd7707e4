(globalThis as any).__DLAKE_VERSION__ = "0.0.0";
import { startEmulator } from './emulator/src/index.ts';
import { runInProcess } from './test/helpers/in-process.ts';
import { mkdtempSync } from 'node:fs';
import { RecordBatchReader } from 'apache-arrow';
import { FlightClient } from './src/export/flight/client.ts';
import { parseFlightUrl } from './src/export/flight/endpoint.ts';
const N = Number(process.env.N ?? 200000);
const emu = await startEmulator({ flightPort: 0, bigRows: N });
const dir = mkdtempSync('/tmp/h6/perf-');
const env = { DLAKE_CONFIG_DIR: dir + '/cfg', DLAKE_URL: emu.url, DLAKE_FLIGHT_URL: emu.flight!.url };
await runInProcess(['login', '-u', 'analyst', '--password-stdin'], { env, input: 'analyst-pass-1' });
const which = (process.env.W ?? 'bare,fcsv,fparquet,rcsv').split(',');
for (const w of which) {
  const t = performance.now();
  if (w === 'bare') {
    const c = new FlightClient({ endpoint: parseFlightUrl(emu.flight!.url), idleMs: 60000 });
    const b = await c.handshakeBasic('analyst', 'analyst-pass-1');
    const info = await c.getFlightInfo('SELECT * FROM big', `Bearer ${b}`);
    let rows = 0;
    for await (const batch of await RecordBatchReader.from(c.doGet(info.tickets[0]!, `Bearer ${b}`))) rows += batch.numRows;
    c.close();
  } else {
    const [tr, fmt] = [w[0] === 'f' ? 'flight' : 'rest', w.slice(1)];
    const r = await runInProcess(['sql', 'SELECT * FROM big', '--out', `${dir}/${w}.${fmt}`, '--transport', tr], { env });
    if (r.code) console.log(r.stderr);
  }
  const ms = performance.now() - t;
  console.log(w, Math.round(ms), 'ms', Math.round(N / ms * 1000), 'rows/s');
}
await emu.close();
