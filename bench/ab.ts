// A/B of builds: the same `job export` by several builds of dlake (paths to their bin/dlake.js), taken in
// turn (A, B, C, A, B, C, …) so that a shared machine's drifting speed hits all alike; medians of time and
// of peak RSS. How the README's "what each change bought" was measured.
//
//   npx tsx bench/ab.ts /tmp/before/bin/dlake.js bin/dlake.js      BENCH_ROWS=1000000 BENCH_RUNS=5 BENCH_FORMAT=csv
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { benchSession, run } from './session.js';
import { median, table } from './stats.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const FORMAT = process.env.BENCH_FORMAT ?? 'csv';
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 0);

const bins = process.argv.slice(2).map((b) => resolve(b));
const s = await benchSession(ROWS);
try {
  if (LATENCY_MS > 0) s.emu.fault({ kind: 'latency', path: /\/results$/, latencyMs: LATENCY_MS });
  const file = join(s.dir, `out.${FORMAT}`);
  const times = bins.map(() => [] as number[]);
  const peaks = bins.map(() => [] as number[]);
  for (let i = -1; i < RUNS; i++) {
    for (const [k, bin] of bins.entries()) {
      const rss = `${file}.rss`;
      const args = [
        '-f',
        '%M',
        '-o',
        rss,
        process.execPath,
        bin,
        'job',
        'export',
        s.big,
        '--out',
        file,
        '-q',
      ];
      const { ms } = await run('/usr/bin/time', args, s.env);
      // The first round warms up the emulator and the disk cache: not counted.
      if (i >= 0) {
        times[k]!.push(ms);
        if (existsSync(rss)) peaks[k]!.push(Number(readFileSync(rss, 'utf8').trim().split('\n').at(-1)));
      }
      rmSync(file, { force: true });
    }
  }
  const first = median(times[0]!);
  console.log(
    `${ROWS.toLocaleString('en-US')} rows to ${FORMAT.toUpperCase()}${LATENCY_MS ? `, ${LATENCY_MS} ms a page` : ', loopback'}, median of ${RUNS} runs in turn\n`,
  );
  console.log(
    table(
      ['build', 'seconds', 'rows/s', 'speed vs first', 'peak RSS MiB'],
      bins.map((b, k) => {
        const t = median(times[k]!);
        return [
          b,
          (t / 1000).toFixed(2),
          Math.round(ROWS / (t / 1000)).toLocaleString('en-US'),
          `${(first / t).toFixed(2)}×`,
          (median(peaks[k]!) / 1024).toFixed(1),
        ];
      }),
    ),
  );
} finally {
  await s.close();
}
