// Export over REST and over Arrow Flight, against a bare Flight read (docs/benchmarks.md "Export over Arrow
// Flight"): the same query, `SELECT * FROM big WHERE id <= N` (5 columns), exported by `dlake sql … --out` to
// CSV, NDJSON and Parquet over each transport, at 1M and 10M rows, and read by a bare Flight client that
// discards the batches (bench/flight-reader.ts, bundled by esbuild as dlake is: dlake's gRPC client and
// apache-arrow's reader). Every run is a child process timed as a whole (start-up included), its CPU (user +
// sys) and peak RSS from GNU time; the emulator, its Flight server included, runs in this process on the same
// cores. Runs are taken in turn (bare, Flight CSV, … REST Parquet, then again) and each figure is the median.
// REST at 10M rows is left out unless `restMax` says otherwise: the emulator holds a REST job's rows in memory
// as objects, which 10M rows of this table do not fit well.
//
//   npx tsx --conditions=dlake-source bench/flight.ts [--rows 1M,10M] [--runs 3] [--formats csv,ndjson,parquet]
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startEmulator } from 'dlake-emulator';
import { build } from 'esbuild';
import { BIN } from '../test/helpers/dlake.js';
import { loggedIn, run } from './session.js';
import { median, table } from './stats.js';

const TIME = '/usr/bin/time';
const MiB = 2 ** 20;

type Transport = 'rest' | 'flight';
type Format = 'csv' | 'ndjson' | 'parquet';

export interface ExportMatrixOptions {
  /** Row counts, smallest first (default 1M and 10M). */
  sizes: number[];
  /** Runs of each measurement at sizes up to 1M rows (one run above: a 10M run takes tens of seconds). */
  runs: number;
  formats: Format[];
  /** The largest size REST is measured at (default 1M). */
  restMax: number;
}

export const DEFAULT_MATRIX: ExportMatrixOptions = {
  sizes: [1_000_000, 10_000_000],
  runs: 3,
  formats: ['csv', 'ndjson', 'parquet'],
  restMax: 1_000_000,
};

interface Measured {
  ms: number;
  cpuS: number;
  peakMiB: number;
  bytes?: number;
  /** The bare reader's own loop (without its process start). */
  loopMs?: number;
}

/** A child process timed as a whole, with its CPU and peak RSS from GNU time (when installed). */
export async function timed(
  args: string[],
  env: Record<string, string>,
  stats: string,
): Promise<Measured & { out: string }> {
  if (!existsSync(TIME)) {
    const r = await run(process.execPath, args, env);
    return { ms: r.ms, cpuS: Number.NaN, peakMiB: Number.NaN, out: r.out };
  }
  const r = await run(TIME, ['-f', '%U %S %M', '-o', stats, process.execPath, ...args], env);
  const [user, sys, kib] = readFileSync(stats, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  return { ms: r.ms, cpuS: user! + sys!, peakMiB: kib! / 1024, out: r.out };
}

const rate = (rows: number, ms: number) => Math.round(rows / (ms / 1000)).toLocaleString('en-US');
const fmt = (n: number | undefined, d = 1) => (n === undefined || Number.isNaN(n) ? 'n/a' : n.toFixed(d));
const check = (ok: boolean) => (ok ? 'met' : 'missed');
const label = (n: number) => (n % 1_000_000 === 0 ? `${n / 1_000_000}M` : n.toLocaleString('en-US'));

function medianOf(ms: Measured[]): Measured {
  const pick = (f: (m: Measured) => number | undefined) => {
    const v = ms.map(f).filter((x): x is number => x !== undefined);
    return v.length ? median(v) : undefined;
  };
  return {
    ms: pick((m) => m.ms)!,
    cpuS: pick((m) => m.cpuS)!,
    peakMiB: pick((m) => m.peakMiB)!,
    bytes: ms[0]?.bytes,
    loopMs: pick((m) => m.loopMs),
  };
}

/** The bare reader (flight-reader.ts) in `dir`, bundled as dlake is (no tsx in the timed process). */
export async function bareReader(dir: string): Promise<string> {
  const out = join(dir, 'flight-reader.cjs');
  await build({
    entryPoints: [resolve(import.meta.dirname, 'flight-reader.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20.18',
    conditions: ['dlake-source'],
    define: { __DLAKE_VERSION__: '"bench"' },
    outfile: out,
    logLevel: 'warning',
  });
  return out;
}

export async function benchFlight(opts: ExportMatrixOptions = DEFAULT_MATRIX): Promise<string> {
  const started = performance.now();
  const loadBefore = loadavg()[0]!;
  const max = Math.max(...opts.sizes);
  const emu = await startEmulator({ bigRows: max, jobStepMs: 1, flightPort: 0 });
  const dir = mkdtempSync(join(tmpdir(), 'dlake-bench-flight-'));
  try {
    // The profile stores its Flight endpoint: a Flight URL only in the environment gets no stored credential.
    const env = await loggedIn(dir, emu.url, ['--flight-url', emu.flight!.url]);
    const flightToken = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')).tokens.default.flight
      .token as string;
    const reader = await bareReader(dir);

    const cases: Array<{ key: string; transport?: Transport; format?: Format }> = [{ key: 'bare' }];
    for (const transport of ['flight', 'rest'] as const)
      for (const format of opts.formats) cases.push({ key: `${transport} ${format}`, transport, format });

    const results = new Map<string, Measured>();
    for (const n of opts.sizes) {
      const sql = `SELECT * FROM big WHERE id <= ${n}`;
      const runs = n <= 1_000_000 ? opts.runs : 1;
      const taken = new Map<string, Measured[]>();
      for (let round = -1; round < runs; round++) {
        for (const c of cases) {
          if (c.transport === 'rest' && n > opts.restMax) continue;
          // One warm-up round at the smallest size (the page cache, the JIT of the emulator), not counted.
          if (round < 0 && (n !== opts.sizes[0] || c.key !== 'bare')) continue;
          let m: Measured;
          if (!c.transport) {
            const r = await timed(
              [reader, emu.flight!.url, `Bearer ${flightToken}`, sql],
              env,
              join(dir, 'bare.time'),
            );
            const b = JSON.parse(r.out) as { ms: number; rows: number };
            if (b.rows !== n) throw new Error(`the bare reader read ${b.rows} rows, not ${n}`);
            m = { ...r, loopMs: b.ms };
          } else {
            const out = join(dir, `out.${c.format}`);
            m = await timed(
              [BIN, 'sql', sql, '--out', out, '--transport', c.transport, '-q'],
              env,
              `${out}.time`,
            );
            m.bytes = statSync(out).size;
            rmSync(out, { force: true });
          }
          if (round >= 0) taken.set(c.key, [...(taken.get(c.key) ?? []), m]);
        }
      }
      for (const [k, ms] of taken) results.set(`${k} ${n}`, medianOf(ms));
    }

    const rows: string[][] = [];
    for (const n of opts.sizes)
      for (const c of cases) {
        const m = results.get(`${c.key} ${n}`);
        if (!m) continue;
        rows.push([
          label(n),
          c.transport
            ? `${c.transport === 'rest' ? 'REST' : 'Flight'} ${c.format!.toUpperCase()}`
            : 'bare Flight read (discards)',
          rate(n, m.ms),
          m.loopMs === undefined ? '' : rate(n, m.loopMs),
          fmt(m.cpuS),
          fmt(m.peakMiB),
          m.bytes === undefined ? '' : fmt(m.bytes / MiB),
        ]);
      }

    const goals: string[][] = [];
    const ms = (k: string) => results.get(k)?.ms ?? Number.NaN;
    for (const n of opts.sizes) {
      const bare = ms(`bare ${n}`);
      const csv = ms(`flight csv ${n}`);
      if (opts.formats.includes('csv')) {
        const r = bare / csv;
        const loop = (results.get(`bare ${n}`)?.loopMs ?? Number.NaN) / csv;
        goals.push([
          `${label(n)}: Flight CSV ≥ 0.9× the bare read (rows/s, whole processes)`,
          `${r.toFixed(2)}× (against the bare loop alone: ${loop.toFixed(2)}×)`,
          check(r >= 0.9),
        ]);
      }
      if (opts.formats.includes('csv') && opts.formats.includes('parquet')) {
        const r = csv / ms(`flight parquet ${n}`);
        goals.push([
          `${label(n)}: Parquet over Flight ≥ 0.7× Flight CSV`,
          `${r.toFixed(2)}×`,
          check(r >= 0.7),
        ]);
      }
    }
    const peaks = [...results].filter(([k]) => k.endsWith(` ${max}`) && !k.startsWith('bare'));
    if (peaks.length)
      goals.push([
        `peak RSS ≤ 150 MiB at ${label(max)} rows, every format`,
        peaks.map(([k, m]) => `${k.replace(` ${max}`, '')} ${fmt(m.peakMiB)}`).join(', '),
        check(peaks.every(([, m]) => m.peakMiB <= 150)),
      ]);
    const small = opts.sizes[0]!;
    if (max > small)
      for (const c of cases.slice(1)) {
        const r = ms(`${c.key} ${max}`) / (ms(`${c.key} ${small}`) * (max / small));
        if (Number.isNaN(r)) continue;
        goals.push([
          `${label(max)} within 20% of ${max / small}× the ${label(small)} time (${c.key})`,
          `${r.toFixed(2)}×`,
          check(Math.abs(r - 1) <= 0.2),
        ]);
      }

    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    return [
      `\`SELECT * FROM big WHERE id <= N\` (5 columns) exported by \`dlake sql … --out FILE\` on loopback; ` +
        `${opts.runs > 1 ? `median of ${opts.runs} runs taken in turn up to 1M rows, one run above` : 'one run each'}; rows/s from the whole process ` +
        '(start-up, the query, the rows), CPU user + sys of that process. ' +
        `Load average ${loadBefore.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end; ${seconds} s in all.`,
      '',
      table(
        ['rows', 'how', 'rows/s', 'rows/s of its loop alone', 'CPU (s)', 'peak RSS (MiB)', 'file (MiB)'],
        rows,
      ),
      '',
      table(['goal', 'measured', ''], goals),
    ].join('\n');
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `1M`, `10M`, `250k`, `250000` → rows. */
export function parseRows(text: string): number[] {
  return text.split(',').map((t) => {
    const m = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(t.trim());
    if (!m) throw new Error(`--rows: ${t} is not a row count (1M, 250k, 10000)`);
    const unit = { '': 1, k: 1e3, K: 1e3, m: 1e6, M: 1e6 }[m[2]!]!;
    return Math.round(Number(m[1]) * unit);
  });
}

/** The matrix's options from command-line flags (`--rows`, `--runs`, `--formats`, `--rest-max`). */
export function matrixOptions(argv: string[]): ExportMatrixOptions {
  const value = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const rows = value('--rows');
  const sizes = rows ? parseRows(rows).sort((a, b) => a - b) : DEFAULT_MATRIX.sizes;
  const formats = (value('--formats')?.split(',') ?? DEFAULT_MATRIX.formats) as Format[];
  for (const f of formats)
    if (!DEFAULT_MATRIX.formats.includes(f)) throw new Error(`--formats: ${f} is not csv, ndjson or parquet`);
  const restMax = value('--rest-max');
  return {
    sizes,
    runs: Number(value('--runs') ?? DEFAULT_MATRIX.runs),
    formats,
    restMax: restMax ? parseRows(restMax)[0]! : DEFAULT_MATRIX.restMax,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(
    `## Export over REST and Arrow Flight\n\n${await benchFlight(matrixOptions(process.argv.slice(2)))}`,
  );
}
