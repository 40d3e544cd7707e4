// The bare Flight reader of bench/flight.ts: GetFlightInfo, then each ticket's batches read (and validated, as
// every Flight read of dlake is) by apache-arrow and discarded. Prints its own loop's time (without its process
// start) and the rows read, as JSON. bench/flight.ts bundles it with esbuild, as dlake is bundled, and runs the
// bundle.
//   node flight-reader.cjs grpc://HOST:PORT 'Bearer TOKEN' 'SELECT …'
import { FlightClient } from '../src/export/flight/client.js';
import { parseFlightUrl } from '../src/export/flight/endpoint.js';
import { openFlightResult } from '../src/export/flight/result.js';

async function main(): Promise<void> {
  const [url, authorization, sql] = process.argv.slice(2) as [string, string, string];
  const client = new FlightClient({ endpoint: parseFlightUrl(url), idleMs: 600_000 });
  const start = performance.now();
  const result = await openFlightResult(client, { sql, authorization });
  let rows = 0;
  for await (const b of result.batches) rows += b.numRows;
  client.close();
  process.stdout.write(JSON.stringify({ ms: performance.now() - start, rows }));
}

main().catch((e: unknown) => {
  process.stderr.write(`${String(e)}\n`);
  process.exitCode = 1;
});
