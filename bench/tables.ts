// Tables at scale: `catalog ls` of a container with 10,000 and 100,000 children, and a one-row result of 5,000 and
// 50,000 columns, printed as a table to a pipe, side by side with the same answer as JSON (what the table adds is
// the layout). The table should cost about what the JSON does at every size: the layout is linear in its cells
// (docs/cli-contract.md "Output bounds").
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from 'dlake-emulator';
import { runDlake } from '../test/helpers/dlake.js';
import { loggedIn } from './session.js';
import { median, table } from './stats.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);

export async function benchTables(): Promise<string> {
  const emu = await startEmulator();
  const dir = mkdtempSync(join(tmpdir(), 'dlake-bench-tables-'));
  try {
    const env = await loggedIn(dir, emu.url);
    const made = await runDlake(['api', 'POST', 'catalog', '--data', '{"entityType":"space","name":"Big"}'], {
      env,
    });
    if (made.code !== 0) throw new Error(made.stderr);
    const space = JSON.parse(made.stdout) as Record<string, unknown>;

    // One command's wall time, its answer injected whole (a source that ignores paging sends every child at once).
    const time = async (args: string[], path: string | RegExp, body: unknown) => {
      const runs: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        emu.fault({ kind: 'schema', path, times: 1, body });
        const start = process.hrtime.bigint();
        const r = await runDlake(args, { env });
        if (r.code !== 0) throw new Error(r.stderr);
        runs.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
      return median(runs);
    };
    const rows: string[][] = [];
    const add = async (what: string, cells: number, args: string[], path: string | RegExp, body: unknown) => {
      const asTable = await time(args, path, body);
      const asJson = await time([...args, '-o', 'json'], path, body);
      rows.push([
        what,
        cells.toLocaleString('en'),
        asJson.toFixed(0),
        asTable.toFixed(0),
        `${(asTable / asJson).toFixed(2)}×`,
      ]);
    };
    for (const n of [10_000, 100_000]) {
      const children = Array.from({ length: n }, (_, i) => ({
        id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        path: ['Big', `folder-${i}`],
        tag: `t${i}`,
        type: 'CONTAINER',
        containerType: 'FOLDER',
      }));
      await add(
        `catalog ls, ${n.toLocaleString('en')} children`,
        n * 4,
        ['catalog', 'ls', 'Big'],
        '/api/v3/catalog/by-path/Big',
        {
          ...space,
          children,
        },
      );
    }
    for (const cols of [5_000, 50_000]) {
      const schema = Array.from({ length: cols }, (_, c) => ({ name: `c${c}`, type: { name: 'BIGINT' } }));
      const row = Object.fromEntries(schema.map((f, c) => [f.name, c]));
      await add(
        `sql, one row of ${cols.toLocaleString('en')} columns`,
        cols,
        ['sql', 'SELECT 1'],
        /\/results$/,
        {
          rowCount: 1,
          schema,
          rows: [row],
        },
      );
    }
    return (
      table(['listing', 'cells', 'as JSON, median ms', 'as a table, median ms', 'table / JSON'], rows) +
      `\n\n${RUNS} runs each, whole commands, to a pipe (no terminal: nothing is cut).`
    );
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`## Tables at scale (${RUNS} runs each)\n\n${await benchTables()}`);
}
