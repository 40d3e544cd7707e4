// How fast the replay server sends and a bare client reads (docs/benchmarks.md "The replay Flight server"): the
// replay server's tables at 1M and 10M rows, read by Arrow C++'s client (bare-reader.py) and by the bare Node
// reader of bench/flight-reader.ts (dlake's gRPC client and apache-arrow's decoding, no export), three runs each,
// the median. The reference the export benchmarks divide by.

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bareReader } from '../flight.js';
import { median, table } from '../stats.js';
import { bareRead, startReplayServer } from './replay.js';

const SIZES = [1_000_000, 10_000_000];
const RUNS = 3;

export async function benchFlightReplay(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'dlake-replay-bench-'));
  const server = await startReplayServer();
  try {
    const reader = await bareReader(dir);
    const rows: string[][] = [];
    for (const name of ['flat', 'nested']) {
      for (const size of SIZES) {
        const sql = `SELECT * FROM ${name} LIMIT ${size}`;
        const measure = async (read: () => Promise<{ ms: number; rows: number }>): Promise<string[]> => {
          const ms: number[] = [];
          for (let i = 0; i < RUNS; i++) {
            try {
              const r = await read();
              if (r.rows !== size) throw new Error(`read ${r.rows} rows of ${size}`);
              ms.push(r.ms);
            } catch (e) {
              return [
                `refused: ${String((e as Error).message)
                  .split('\n')[0]!
                  .slice(0, 60)}`,
                '',
              ];
            }
          }
          const m = median(ms);
          return [(m / 1000).toFixed(2), `${(((size / m) * 1000) / 1e6).toFixed(2)}M`];
        };
        const load = loadavg()[0]!.toFixed(1);
        rows.push([
          name,
          size.toLocaleString('en'),
          'Arrow C++ (pyarrow)',
          ...(await measure(() => bareRead(server.url, sql))),
          load,
        ]);
        rows.push([
          name,
          size.toLocaleString('en'),
          "dlake's client, apache-arrow",
          ...(await measure(async () => {
            const { stdout } = await promisify(execFile)(
              process.execPath,
              [reader, server.url, 'Bearer replay', sql],
              {
                maxBuffer: 1 << 20,
              },
            );
            return JSON.parse(stdout) as { ms: number; rows: number };
          })),
          load,
        ]);
      }
    }
    return table(['table', 'rows', 'bare reader', 'seconds', 'rows/s', 'load'], rows);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
