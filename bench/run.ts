// `npm run bench`: the benchmarks one after the other, as markdown ready to paste into docs/benchmarks.md, each
// section with the time it took. A subset: name the sections, and for the export matrix its row counts, runs and
// formats:
//   npm run bench                                   every section
//   npm run bench -- export                         the export matrix (REST, Flight, bare Flight read) at 1M and 10M
//   npm run bench -- export --rows 1M               … at 1M rows only
//   npm run bench -- export parquet --runs 5 --formats csv,parquet
//   npm run bench -- replay-exports --rows 10M --shapes nested --formats csv,parquet
// Sections: startup, tree, tables, export, export-rest, parquet, flight-replay, replay-exports, apply,
// ascode-scale.
import { loadavg } from 'node:os';
import { benchAscode, benchAscodeScale } from './ascode.js';
import { benchExport } from './export.js';
import { benchFlight, matrixOptions } from './flight.js';
import { benchFlightReplay } from './flight-replay/bench.js';
import { benchReplayExports, replayOptions } from './flight-replay/exports.js';
import { benchParquetEncoders } from './parquet-encoders.js';
import { benchStartup } from './startup.js';
import { benchTables } from './tables.js';
import { benchTree } from './tree.js';

const argv = process.argv.slice(2);
// Each section reads its own flags, when it runs.
const matrix = () => matrixOptions(argv);
const SECTIONS: Record<string, { title: string; run: () => Promise<string> }> = {
  startup: { title: 'Startup', run: benchStartup },
  tree: { title: 'catalog tree', run: benchTree },
  tables: { title: 'Tables at scale', run: benchTables },
  export: { title: 'Export over REST and Arrow Flight', run: () => benchFlight(matrix()) },
  'export-rest': { title: 'Export over REST against bare downloads', run: benchExport },
  // One run of each candidate unless --runs says otherwise: they differ by several times, and the full set of
  // sections should fit in about ten minutes.
  parquet: {
    title: 'Parquet encoders side by side',
    run: () => benchParquetEncoders(matrix().sizes[0], argv.includes('--runs') ? matrix().runs : 1),
  },
  'flight-replay': { title: 'The replay Flight server and bare readers', run: benchFlightReplay },
  'replay-exports': {
    title: 'Flight export against a replaying server',
    run: () => benchReplayExports(replayOptions(argv)),
  },
  apply: { title: 'apply', run: benchAscode },
  'ascode-scale': {
    title: 'Definitions as code: pull, plan, apply at 10,000 entities',
    run: benchAscodeScale,
  },
};

// Flags and their values are not section names.
const named = argv.filter((a, i) => !a.startsWith('--') && !argv[i - 1]?.startsWith('--'));
for (const n of named)
  if (!SECTIONS[n]) throw new Error(`no benchmark section ${n}: ${Object.keys(SECTIONS).join(', ')}`);
const chosen = named.length ? named : Object.keys(SECTIONS);

const started = new Date().toISOString();
console.log(
  `# dlake benchmarks (${started}, Node ${process.versions.node}, load average ${loadavg()[0]!.toFixed(1)})\n`,
);
for (const name of chosen) {
  const { title, run } = SECTIONS[name]!;
  const t = performance.now();
  const body = await run();
  console.log(`## ${title}\n\n${body}\n\n(${((performance.now() - t) / 1000).toFixed(0)} s)\n`);
}
