// `catalog tree` benchmark: a walk over ~5,000 entities with bounded concurrent listings over
// keep-alive connections, side by side with the same walk one request at a time (--concurrency 1).
// Every catalog request gets 5 ms of latency, as a service across a network would: against a local
// emulator with no latency the emulator itself is the bottleneck and concurrency cannot show.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from 'dlake-emulator';
import { runDlake } from '../test/helpers/dlake.js';
import { loggedIn } from './session.js';
import { median, table } from './stats.js';

// 10 spaces × 10 folders × 10 sub-folders × 4 views: 5,110 entities, 1,111 containers to list.
const SPACES = 10;
const FOLDERS = 10;
const SUBFOLDERS = 10;
const VIEWS = 4;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

async function seed(url: string, token: string): Promise<number> {
  const headers = { authorization: `_service${token}`, 'content-type': 'application/json' };
  const post = async (body: unknown) => {
    const res = await fetch(`${url}/api/v3/catalog`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
  };
  let count = 0;
  for (let s = 0; s < SPACES; s++) {
    await post({ entityType: 'space', name: `space${s}` });
    count++;
    await Promise.all(
      Array.from({ length: FOLDERS }, async (_, f) => {
        const folder = [`space${s}`, `folder${f}`];
        await post({ entityType: 'folder', path: folder });
        for (let g = 0; g < SUBFOLDERS; g++) {
          await post({ entityType: 'folder', path: [...folder, `sub${g}`] });
          for (let v = 0; v < VIEWS; v++) {
            const path = [...folder, `sub${g}`, `view${v}`];
            await post({ entityType: 'dataset', type: 'VIRTUAL_DATASET', path, sql: 'SELECT 1' });
          }
        }
      }),
    );
    count += FOLDERS * (1 + SUBFOLDERS * (1 + VIEWS));
  }
  return count;
}

export async function benchTree(): Promise<string> {
  const emu = await startEmulator();
  const dir = mkdtempSync(join(tmpdir(), 'dlake-bench-tree-'));
  try {
    const admin = emu.state.userByName('admin')!;
    const entities = await seed(emu.url, emu.state.issueToken(admin.id, 'session', 3_600_000).token);
    const env = await loggedIn(dir, emu.url);
    emu.fault({ kind: 'latency', latencyMs: 5, path: '/api/v3/catalog' });
    const time = async (concurrency: number) => {
      const start = process.hrtime.bigint();
      const r = await runDlake(['catalog', 'tree', '--concurrency', String(concurrency), '-o', 'json'], {
        env,
      });
      if (r.code !== 0) throw new Error(r.stderr);
      return Number(process.hrtime.bigint() - start) / 1e6;
    };
    const sequential: number[] = [];
    const concurrent: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      sequential.push(await time(1));
      concurrent.push(await time(8));
    }
    const requests = emu.log.find('GET', '/api/v3/catalog').length / (2 * RUNS);
    const seq = median(sequential);
    const con = median(concurrent);
    return (
      table(
        ['walk', 'median ms', 'speed-up'],
        [
          [`one request at a time (--concurrency 1)`, seq.toFixed(0), '1.00×'],
          [`bounded concurrent (--concurrency 8)`, con.toFixed(0), `${(seq / con).toFixed(2)}×`],
        ],
      ) +
      `\n\n${entities} entities, ${Math.round(requests)} listing requests per walk, 5 ms latency per request.`
    );
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`## catalog tree (${RUNS} runs each)\n\n${await benchTree()}`);
}
