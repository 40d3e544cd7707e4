// Export over Arrow Flight against REST (docs/benchmarks.md "Export over Arrow Flight"): the same query,
// `SELECT * FROM big WHERE id <= N` (5 columns), exported by `dlake sql … --out` over REST and over Flight, to
// CSV and to Parquet, at 1M and 10M rows; and a bare Flight reader (dlake's gRPC client and apache-arrow's
// reader, bench/flight-reader.ts, batches read and discarded: the ceiling of this machine, the emulator's Flight server included).
// dlake runs as a child process, timed as a whole, its CPU (user + sys) and peak RSS from GNU time; the
// emulator runs in this process. REST at 10M rows is left out unless BENCH_FLIGHT_REST_MAX says otherwise:
// the emulator holds a REST job's rows in memory as objects, which 10M rows of this table do not fit well.
//
//   npx tsx --conditions=dlake-source bench/flight.ts   BENCH_FLIGHT_ROWS=1000000,10000000 BENCH_FLIGHT_REST_MAX=1000000
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startEmulator } from 'dlake-emulator';
import { BIN, cleanEnv, runDlake } from '../test/helpers/dlake.js';
import { run } from './session.js';
import { table } from './stats.js';

const SIZES = (process.env.BENCH_FLIGHT_ROWS ?? '1000000,10000000').split(',').map(Number);
const REST_MAX = Number(process.env.BENCH_FLIGHT_REST_MAX ?? 1_000_000);
const TIME = '/usr/bin/time';

interface Measured {
  ms: number;
  cpuS?: number;
  peakMiB?: number;
}

async function timed(args: string[], env: Record<string, string>, out: string): Promise<Measured> {
  const stats = `${out}.time`;
  const withTime = existsSync(TIME);
  const r = withTime
    ? await run(TIME, ['-f', '%U %S %M', '-o', stats, process.execPath, ...args], env)
    : await run(process.execPath, args, env);
  rmSync(out, { force: true });
  if (!withTime) return { ms: r.ms };
  const [user, sys, kib] = readFileSync(stats, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  return { ms: r.ms, cpuS: user! + sys!, peakMiB: kib! / 1024 };
}

const rate = (rows: number, ms: number) => Math.round(rows / (ms / 1000)).toLocaleString('en-US');
const fmt = (n: number | undefined, d = 1) => (n === undefined ? 'n/a' : n.toFixed(d));
const check = (ok: boolean) => (ok ? 'met' : 'missed');

export async function benchFlight(): Promise<string> {
  const max = Math.max(...SIZES);
  const emu = await startEmulator({ bigRows: max, jobStepMs: 1, flightPort: 0 });
  const dir = mkdtempSync(join(tmpdir(), 'dlake-bench-flight-'));
  try {
    const env = cleanEnv({ DLAKE_CONFIG_DIR: dir, DLAKE_URL: emu.url, DLAKE_FLIGHT_URL: emu.flight!.url });
    const login = await runDlake(['login', '-u', 'admin', '--password-stdin'], {
      input: 'admin-pass-1',
      env,
    });
    if (login.code !== 0) throw new Error(login.stderr);
    const flightToken = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')).tokens.default.flight
      .token as string;
    const reader = resolve(import.meta.dirname, 'flight-reader.ts');
    const tsx = resolve(import.meta.dirname, '../node_modules/tsx/dist/cli.mjs');
    const rows: string[][] = [];
    const results = new Map<string, Measured>();
    for (const n of SIZES) {
      const sql = `SELECT * FROM big WHERE id <= ${n}`;
      const bare = await run(
        process.execPath,
        [tsx, '--conditions=dlake-source', reader, emu.flight!.url, `Bearer ${flightToken}`, sql],
        env,
      );
      const b = JSON.parse(bare.out) as { ms: number; rows: number };
      if (b.rows !== n) throw new Error(`the bare reader read ${b.rows} rows, not ${n}`);
      results.set(`bare ${n}`, { ms: b.ms });
      rows.push([n.toLocaleString('en-US'), 'bare Flight reader (discards)', rate(n, b.ms), 'n/a', 'n/a']);
      for (const [transport, format] of [
        ['rest', 'csv'],
        ['flight', 'csv'],
        ['rest', 'parquet'],
        ['flight', 'parquet'],
      ] as const) {
        if (transport === 'rest' && n > REST_MAX) continue;
        const out = join(dir, `out.${format}`);
        const m = await timed([BIN, 'sql', sql, '--out', out, '--transport', transport, '-q'], env, out);
        results.set(`${transport} ${format} ${n}`, m);
        rows.push([
          n.toLocaleString('en-US'),
          `${transport === 'rest' ? 'REST' : 'Flight'} ${format.toUpperCase()}`,
          rate(n, m.ms),
          fmt(m.cpuS),
          fmt(m.peakMiB),
        ]);
      }
    }
    const small = SIZES[0]!;
    const big = max;
    const get = (k: string) => results.get(k)?.ms ?? Number.NaN;
    const fcsv = get(`flight csv ${small}`);
    const goals = [
      [
        'Flight CSV ≥ 2× REST CSV (rows/s)',
        `${(get(`rest csv ${small}`) / fcsv).toFixed(2)}×`,
        check(get(`rest csv ${small}`) / fcsv >= 2),
      ],
      [
        'Flight CSV ≥ 0.5× the bare read',
        `${(get(`bare ${small}`) / fcsv).toFixed(2)}×`,
        check(get(`bare ${small}`) / fcsv >= 0.5),
      ],
      [
        'Flight Parquet ≥ 0.7× Flight CSV',
        `${(fcsv / get(`flight parquet ${small}`)).toFixed(2)}×`,
        check(fcsv / get(`flight parquet ${small}`) >= 0.7),
      ],
      [
        `peak RSS ≤ 150 MiB at ${big.toLocaleString('en-US')} rows (Flight CSV / Parquet)`,
        `${fmt(results.get(`flight csv ${big}`)?.peakMiB)} / ${fmt(results.get(`flight parquet ${big}`)?.peakMiB)} MiB`,
        check(
          Math.max(
            results.get(`flight csv ${big}`)?.peakMiB ?? 0,
            results.get(`flight parquet ${big}`)?.peakMiB ?? 0,
          ) <= 150,
        ),
      ],
      [
        `${big.toLocaleString('en-US')} rows within 20% of ${big / small}× the ${small.toLocaleString('en-US')} time (Flight CSV)`,
        `${(get(`flight csv ${big}`) / (fcsv * (big / small))).toFixed(2)}×`,
        check(Math.abs(get(`flight csv ${big}`) / (fcsv * (big / small)) - 1) <= 0.2),
      ],
    ];
    return [
      `\`SELECT * FROM big WHERE id <= N\` (5 columns) exported by \`dlake sql … --out FILE\`, one run each, on loopback; ` +
        'rows/s from the whole process (start-up, the query, the rows); CPU is user + sys of the dlake process.',
      '',
      table(['rows', 'how', 'rows/s', 'CPU (s)', 'peak RSS (MiB)'], rows),
      '',
      table(['goal', 'measured', ''], goals),
    ].join('\n');
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`## Export over Arrow Flight\n\n${await benchFlight()}`);
}
