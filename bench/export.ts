// Export benchmark: `dlake job export` of 1,000,000 rows × 5 columns from the emulator, side by
// side in one run with (a) a sequential loop that downloads the same pages with bare node:http and discards
// them and (b) a concurrent download-and-discard loop at the same concurrency; then Parquet against CSV, and
// the peak RSS of the dlake process at 1M and at 10k rows. The machine is shared, so its speed drifts: every
// figure is a median of runs taken in turn (A, B, C, A, B, C, …), and the goals are ratios between runs
// taken side by side, which hold when the speed moves. BENCH_COMPARE_BIN=/path/to/other/bin/dlake.js adds
// another build to the same rotation (how the README's "what each change bought" was measured).
//
// The emulator runs in this process; dlake and both baselines run as child processes, so each has its own
// event loop, as in real use. A baseline times its own loop (no process start), dlake is timed as a whole
// process (start-up, login state, the job's status, then the pages): the goal is read against the former, the
// stricter; the table also gives (b) timed as a whole process, as dlake is. Two scenarios: plain loopback,
// where the service answers a page in well under a millisecond, and a per-page latency (BENCH_LATENCY_MS,
// default 5 ms) standing for a real service's network round trip and result-store read.
//
//   npx tsx bench/export.ts            BENCH_ROWS=1000000 BENCH_RUNS=3 BENCH_CONCURRENCY=4 BENCH_LATENCY_MS=5
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BenchSession, benchSession, run } from './session.js';
import { median, table } from './stats.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const SMALL_ROWS = 10_000;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 5);
const COMPARE_BIN = process.env.BENCH_COMPARE_BIN;
const PAGE = 500;
const TIME = '/usr/bin/time';

/** The baseline: GET every page with node:http over keep-alive, `concurrency` at a time, and discard it. */
const BASELINE = `import http from 'node:http';
const [url, auth, id, rows, concurrency] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(concurrency) });
const get = (offset) => new Promise((resolve, reject) => {
  http.get(url + '/api/v3/job/' + id + '/results?offset=' + offset + '&limit=${PAGE}', { agent, headers: { authorization: auth } }, (res) => {
    if (res.statusCode !== 200) reject(new Error('status ' + res.statusCode));
    res.on('data', () => {});
    res.on('end', resolve);
    res.on('error', reject);
  }).on('error', reject);
});
let next = 0;
const worker = async () => { while (next < Number(rows)) { const o = next; next += ${PAGE}; await get(o); } };
const start = performance.now();
await Promise.all(Array.from({ length: Number(concurrency) }, worker));
process.stdout.write(String(performance.now() - start));
agent.destroy();
`;

interface Measured {
  ms: number;
  peakKiB?: number;
}

/** `dlake job export` (of `bin`), timed, with the peak RSS from GNU time (or none where it is missing). */
async function dlakeExport(s: BenchSession, id: string, file: string, bin = s.bin): Promise<Measured> {
  const args = [bin, 'job', 'export', id, '--out', file, '--concurrency', String(CONCURRENCY), '-q'];
  const rss = existsSync(TIME) ? `${file}.rss` : undefined;
  const { ms } = rss
    ? await run(TIME, ['-f', '%M', '-o', rss, process.execPath, ...args], s.env)
    : await run(process.execPath, args, s.env);
  const peakKiB = rss ? Number(readFileSync(rss, 'utf8').trim().split('\n').at(-1)) : undefined;
  rmSync(file, { force: true });
  return { ms, peakKiB };
}

const mib = (kib: number | undefined) => (kib === undefined ? 'n/a' : (kib / 1024).toFixed(1));
const rate = (rows: number, ms: number) => Math.round(rows / (ms / 1000)).toLocaleString('en-US');
const check = (ok: boolean) => (ok ? 'met' : 'missed');

export async function benchExport(): Promise<string> {
  const s = await benchSession(ROWS);
  try {
    const baseline = join(s.dir, 'baseline.mjs');
    writeFileSync(baseline, BASELINE);
    const small = await s.job(`SELECT * FROM big WHERE id <= ${SMALL_ROWS}`);
    const csv = join(s.dir, 'out.csv');
    const parquet = join(s.dir, 'out.parquet');
    /** The loop's own time (it prints it), and the time of its whole process, as dlake's is taken. */
    const fetchAll = (conc: number) =>
      run(
        process.execPath,
        [baseline, s.emu.url, `_service${s.token}`, s.big, String(ROWS), String(conc)],
        s.env,
      ).then((r) => ({ loop: Number(r.out), process: r.ms }));

    const speed: string[][] = [];
    const compared: string[][] = [];
    let csvLoopback = 0;
    let parquetLoopback = 0;
    const peaks = { csv: [] as number[], parquet: [] as number[] };
    for (const latency of [0, LATENCY_MS]) {
      s.emu.faults.clear();
      if (latency > 0) s.emu.fault({ kind: 'latency', path: /\/results$/, latencyMs: latency });
      const t = {
        seq: [] as number[],
        conc: [] as number[],
        concProcess: [] as number[],
        dlake: [] as number[],
        other: [] as number[],
      };
      const pq: number[] = [];
      // One warm-up of each, not counted.
      await fetchAll(CONCURRENCY);
      await dlakeExport(s, s.big, csv);
      for (let i = 0; i < RUNS; i++) {
        t.seq.push((await fetchAll(1)).loop);
        const conc = await fetchAll(CONCURRENCY);
        t.conc.push(conc.loop);
        t.concProcess.push(conc.process);
        const m = await dlakeExport(s, s.big, csv);
        t.dlake.push(m.ms);
        if (COMPARE_BIN) t.other.push((await dlakeExport(s, s.big, csv, COMPARE_BIN)).ms);
        if (latency === 0) {
          peaks.csv.push(m.peakKiB ?? Number.NaN);
          const p = await dlakeExport(s, s.big, parquet);
          pq.push(p.ms);
          peaks.parquet.push(p.peakKiB ?? Number.NaN);
        }
      }
      const [a, b, d] = [median(t.seq), median(t.conc), median(t.dlake)];
      const bProcess = median(t.concProcess);
      const goal = latency ? 0.8 : 0.5;
      speed.push([
        latency ? `${latency} ms a page` : 'loopback',
        rate(ROWS, d),
        rate(ROWS, a),
        rate(ROWS, b),
        `${(a / d).toFixed(2)}×`,
        `${(b / d).toFixed(2)}×`,
        `${(bProcess / d).toFixed(2)}×`,
        `≥ ${goal}× (b): ${check(b / d >= goal)}`,
      ]);
      if (COMPARE_BIN) {
        const o = median(t.other);
        compared.push([
          latency ? `${latency} ms a page` : 'loopback',
          rate(ROWS, d),
          rate(ROWS, o),
          `${(o / d).toFixed(2)}×`,
        ]);
      }
      if (latency === 0) {
        csvLoopback = d;
        parquetLoopback = median(pq);
      }
    }
    s.emu.faults.clear();

    // Memory: the peak RSS exporting 10k rows (1M rows were measured above, in the rotation).
    const smallPeaks: number[] = [];
    for (let i = 0; i < RUNS; i++) smallPeaks.push((await dlakeExport(s, small, csv)).peakKiB ?? Number.NaN);
    const [bigPeak, smallPeak, pqPeak] = [median(peaks.csv), median(smallPeaks), median(peaks.parquet)];
    const sizes = await (async () => {
      const out: Record<string, number> = {};
      for (const f of [csv, parquet]) {
        await run(process.execPath, [s.bin, 'job', 'export', s.big, '--out', f, '-q'], s.env);
        out[f] = statSync(f).size;
        rmSync(f);
      }
      return out;
    })();
    const pqRatio = csvLoopback / parquetLoopback;

    return [
      `Export of ${ROWS.toLocaleString('en-US')} rows × 5 columns (CSV ${(sizes[csv]! / 2 ** 20).toFixed(0)} MiB, ` +
        `Parquet ${(sizes[parquet]! / 2 ** 20).toFixed(0)} MiB), concurrency ${CONCURRENCY}, median of ${RUNS} runs taken in turn.`,
      '',
      table(
        [
          'service',
          'dlake job export (CSV) rows/s',
          '(a) sequential bare node:http rows/s',
          `(b) concurrent bare node:http (${CONCURRENCY}) rows/s`,
          'dlake vs (a)',
          'dlake vs (b)',
          'dlake vs (b) timed as a whole process',
          'goal',
        ],
        speed,
      ),
      '',
      table(
        ['format (loopback)', 'rows/s', 'vs CSV', 'goal'],
        [
          ['CSV', rate(ROWS, csvLoopback), '1.00×', ''],
          [
            'Parquet',
            rate(ROWS, parquetLoopback),
            `${pqRatio.toFixed(2)}×`,
            `≥ 0.7×: ${check(pqRatio >= 0.7)}`,
          ],
        ],
      ),
      '',
      table(
        ['rows exported', 'peak RSS of dlake (MiB)', 'goal'],
        [
          [
            `${ROWS.toLocaleString('en-US')} (CSV)`,
            mib(bigPeak),
            `≤ 120 MiB: ${check(bigPeak / 1024 <= 120)}`,
          ],
          [
            `${SMALL_ROWS.toLocaleString('en-US')} (CSV)`,
            mib(smallPeak),
            `1M within 20% of this: ${check(bigPeak <= smallPeak * 1.2)} (${((bigPeak / smallPeak - 1) * 100).toFixed(0)}%)`,
          ],
          [`${ROWS.toLocaleString('en-US')} (Parquet)`, mib(pqPeak), ''],
        ],
      ),
      ...(COMPARE_BIN
        ? ['', table(['service', 'this build rows/s', `${COMPARE_BIN} rows/s`, 'other vs this'], compared)]
        : []),
    ].join('\n');
  } finally {
    await s.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`## Export\n\n${await benchExport()}`);
}
