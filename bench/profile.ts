// Where an export's CPU time goes: runs `dlake job export` of BENCH_ROWS rows (default 1M) × 5 columns
// under `node --cpu-prof`, then splits the profile's samples by what they were doing, attributing each
// sample to the nearest frame on its stack that names a stage: JSON parsing, the exact-number check, the
// format writer (CSV, JSON or Parquet), file writes, HTTP, garbage collection, the rest.
//
//   npx tsx bench/profile.ts            BENCH_ROWS=1000000 BENCH_FORMAT=csv
//   BENCH_TOP=N prints the N functions with the most self time; BENCH_PROFILE_OUT=FILE keeps the profile.
//   npx tsx bench/profile.ts --top DIR   the top functions of every --cpu-prof file under DIR, by source line
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchSession, run } from './session.js';
import { table } from './stats.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber?: number; columnNumber?: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Stages, first match wins, tested from the sample's own frame up to the root. */
const STAGES: Array<[string, (f: ProfileNode['callFrame']) => boolean]> = [
  ['garbage collection', (f) => f.functionName === '(garbage collector)'],
  ['idle (waiting for the service or the disk)', (f) => f.functionName === '(idle)'],
  ['JSON parsing', (f) => f.functionName === 'parse' && f.url === ''],
  [
    'exact-number check (regex scan of each body)',
    (f) => f.functionName === 'test' || f.functionName === 'exec',
  ],
  ['JSON parsing', (f) => /parseJsonExact|parseResultsPage/.test(f.functionName)],
  [
    'pages read straight to CSV (json-csv)',
    (f) =>
      /json-csv/.test(f.url) ||
      /^(orderedRow|anyRow|rows|cell|string|skipWs|skipValue|eat|expect|key)$/.test(f.functionName),
  ],
  [
    'CSV writing (csv-stringify)',
    (f) => /csv-stringify/.test(f.url) || /^(stringify|csvCell)$/.test(f.functionName),
  ],
  ['Parquet encoding (hyparquet-writer)', (f) => /hyparquet/.test(f.url)],
  ['JSON/NDJSON writing', (f) => /JsonFormatter|rowText|inSchemaOrder|stringifyExact/.test(f.functionName)],
  [
    'file writes',
    (f) =>
      /node:fs|node:internal\/fs|WriteStream|writeOrBuffer|_write|file-writer/.test(
        `${f.url} ${f.functionName}`,
      ) || /^(append|appendBytes|rotate|enqueue|utf8Write)$/.test(f.functionName),
  ],
  ['HTTP requests sent (socket writes)', (f) => f.functionName === 'writeLatin1String'],
  [
    'HTTP (undici: requests, parsing answers, body reading)',
    // In the bundle undici's frames name dist/cli.cjs, not undici: known by their function names.
    (f) =>
      /undici|^wasm/.test(f.url) ||
      /^(writeH1|_resume|resume|onHttpSocketReadable|readMore|execute|onHeadersComplete|onBody|onMessageComplete|wasm_on_\w+|RequestHandler|consumeEnd|consumePush|chunksDecode|Client\.<computed>|dispatch|readInto|sendOnce)$/.test(
        f.functionName,
      ),
  ],
  ['format writer, other', (f) => /Formatter|page$/.test(f.functionName)],
];

function split(profile: Profile): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stageOf = new Map<number, string>();
  const classify = (id: number): string => {
    const known = stageOf.get(id);
    if (known) return known;
    let stage = 'other (dlake, Node internals, start-up)';
    outer: for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at)!.callFrame;
      for (const [name, test] of STAGES) {
        if (test(f)) {
          stage = name;
          break outer;
        }
      }
    }
    stageOf.set(id, stage);
    return stage;
  };
  const out = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const s = classify(id);
    out.set(s, (out.get(s) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return out;
}

/** A frame of the bundle by its source (the build's source maps, beside each bundled file): `name file:line`. */
function sourceName(f: ProfileNode['callFrame'], maps: Map<string, SourceMap | undefined>): string {
  const file = f.url.startsWith('file://') ? fileURLToPath(f.url) : f.url;
  if (!maps.has(file)) {
    const map = `${file}.map`;
    maps.set(file, existsSync(map) ? new SourceMap(JSON.parse(readFileSync(map, 'utf8'))) : undefined);
  }
  const entry = maps.get(file)?.findEntry(f.lineNumber ?? 0, f.columnNumber ?? 0);
  if (entry && 'originalSource' in entry && entry.originalSource) {
    const source = entry.originalSource.replace(/^.*?(node_modules|src)\//, '$1/');
    return `${(entry as { name?: string }).name ?? f.functionName ?? '(anonymous)'} ${source}:${entry.originalLine + 1}`;
  }
  return `${f.functionName || '(anonymous)'} ${file.split('/').slice(-2).join('/')}`;
}

/**
 * The functions with the most self time, as `share  ms  name file:line` (the bundle's frames by their source):
 * of a profile, or of a --cpu-prof file (BENCH_TOP=N prints them here, to refine the stages;
 * bench/flight-replay/exports.ts --profile too).
 */
export function topFunctions(from: Profile | string, n: number): string[] {
  const profile = typeof from === 'string' ? (JSON.parse(readFileSync(from, 'utf8')) as Profile) : from;
  const self = new Map<number, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    self.set(id, (self.get(id) ?? 0) + ms);
    total += ms;
  });
  const maps = new Map<string, SourceMap | undefined>();
  const byName = new Map<string, number>();
  for (const node of profile.nodes) {
    const key = sourceName(node.callFrame, maps);
    byName.set(key, (byName.get(key) ?? 0) + (self.get(node.id) ?? 0));
  }
  return [...byName.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(
      ([k, ms]) => `${((100 * ms) / total).toFixed(1).padStart(5)}%  ${ms.toFixed(0).padStart(6)} ms  ${k}`,
    );
}

export async function benchProfile(format = process.env.BENCH_FORMAT ?? 'csv'): Promise<string> {
  const session = await benchSession(ROWS);
  try {
    const dir = join(session.dir, 'prof');
    const file = join(session.dir, `out.${format}`);
    await run(
      process.execPath,
      ['--cpu-prof', `--cpu-prof-dir=${dir}`, session.bin, 'job', 'export', session.big, '--out', file, '-q'],
      session.env,
    );
    const name = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!;
    const profile = JSON.parse(readFileSync(join(dir, name), 'utf8')) as Profile;
    if (process.env.BENCH_PROFILE_OUT) copyFileSync(join(dir, name), process.env.BENCH_PROFILE_OUT);
    if (process.env.BENCH_TOP) console.error(topFunctions(profile, Number(process.env.BENCH_TOP)).join('\n'));
    const parts = split(profile);
    rmSync(file, { force: true });
    const total = [...parts.values()].reduce((a, b) => a + b, 0);
    const rows = [...parts.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([stage, ms]) => [stage, (ms / 1000).toFixed(2), `${((ms / total) * 100).toFixed(0)}%`]);
    return [
      `CPU profile of \`dlake job export\` of ${ROWS.toLocaleString('en-US')} rows to ${format.toUpperCase()} (node --cpu-prof, loopback):`,
      '',
      table(['stage', 'seconds', 'share'], rows),
    ].join('\n');
  } finally {
    await session.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const top = process.argv.indexOf('--top');
  if (top < 0) console.log(await benchProfile());
  else {
    // The top functions of every --cpu-prof file under DIR (bench/flight-replay/exports.ts --profile DIR).
    const root = process.argv[top + 1]!;
    for (const d of readdirSync(root, { recursive: true }) as string[])
      if (d.endsWith('.cpuprofile')) console.log(`\n${d}:\n${topFunctions(join(root, d), 20).join('\n')}`);
  }
}
