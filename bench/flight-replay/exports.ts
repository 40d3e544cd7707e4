// Flight exports against a server that is never the bottleneck (docs/benchmarks.md "Flight export against a
// replaying server"): the replay server of this folder (Arrow C++'s Flight server replaying batches made once,
// 4,095 rows each, as the service sends them) is read by the bare reader of bench/flight-reader.ts (dlake's own
// gRPC client, validation and apache-arrow decoding, bundled as dlake is, every batch discarded) and exported by
// `dlake sql … --out FILE --transport flight` in every format, flat and nested (the server's two tables). Each
// run is a child process timed whole, CPU and peak RSS from GNU time. The bare read and the exports of a size and
// shape are taken in turn, round after round, and each export's ratio to the bare read is the median of its
// rounds' ratios: the machine's load, which moves both, cancels. The REST side of `login --flight-url` is the
// emulator's (its Flight endpoint is the replay server).
//
//   npx tsx --conditions=dlake-source bench/flight-replay/exports.ts [--rows 1M,10M] [--runs 3]
//     [--formats csv,ndjson,json,parquet] [--shapes flat,nested] [--profile DIR] [--vs OTHER/bin/dlake.js]
//   (--profile: a --cpu-prof of each dlake run into DIR, and its top functions printed; --vs: another build of
//   dlake, a checkout of another commit after `npm run build`, run in turn with this one, each export of the
//   one beside the other's, so that a change is measured under the same load)
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startEmulator } from 'dlake-emulator';
import { BIN } from '../../test/helpers/dlake.js';
import { bareReader, parseRows, timed } from '../flight.js';
import { topFunctions } from '../profile.js';
import { loggedIn } from '../session.js';
import { median, table } from '../stats.js';
import { startReplayServer } from './replay.js';

const TIME = '/usr/bin/time';
const MiB = 2 ** 20;
const FORMATS = ['csv', 'ndjson', 'json', 'parquet'] as const;
type Format = (typeof FORMATS)[number];
type Shape = 'flat' | 'nested';

interface Measured {
  ms: number;
  cpuS: number;
  peakMiB: number;
  bytes?: number;
  load: number;
}

interface ReplayOptions {
  sizes: number[];
  runs: number;
  formats: Format[];
  shapes: Shape[];
  /** A folder for a --cpu-prof of every dlake run. */
  profile?: string;
  /** Another build's bin/dlake.js, run beside this one. */
  vs?: string;
}

/** A child process timed whole (flight.ts), with the load average at its start. */
async function timedAt(args: string[], env: Record<string, string>, stats: string) {
  const load = loadavg()[0]!;
  return { ...(await timed(args, env, stats)), load };
}

export async function benchReplayExports(opts: ReplayOptions): Promise<string> {
  if (!existsSync(TIME)) throw new Error(`${TIME} (GNU time) is needed for CPU and peak RSS`);
  const replay = await startReplayServer();
  const emu = await startEmulator({ jobStepMs: 1 });
  const dir = mkdtempSync(join(tmpdir(), 'dlake-bench-replay-'));
  const loads = [loadavg()[0]!];
  try {
    const env = await loggedIn(dir, emu.url, ['--flight-url', replay.url]);
    const reader = await bareReader(dir);
    /**
     * The builds measured: this one, and the one --vs names (its results keyed `FORMAT (vs)`), each with a
     * config folder of its own (a build keeps only its own code cache there).
     */
    const builds: [string, string, Record<string, string>][] = [['', BIN, env]];
    if (opts.vs) {
      mkdirSync(join(dir, 'vs'));
      builds.push([' (vs)', opts.vs, await loggedIn(join(dir, 'vs'), emu.url, ['--flight-url', replay.url])]);
    }
    const rows: string[][] = [];
    /** Each export's ratios to the bare read of its round, and its measures, by `size shape format`. */
    const ratios = new Map<string, number[]>();
    const measured = new Map<string, Measured[]>();
    const profiles: string[] = [];
    for (const n of opts.sizes)
      for (const shape of opts.shapes) {
        const sql = `SELECT * FROM ${shape} LIMIT ${n}`;
        const keep = (key: string, m: Measured) => measured.set(key, [...(measured.get(key) ?? []), m]);
        for (let round = 0; round < opts.runs; round++) {
          const bare = await timedAt([reader, replay.url, 'Bearer replay', sql], env, join(dir, 'bare.time'));
          const got = JSON.parse(bare.out) as { rows: number };
          if (got.rows !== n) throw new Error(`the bare reader read ${got.rows} rows, not ${n}`);
          keep(`${n} ${shape} bare`, bare);
          for (const format of opts.formats)
            for (const [build, bin, buildEnv] of builds) {
              const out = join(dir, `out.${format}`);
              const what = `${format}${build}`;
              const profDir = opts.profile && join(opts.profile, `${shape}-${n}-${what.replace(' ', '-')}`);
              if (profDir) mkdirSync(profDir, { recursive: true });
              const prof = profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [];
              const m = await timedAt(
                [...prof, bin, 'sql', sql, '--out', out, '--transport', 'flight', '-q'],
                buildEnv,
                join(dir, `${format}.time`),
              );
              m.bytes = statSync(out).size;
              rmSync(out);
              const key = `${n} ${shape} ${what}`;
              keep(key, m);
              ratios.set(key, [...(ratios.get(key) ?? []), m.ms / bare.ms]);
              if (profDir && round === 0) profiles.push(profDir);
            }
        }
        loads.push(loadavg()[0]!);
        const of = (key: string) => {
          const all = measured.get(key)!;
          return {
            ms: median(all.map((x) => x.ms)),
            cpuS: median(all.map((x) => x.cpuS)),
            peakMiB: Math.max(...all.map((x) => x.peakMiB)),
            bytes: all[0]!.bytes,
            load: median(all.map((x) => x.load)),
          };
        };
        const line = (how: string, m: ReturnType<typeof of>, ratio: string) => [
          n.toLocaleString('en-US'),
          shape,
          how,
          Math.round(n / (m.ms / 1000)).toLocaleString('en-US'),
          ratio,
          m.cpuS.toFixed(1),
          m.peakMiB.toFixed(1),
          m.bytes === undefined ? '' : (m.bytes / MiB).toFixed(1),
          m.load.toFixed(1),
        ];
        rows.push(line('bare read (decodes, discards)', of(`${n} ${shape} bare`), '1.00×'));
        for (const format of opts.formats)
          for (const [build] of builds) {
            const key = `${n} ${shape} ${format}${build}`;
            rows.push(line(`dlake ${format}${build}`, of(key), `${median(ratios.get(key)!).toFixed(2)}×`));
          }
      }

    const goals: string[][] = [];
    const top = Math.max(...opts.sizes);
    for (const shape of opts.shapes)
      for (const format of opts.formats) {
        const r = median(ratios.get(`${top} ${shape} ${format}`)!);
        goals.push([
          `${top.toLocaleString('en-US')} ${shape} ${format} within 1.25× the bare read`,
          `${r.toFixed(2)}×`,
          r <= 1.25 ? 'met' : 'missed',
        ]);
      }
    const peaks = [...measured.entries()].filter(([k]) => !k.endsWith('bare') && !k.endsWith('(vs)'));
    const peak = Math.max(...peaks.flatMap(([, ms]) => ms.map((m) => m.peakMiB)));
    goals.push([
      'peak RSS ≤ 150 MiB, every export',
      `${peak.toFixed(1)} MiB at most`,
      peak <= 150 ? 'met' : 'missed',
    ]);
    if (opts.shapes.length === 2 && opts.formats.includes('parquet') && opts.formats.includes('csv'))
      for (const n of opts.sizes) {
        // Rows/s of nested Parquet against flat CSV: each to its own bare read, so that the load cancels.
        const r = median(ratios.get(`${n} flat csv`)!) / median(ratios.get(`${n} nested parquet`)!);
        const bareShapes =
          median(measured.get(`${n} flat bare`)!.map((m) => m.ms)) /
          median(measured.get(`${n} nested bare`)!.map((m) => m.ms));
        const rr = r * bareShapes;
        goals.push([
          `${n.toLocaleString('en-US')} nested Parquet ≥ 0.7× flat Flight CSV (rows/s)`,
          `${rr.toFixed(2)}×`,
          rr >= 0.7 ? 'met' : 'missed',
        ]);
      }
    const profileLines = profiles.flatMap((p) => {
      const file = readdirSync(p).find((f) => f.endsWith('.cpuprofile'));
      return file ? ['', `${p}:`, ...topFunctions(join(p, file), 15).map((l) => `    ${l}`)] : [];
    });
    return [
      `Load average ${loads.map((l) => l.toFixed(1)).join(' → ')} (Node ${process.versions.node}); ` +
        `${opts.runs} round${opts.runs > 1 ? 's' : ''} each, the bare read and the exports in turn; rows/s ` +
        "and CPU the median, peak RSS the largest, ÷ bare read the median of the rounds' ratios.",
      '',
      table(
        [
          'rows',
          'shape',
          'how',
          'rows/s',
          '÷ bare read (time)',
          'CPU (s)',
          'peak RSS (MiB)',
          'file (MiB)',
          'load',
        ],
        rows,
      ),
      '',
      table(['goal', 'measured', ''], goals),
      ...profileLines,
    ].join('\n');
  } finally {
    await replay.close();
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The options from command-line flags (`--rows`, `--runs`, `--formats`, `--shapes`, `--profile`). */
export function replayOptions(argv: string[]): ReplayOptions {
  const value = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const formats = (value('--formats')?.split(',') ?? [...FORMATS]) as Format[];
  for (const f of formats)
    if (!FORMATS.includes(f)) throw new Error(`--formats: ${f} is not ${FORMATS.join(', ')}`);
  const shapes = (value('--shapes')?.split(',') ?? ['flat', 'nested']) as Shape[];
  const profile = value('--profile');
  const vs = value('--vs');
  return {
    sizes: parseRows(value('--rows') ?? '1M,10M').sort((a, b) => a - b),
    runs: Number(value('--runs') ?? 3),
    formats,
    shapes,
    profile: profile ? resolve(profile) : undefined,
    vs: vs ? resolve(vs) : undefined,
  };
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.dirname, 'exports.ts'))
  console.log(await benchReplayExports(replayOptions(process.argv.slice(2))));
