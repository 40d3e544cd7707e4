// Export benchmark (issue 4): `dlake job export` of 1,000,000 rows × 5 columns from the emulator to CSV,
// side by side in one run with (a) a sequential loop that downloads the same pages with bare node:http and
// discards them, and (b) a concurrent download-and-discard loop at the same concurrency. Runs are
// interleaved so machine noise hits all three alike; medians are reported. Peak RSS of the dlake process is
// measured at 1M and at 10k rows.
//
// The emulator runs in this process; dlake and both baselines run as child processes, so each has its own
// event loop, as in real use. Two scenarios: plain loopback, where the service answers a page in well under
// a millisecond, and a per-page latency (BENCH_LATENCY_MS, default 5 ms) standing for a real service's
// network round trip and result-store read.
//
//   npx tsx bench/export.ts            BENCH_ROWS=1000000 BENCH_RUNS=3 BENCH_CONCURRENCY=4 BENCH_LATENCY_MS=5
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Emulator, startEmulator } from 'dlake-emulator';
import { BIN, cleanEnv, runDlake } from '../test/helpers/dlake.js';
import { median, table } from './stats.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const SMALL_ROWS = 10_000;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 5);
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

function run(cmd: string, args: string[], env: Record<string, string>): Promise<{ ms: number; out: string }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}: ${err}`));
      else resolve({ ms: performance.now() - start, out });
    });
  });
}

/** `dlake job export`, timed, with the peak RSS from GNU time (or none where it is missing). */
async function dlakeExport(id: string, file: string, env: Record<string, string>): Promise<Measured> {
  const args = [BIN, 'job', 'export', id, '--out', file, '--concurrency', String(CONCURRENCY), '-q'];
  const rss = existsSync(TIME) ? `${file}.rss` : undefined;
  const { ms } = rss
    ? await run(TIME, ['-f', '%M', '-o', rss, process.execPath, ...args], env)
    : await run(process.execPath, args, env);
  const peakKiB = rss ? Number(readFileSync(rss, 'utf8').trim().split('\n').at(-1)) : undefined;
  rmSync(file, { force: true });
  return { ms, peakKiB };
}

async function completedJob(emu: Emulator, sql: string, env: Record<string, string>): Promise<string> {
  const r = await runDlake(['sql', sql, '--no-wait'], { env });
  if (r.code !== 0) throw new Error(r.stderr);
  const id = r.stdout.trim();
  const jobs = emu.jobs;
  while (jobs.get(id)?.state !== 'COMPLETED') {
    if (jobs.get(id)?.state === 'FAILED') throw new Error(jobs.get(id)?.errorMessage);
    await new Promise((res) => setTimeout(res, 50));
  }
  return id;
}

const mib = (kib: number | undefined) => (kib === undefined ? 'n/a' : (kib / 1024).toFixed(1));
const rate = (rows: number, ms: number) => Math.round(rows / (ms / 1000)).toLocaleString('en-US');

export async function benchExport(): Promise<string> {
  const emu = await startEmulator({ bigRows: ROWS, jobStepMs: 1 });
  const dir = mkdtempSync(join(tmpdir(), 'dlake-bench-export-'));
  try {
    const env = cleanEnv({ DLAKE_CONFIG_DIR: dir, DLAKE_URL: emu.url });
    const login = await runDlake(['login', '-u', 'admin', '--password-stdin'], {
      input: 'admin-pass-1',
      env,
    });
    if (login.code !== 0) throw new Error(login.stderr);
    const token = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')).tokens.default
      .token as string;
    const baseline = join(dir, 'baseline.mjs');
    writeFileSync(baseline, BASELINE);
    const big = await completedJob(emu, 'SELECT * FROM big', env);
    const small = await completedJob(emu, `SELECT * FROM big WHERE id <= ${SMALL_ROWS}`, env);
    const file = join(dir, 'out.csv');
    const fetchAll = (conc: number) =>
      run(
        process.execPath,
        [baseline, emu.url, `_service${token}`, big, String(ROWS), String(conc)],
        env,
      ).then((r) => Number(r.out));

    const speed: string[][] = [];
    const notes: string[] = [];
    for (const latency of [0, LATENCY_MS]) {
      emu.faults.clear();
      if (latency > 0) emu.fault({ kind: 'latency', path: /\/results$/, latencyMs: latency });
      const t = { seq: [] as number[], conc: [] as number[], dlake: [] as number[] };
      // One warm-up of each, not counted.
      await fetchAll(1);
      await dlakeExport(big, file, env);
      for (let i = 0; i < RUNS; i++) {
        t.seq.push(await fetchAll(1));
        t.conc.push(await fetchAll(CONCURRENCY));
        t.dlake.push((await dlakeExport(big, file, env)).ms);
      }
      const [a, b, d] = [median(t.seq), median(t.conc), median(t.dlake)];
      speed.push([
        latency ? `${latency} ms a page` : 'loopback',
        rate(ROWS, d),
        rate(ROWS, a),
        rate(ROWS, b),
        `${(a / d).toFixed(2)}×`,
        `${(b / d).toFixed(2)}×`,
      ]);
      notes.push(`${latency ? `${latency} ms` : 'loopback'}: dlake ${(d / 1000).toFixed(2)} s`);
    }
    emu.faults.clear();

    // Memory: the dlake process's peak RSS exporting 1M and 10k rows (medians of RUNS).
    const peak = async (id: string) => {
      const kib: number[] = [];
      for (let i = 0; i < RUNS; i++) kib.push((await dlakeExport(id, file, env)).peakKiB ?? Number.NaN);
      return median(kib);
    };
    const [bigPeak, smallPeak] = [await peak(big), await peak(small)];
    const check = (ok: boolean) => (ok ? 'met' : 'missed');
    const bytes = await (async () => {
      const f = join(dir, 'size.csv');
      await run(process.execPath, [BIN, 'job', 'export', big, '--out', f, '-q'], env);
      const size = statSync(f).size;
      rmSync(f);
      return size;
    })();

    return [
      `Export of ${ROWS.toLocaleString('en-US')} rows × 5 columns to CSV (${(bytes / 1024 / 1024).toFixed(0)} MiB), ` +
        `concurrency ${CONCURRENCY}, median of ${RUNS} interleaved runs. Goals: ≥ 1.5× (a), ≥ 0.8× (b).`,
      '',
      table(
        [
          'service',
          'dlake job export rows/s',
          '(a) sequential bare node:http rows/s',
          `(b) concurrent bare node:http (${CONCURRENCY}) rows/s`,
          'dlake vs (a)',
          'dlake vs (b)',
        ],
        speed,
      ),
      '',
      table(
        ['rows exported', 'peak RSS of dlake (MiB)', 'goal'],
        [
          [ROWS.toLocaleString('en-US'), mib(bigPeak), `≤ 120 MiB: ${check(bigPeak / 1024 <= 120)}`],
          [
            SMALL_ROWS.toLocaleString('en-US'),
            mib(smallPeak),
            `1M within 20% of this: ${check(bigPeak <= smallPeak * 1.2)} (${((bigPeak / smallPeak - 1) * 100).toFixed(0)}%)`,
          ],
        ],
      ),
    ].join('\n');
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`## Export\n\n${await benchExport()}`);
}
