// Parquet encoders side by side (docs/benchmarks.md "Parquet encoders side by side"): the bench table's rows
// (id BIGINT, name VARCHAR, amount DOUBLE, flag BOOLEAN, note VARCHAR, with its NULLs, quotes and non-ASCII) as
// Arrow record batches of 4,095 rows, as Flight delivers them, encoded to one Parquet file by each candidate.
// Each candidate runs in a child process of its own: the batches are built first (not timed), then the encoding
// loop is timed, and the peak RSS of the process (GNU time) is given beside that of a process that only builds
// the batches and walks them ("none"). Candidates:
//   columns           dlake's writer: Arrow buffers into PLAIN column buffers, its own Snappy (export/parquet-*.ts)
//   columns-512k/8m   the same with row groups of 512 KiB and 8 MiB of values instead of 2 MiB
//   hyparquet         hyparquet-writer 0.17 given a JS value per cell, row groups of 2 MiB (dlake's writer before)
//   hyparquet-worker  the same with each row group encoded in a worker thread while the next batches are read
//   parquet-wasm      arrow-rs compiled to WebAssembly, given the IPC stream bytes Flight delivers, one
//                     writeParquet per row group's worth of rows (only with BENCH_PARQUET_WASM=path/to/its
//                     node/parquet_wasm.js: it is not a dependency of dlake)
//
//   npx tsx --conditions=dlake-source bench/parquet-encoders.ts [--rows 1M]
//   npx tsx --conditions=dlake-source bench/parquet-encoders.ts --nested [--rows 1M]
//     nested columns (a LIST, a STRUCT and a MAP beside two flat ones): dlake's column encoder, and parquet-wasm
//     given the IPC stream bytes when BENCH_PARQUET_WASM is set, in this process (the batches made untimed)
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  Bool,
  Field,
  Float64,
  Int64,
  List,
  Map_,
  makeData,
  RecordBatch,
  RecordBatchStreamWriter,
  Schema,
  Struct,
  Table,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { ParquetBatches } from '../src/export/parquet-arrow.js';
import { snappy } from '../src/export/parquet-snappy.js';
import { run } from './session.js';
import { median, table } from './stats.js';

const TIME = '/usr/bin/time';
const BATCH = 4095;
const GROUP_BYTES = 2 * 1024 * 1024;
const CANDIDATES = [
  'none',
  'columns',
  'columns-512k',
  'columns-8m',
  'hyparquet',
  'hyparquet-worker',
  'parquet-wasm',
];

// ── The rows ───────────────────────────────────────────────────────────────────────────────────────────

const NOTES = [
  null,
  'with, commas, inside',
  'with "double quotes" inside',
  'line one\nline two',
  'crlf one\r\ncrlf two',
  'naïve café – 東京 🚀',
  '',
  null,
  '"quoted, with comma"\nand a new line',
  '  padded  ',
];
const FIELDS = [
  new Field('id', new Int64(), true),
  new Field('name', new Utf8(), true),
  new Field('amount', new Float64(), true),
  new Field('flag', new Bool(), true),
  new Field('note', new Utf8(), true),
];
const SCHEMA = new Schema(FIELDS);

/** Rows from..from+rows-1 of the emulator's `big` table (emulator/src/sql-engine.ts), as one record batch. */
function bigBatch(from: number, rows: number): RecordBatch {
  const id = new BigInt64Array(rows);
  const name: (string | null)[] = [];
  const amount: (number | null)[] = [];
  const flag: (boolean | null)[] = [];
  const note: (string | null)[] = [];
  for (let k = 0; k < rows; k++) {
    const i = from + k;
    id[k] = BigInt(i);
    name.push(i % 97 === 0 ? null : `user_${i}`);
    amount.push(i % 89 === 0 ? null : Math.round((i * 7919) % 100000) / 100 - 500);
    flag.push(i % 53 === 0 ? null : i % 2 === 0);
    note.push(i % 10 === 0 ? `plain text ${i}` : NOTES[i % 10]!);
  }
  const children = [
    makeData({ type: new Int64(), length: rows, nullCount: 0, data: id }),
    vectorFromArray(name, new Utf8()).data[0]!,
    vectorFromArray(amount, new Float64()).data[0]!,
    vectorFromArray(flag, new Bool()).data[0]!,
    vectorFromArray(note, new Utf8()).data[0]!,
  ];
  return new RecordBatch(
    SCHEMA,
    makeData({ type: new Struct(FIELDS), length: rows, nullCount: 0, children }),
  );
}

/** `rows` rows with nested columns (nulls and empty lists among them), from row `from`, as one record batch. */
function nestedBatch(from: number, rows: number): RecordBatch {
  const at = (f: (i: number) => unknown) => Array.from({ length: rows }, (_, k) => f(from + k));
  return new Table({
    id: vectorFromArray(
      at((i) => BigInt(i)),
      new Int64(),
    ),
    name: vectorFromArray(
      at((i) => `name ${i}`),
      new Utf8(),
    ),
    tags: vectorFromArray(
      at((i) => (i % 7 === 0 ? null : ['a', `t${i % 13}`, 'b'].slice(0, i % 4))),
      new List(new Field('item', new Utf8(), true)),
    ),
    point: vectorFromArray(
      at((i) => (i % 11 === 0 ? null : { x: i / 3, y: -i })),
      new Struct([new Field('x', new Float64(), true), new Field('y', new Float64(), true)]),
    ),
    attrs: vectorFromArray(
      at((i) =>
        i % 5 === 0
          ? null
          : new Map([
              ['k', BigInt(i)],
              ['j', BigInt(-i)],
            ]),
      ),
      new Map_(
        new Field(
          'entries',
          new Struct([new Field('key', new Utf8(), false), new Field('value', new Int64(), true)] as never[]),
          false,
        ),
      ),
    ),
  }).batches[0]!;
}

/** dlake's column encoder (and parquet-wasm, when BENCH_PARQUET_WASM is set) on nested batches, in this process. */
export async function benchNestedEncoders(rows = 1_000_000): Promise<string> {
  const batches: RecordBatch[] = [];
  for (let i = 0; i < rows; i += BATCH) batches.push(nestedBatch(i, Math.min(BATCH, rows - i)));
  const timeIt = async (encode: () => Promise<number> | number) => {
    await encode(); // warm-up
    const start = performance.now();
    const bytes = await encode();
    return [
      Math.round(rows / ((performance.now() - start) / 1000)).toLocaleString('en-US'),
      (bytes / 2 ** 20).toFixed(1),
    ];
  };
  const lines = [
    [
      'dlake column encoder (levels from a cursor over the Arrow data)',
      ...(await timeIt(() => encode('columns', batches))),
    ],
  ];
  if (process.env.BENCH_PARQUET_WASM) {
    ipcGroups(batches);
    lines.push([
      'parquet-wasm (arrow-rs), given the IPC bytes',
      ...(await timeIt(() => encode('parquet-wasm', batches))),
    ]);
  }
  return `${rows.toLocaleString('en-US')} nested rows, load average ${loadavg()[0]!.toFixed(1)}, Node ${process.versions.node}.\n\n${table(['encoder', 'rows/s', 'file (MiB)'], lines)}`;
}

// ── The candidates (each in its own process) ─────────────────────────────────────────────────────────────

/** A batch's columns as a JS value per cell, as dlake's writer before this one handed them to hyparquet-writer. */
function jsColumns(b: RecordBatch): unknown[][] {
  return b.schema.fields.map((_, c) => {
    const v = b.getChildAt(c)!;
    const out = new Array<unknown>(b.numRows);
    for (let r = 0; r < b.numRows; r++) out[r] = v.get(r);
    return out;
  });
}

const HYPARQUET_SCHEMA = [
  { name: 'root', num_children: 5 },
  { name: 'id', type: 'INT64', repetition_type: 'OPTIONAL' },
  { name: 'name', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
  { name: 'amount', type: 'DOUBLE', repetition_type: 'OPTIONAL' },
  { name: 'flag', type: 'BOOLEAN', repetition_type: 'OPTIONAL' },
  { name: 'note', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
] as const;
const NAMES = ['id', 'name', 'amount', 'flag', 'note'];

/** Cells' data as the writer before counted it: string lengths, 8 bytes for any other value. */
const dataBytes = (cols: unknown[][]) => {
  let n = 0;
  for (const col of cols) for (const v of col) n += typeof v === 'string' ? v.length : 8;
  return n;
};

/** What the parquet-wasm candidate uses of its node build. */
interface ParquetWasm {
  WriterPropertiesBuilder: new () => { setCompression(c: number): { build(): unknown } };
  Compression: { SNAPPY: number };
  Table: { fromIPCStream(bytes: Uint8Array): unknown };
  writeParquet(table: unknown, props: unknown): Uint8Array;
}

async function encode(candidate: string, batches: RecordBatch[]): Promise<number> {
  let bytes = 0;
  const sink = (b: string | Uint8Array) => {
    bytes += b.length;
  };
  switch (candidate) {
    case 'none':
      for (const b of batches) sink(new Uint8Array(b.numRows % 7));
      return bytes;
    case 'columns':
    case 'columns-512k':
    case 'columns-8m': {
      const groupBytes = { columns: GROUP_BYTES, 'columns-512k': 512 * 1024, 'columns-8m': 8 * 1024 * 1024 }[
        candidate
      ];
      const f = new ParquetBatches(batches[0]!.schema, { groupBytes });
      sink(f.head);
      for (const b of batches) sink(f.format(b));
      sink(f.tail());
      return bytes;
    }
    case 'hyparquet': {
      const out = new ByteWriter();
      const w = new ParquetWriter({ writer: out, schema: HYPARQUET_SCHEMA as never, createdBy: 'bench' });
      let cols: unknown[][] = NAMES.map(() => []);
      let held = 0;
      const flush = () => {
        w.write({
          columnData: NAMES.map((name, c) => ({ name, data: cols[c]! })),
          rowGroupSize: cols[0]!.length,
        });
        cols = NAMES.map(() => []);
        held = 0;
        sink(out.getBytes());
        out.index = 0;
      };
      for (const b of batches) {
        const js = jsColumns(b);
        js.forEach((col, c) => {
          for (const v of col) cols[c]!.push(v);
        });
        held += dataBytes(js);
        if (held >= GROUP_BYTES) flush();
      }
      if (cols[0]!.length) flush();
      w.finish();
      sink(out.getBytes());
      return bytes;
    }
    case 'hyparquet-worker':
      return hyparquetWorker(batches);
    case 'parquet-wasm': {
      const path = process.env.BENCH_PARQUET_WASM;
      if (!path) throw new Error('BENCH_PARQUET_WASM is not set');
      const wasm = (await import(pathToFileURL(path).href)) as ParquetWasm;
      const props = new wasm.WriterPropertiesBuilder().setCompression(wasm.Compression.SNAPPY).build();
      for (const bytes of ipcGroups(batches)) sink(wasm.writeParquet(wasm.Table.fromIPCStream(bytes), props));
      return bytes;
    }
    default:
      throw new Error(`no candidate ${candidate}`);
  }
}

/**
 * For parquet-wasm, a row group's worth of batches (about 2 MiB of values: 12 batches of this table) as one
 * Arrow IPC stream, as Flight's messages arrive; each becomes a Parquet file of one row group. Made before the
 * timing starts (on Flight these bytes come off the wire), and kept for the timed loop.
 */
let ipcMade: Uint8Array[] | undefined;
function ipcGroups(batches: RecordBatch[]): Uint8Array[] {
  ipcMade ??= Array.from({ length: Math.ceil(batches.length / 12) }, (_, g) =>
    RecordBatchStreamWriter.writeAll(batches.slice(g * 12, g * 12 + 12)).toUint8Array(true),
  );
  return ipcMade;
}

/** hyparquet-writer in a worker thread: the main thread reads the batches into columns, the worker encodes. */
async function hyparquetWorker(batches: RecordBatch[]): Promise<number> {
  const url = pathToFileURL(hyparquetEntry()).href;
  const code = `
    const { parentPort } = require('node:worker_threads');
    import(${JSON.stringify(url)}).then(({ ByteWriter, ParquetWriter }) => {
      const out = new ByteWriter();
      const w = new ParquetWriter({ writer: out, schema: ${JSON.stringify(HYPARQUET_SCHEMA)}, createdBy: 'bench' });
      parentPort.on('message', (cols) => {
        if (cols) w.write({ columnData: ${JSON.stringify(NAMES)}.map((name, c) => ({ name, data: cols[c] })), rowGroupSize: cols[0].length });
        else w.finish();
        parentPort.postMessage(out.getBytes().length);
        out.index = 0;
      });
    });`;
  const worker = new Worker(code, { eval: true });
  let bytes = 0;
  let pending = 0;
  let done: () => void = () => {};
  worker.on('message', (n: number) => {
    bytes += n;
    pending--;
    if (pending === 0) done();
  });
  let cols: unknown[][] = NAMES.map(() => []);
  let held = 0;
  const send = (c: unknown[][] | null) => {
    pending++;
    worker.postMessage(c);
  };
  for (const b of batches) {
    const js = jsColumns(b);
    js.forEach((col, c) => {
      for (const v of col) cols[c]!.push(v);
    });
    held += dataBytes(js);
    if (held >= GROUP_BYTES) {
      send(cols);
      cols = NAMES.map(() => []);
      held = 0;
    }
  }
  if (cols[0]!.length) send(cols);
  send(null);
  await new Promise<void>((res) => {
    done = res;
  });
  await worker.terminate();
  return bytes;
}

/** hyparquet-writer's Node entry point, which the worker imports by its path. */
function hyparquetEntry(): string {
  return join(import.meta.dirname, '../node_modules/hyparquet-writer/src/node.js');
}

/** Snappy alone, on this table's column buffers: MB/s of dlake's and of hyparquet-writer's. */
async function snappyRates(batches: RecordBatch[]): Promise<string[][]> {
  const { snappyCompress } = await import('hyparquet-writer/src/snappy.js');
  const b = batches.slice(0, 12);
  const text = Buffer.concat(b.map((x) => Buffer.from(x.getChild('note')!.data[0]!.values as Uint8Array)));
  const doubles = Buffer.concat(
    b.map((x) => {
      const v = x.getChild('amount')!.data[0]!.values as Float64Array;
      return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
    }),
  );
  const rows: string[][] = [];
  for (const [name, input] of [
    ['note (text)', text],
    ['amount (doubles)', doubles],
  ] as const) {
    // Both warmed up, then timed in turn, 5 rounds of 10 each: the median round.
    const fs = [snappy, snappyCompress] as const;
    for (const f of fs) for (let i = 0; i < 10; i++) f(input);
    const rounds: number[][] = [[], []];
    for (let r = 0; r < 5; r++)
      fs.forEach((f, k) => {
        const t = performance.now();
        for (let i = 0; i < 10; i++) f(input);
        rounds[k]!.push((input.length * 10) / 1e6 / ((performance.now() - t) / 1000));
      });
    rows.push([name, (input.length / 2 ** 20).toFixed(2), ...rounds.map((x) => median(x).toFixed(0))]);
  }
  return rows;
}

// ── The side-by-side run ───────────────────────────────────────────────────────────────────────────────

interface Result {
  ms: number;
  peakMiB: number;
  bytes: number;
}

/** One candidate in a child process of its own: its encoding time, output size and the process's peak RSS. */
async function child(candidate: string, rows: number, dir: string): Promise<Result> {
  const stats = join(dir, `${candidate}.time`);
  const args = [
    '--import',
    'tsx/esm',
    '--conditions=dlake-source',
    join(import.meta.dirname, 'parquet-encoders.ts'),
    '--candidate',
    candidate,
    '--rows',
    String(rows),
  ];
  const withTime = existsSync(TIME);
  const r = withTime
    ? await run(
        TIME,
        ['-f', '%M', '-o', stats, process.execPath, ...args],
        process.env as Record<string, string>,
      )
    : await run(process.execPath, args, process.env as Record<string, string>);
  const out = JSON.parse(r.out) as { ms: number; bytes: number };
  const kib = withTime ? Number(readFileSync(stats, 'utf8').trim().split('\n').at(-1)) : Number.NaN;
  return { ...out, peakMiB: kib / 1024 };
}

/** Installed bytes a candidate adds to dlake's package (its vendor file or its WebAssembly and glue). */
function installed(candidate: string): string {
  if (candidate === 'none') return '';
  if (candidate === 'parquet-wasm') {
    const path = process.env.BENCH_PARQUET_WASM!;
    const wasm = path.replace(/parquet_wasm\.js$/, 'parquet_wasm_bg.wasm');
    const size = (f: string) => (existsSync(f) ? readFileSync(f).length : 0);
    return `+${((size(path) + size(wasm)) / 1e6).toFixed(2)} MB (its node build), and apache-arrow's writer`;
  }
  return candidate.startsWith('hyparquet')
    ? '68 KB (dist/vendor/hyparquet-writer.cjs)'
    : "hyparquet-writer's, and 8 KB more of dlake's bundle";
}

export async function benchParquetEncoders(rows = 1_000_000, runs = 3): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'dlake-bench-parquet-'));
  try {
    const candidates = CANDIDATES.filter((c) => c !== 'parquet-wasm' || process.env.BENCH_PARQUET_WASM);
    const taken = new Map<string, Result[]>();
    for (let i = 0; i < runs; i++)
      for (const c of candidates) taken.set(c, [...(taken.get(c) ?? []), await child(c, rows, dir)]);
    const base = median(taken.get('none')!.map((r) => r.peakMiB));
    const ms = (c: string) => median(taken.get(c)!.map((r) => r.ms));
    const table1 = candidates
      .filter((c) => c !== 'none')
      .map((c) => {
        const rs = taken.get(c)!;
        const peak = median(rs.map((r) => r.peakMiB));
        return [
          c,
          Math.round(rows / (ms(c) / 1000)).toLocaleString('en-US'),
          `${(ms('hyparquet') / ms(c)).toFixed(2)}×`,
          `${peak.toFixed(0)} (+${(peak - base).toFixed(0)})`,
          (rs[0]!.bytes / 2 ** 20).toFixed(1),
          installed(c),
        ];
      });
    const batches: RecordBatch[] = [];
    for (let i = 1; i <= Math.min(rows, 100_000); i += BATCH) batches.push(bigBatch(i, BATCH));
    return [
      `${rows.toLocaleString('en-US')} rows × 5 columns as Arrow batches of ${BATCH} rows, encoded in process ` +
        `(the batches built first, not timed); each candidate in a process of its own, median of ${runs} taken in ` +
        `turn. Peak RSS is the process's, and in brackets above one that only builds the batches (${base.toFixed(0)} MiB).`,
      '',
      table(
        ['candidate', 'rows/s', 'vs hyparquet-writer', 'peak RSS (MiB)', 'file (MiB)', 'installed'],
        table1,
      ),
      '',
      'Snappy alone on 12 batches of a column (MB/s):',
      '',
      table(['column', 'MiB', 'dlake (parquet-snappy.ts)', 'hyparquet-writer'], await snappyRates(batches)),
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// A candidate's own process: `--candidate NAME --rows N` prints {ms, bytes}.
const flag = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
if (import.meta.url === `file://${process.argv[1]}`) {
  const { parseRows } = await import('./flight.js');
  const rows = parseRows(flag('--rows') ?? '1M')[0]!;
  const candidate = flag('--candidate');
  if (candidate) {
    const batches: RecordBatch[] = [];
    for (let i = 1; i <= rows; i += BATCH) batches.push(bigBatch(i, Math.min(BATCH, rows - i + 1)));
    if (candidate === 'parquet-wasm') ipcGroups(batches);
    const t = performance.now();
    const bytes = await encode(candidate, batches);
    process.stdout.write(JSON.stringify({ ms: performance.now() - t, bytes }));
  } else if (process.argv.includes('--nested')) {
    console.log(await benchNestedEncoders(rows));
  } else {
    console.log(`## Parquet encoders side by side\n\n${await benchParquetEncoders(rows)}`);
  }
}
