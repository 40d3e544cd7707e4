// Flight exports against a server that is never the bottleneck (docs/benchmarks.md "Flight export against a
// replaying server"): a gRPC Flight server in this process that replays record batches encoded once, before the
// clock starts (4,095 rows each, as the service sends them), so that what is measured is the client. The same
// stream is read by a bare client that decodes every batch and discards it (bench/flight-reader.ts) and exported
// by `dlake sql … --out FILE` in every format, flat (the `big` table's 5 columns) and nested (a LIST, a STRUCT and
// a MAP beside two flat columns), each run a child process timed as a whole with its CPU and peak RSS (GNU time).
// The REST side of `login --flight-url` is the emulator's (its Flight endpoint is this server).
//
//   npx tsx --conditions=dlake-source bench/export-replay.ts [--rows 1M,10M] [--formats csv,ndjson,json,parquet]
//     [--shapes flat,nested] [--runs 1] [--profile DIR]   (--profile: a --cpu-prof of each dlake run into DIR)
//   npx tsx --conditions=dlake-source bench/export-replay.ts --encoders [--rows 1M]
//     the Parquet encoders on the same batches in this process, flat and nested: dlake's column encoder, and
//     parquet-wasm (arrow-rs) given the IPC stream bytes when BENCH_PARQUET_WASM=path/to/node/parquet_wasm.js
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as A from 'apache-arrow';
import { startEmulator } from 'dlake-emulator';
import { build } from 'esbuild';
import protobuf from 'protobufjs/minimal.js';
import { FLIGHT_PROTO } from '../src/export/flight/proto.generated.js';
import { ParquetBatchFormatter } from '../src/export/parquet-arrow.js';
import { BIN } from '../test/helpers/dlake.js';
import { loggedIn, run } from './session.js';
import { median } from './stats.js';

const { Reader, Writer } = protobuf;
const TIME = '/usr/bin/time';
const MiB = 2 ** 20;
const BATCH = 4095;
const P = FLIGHT_PROTO.nested.arrow.nested.flight.nested.protocol.nested;
const FORMATS = ['csv', 'ndjson', 'json', 'parquet'] as const;
type Format = (typeof FORMATS)[number];
type Shape = 'flat' | 'nested';

// ── The batches, encoded once ────────────────────────────────────────────────────────────────────────

/** `n` rows of a shape as one record batch (values vary by row, as the emulator's `big` table's do). */
function batchOf(shape: Shape, n: number, from: number): A.RecordBatch {
  const ids = Array.from({ length: n }, (_, i) => BigInt(from + i));
  const names = Array.from({ length: n }, (_, i) => `name ${from + i}`);
  const columns: Record<string, A.Vector> =
    shape === 'flat'
      ? {
          id: A.vectorFromArray(ids, new A.Int64()),
          name: A.vectorFromArray(names, new A.Utf8()),
          amount: A.vectorFromArray(
            Array.from({ length: n }, (_, i) => ((from + i) * 7919) / 100),
            new A.Float64(),
          ),
          flag: A.vectorFromArray(
            Array.from({ length: n }, (_, i) => (from + i) % 3 === 0),
            new A.Bool(),
          ),
          note: A.vectorFromArray(
            Array.from({ length: n }, (_, i) =>
              (from + i) % 10 === 0 ? null : (from + i) % 10 === 1 ? '' : `note "${i}", é`,
            ),
            new A.Utf8(),
          ),
        }
      : {
          id: A.vectorFromArray(ids, new A.Int64()),
          name: A.vectorFromArray(names, new A.Utf8()),
          tags: A.vectorFromArray(
            Array.from({ length: n }, (_, i) =>
              i % 7 === 0 ? null : ['a', `t${i % 13}`, 'b'].slice(0, i % 4),
            ),
            new A.List(new A.Field('item', new A.Utf8(), true)),
          ),
          point: A.vectorFromArray(
            Array.from({ length: n }, (_, i) => (i % 11 === 0 ? null : { x: i / 3, y: -i })),
            new A.Struct([new A.Field('x', new A.Float64(), true), new A.Field('y', new A.Float64(), true)]),
          ),
          attrs: A.vectorFromArray(
            Array.from({ length: n }, (_, i) =>
              i % 5 === 0
                ? null
                : new Map([
                    ['k', BigInt(i)],
                    ['j', BigInt(-i)],
                  ]),
            ),
            new A.Map_(
              new A.Field(
                'entries',
                new A.Struct([
                  new A.Field('key', new A.Utf8(), false),
                  new A.Field('value', new A.Int64(), true),
                ] as never[]),
                false,
              ),
            ),
          ),
        };
  return new A.Table(columns).batches[0]!;
}

/** An IPC stream's messages as encoded FlightData protobufs (data_header, data_body). */
function flightData(stream: Uint8Array): Buffer[] {
  const out: Buffer[] = [];
  const view = new DataView(stream.buffer, stream.byteOffset, stream.byteLength);
  for (let at = 0; at + 8 <= stream.length; ) {
    const length = view.getInt32(at + 4, true);
    if (length === 0) break;
    const header = stream.subarray(at + 8, at + 8 + length);
    const body = Number(A.Message.decode(header).bodyLength);
    const data = stream.subarray(at + 8 + length, at + 8 + length + body);
    const w = Writer.create();
    w.uint32((P.FlightData.fields.data_header.id << 3) | 2).bytes(header);
    if (body > 0) w.uint32((P.FlightData.fields.data_body.id << 3) | 2).bytes(data);
    out.push(Buffer.from(w.finish()));
    at += 8 + length + body;
  }
  return out;
}

interface Encoded {
  schema: Buffer;
  /** A batch of BATCH rows. */
  full: Buffer;
}

function encode(shape: Shape): Encoded {
  const [schema, full] = flightData(
    A.RecordBatchStreamWriter.writeAll([batchOf(shape, BATCH, 0)]).toUint8Array(true),
  );
  return { schema: schema!, full: full! };
}

/** The encoded messages of `rows` rows: the schema, full batches, and a last batch of the rest. */
function* messages(shape: Shape, rows: number, encoded: Encoded): Generator<Buffer> {
  yield encoded.schema;
  for (let i = 0; i + BATCH <= rows; i += BATCH) yield encoded.full;
  const rest = rows % BATCH;
  if (rest)
    yield flightData(A.RecordBatchStreamWriter.writeAll([batchOf(shape, rest, 0)]).toUint8Array(true))[1]!;
}

// ── The server ──────────────────────────────────────────────────────────────────────────────────────

const identity = (b: Buffer) => b;
const method = (name: string, requestStream: boolean, responseStream: boolean) => ({
  path: `/arrow.flight.protocol.FlightService/${name}`,
  requestStream,
  responseStream,
  requestSerialize: identity,
  requestDeserialize: identity,
  responseSerialize: identity,
  responseDeserialize: identity,
});

/** A Flight server replaying `shape` batches: the SQL names the rows and the shape (`flat 1000000`). */
async function replayServer(encoded: Record<Shape, Encoded>): Promise<{ url: string; close(): void }> {
  const server = new grpc.Server({ 'grpc.max_send_message_length': -1 });
  server.addService(
    {
      Handshake: method('Handshake', true, true),
      GetFlightInfo: method('GetFlightInfo', false, false),
      DoGet: method('DoGet', false, true),
    } as unknown as grpc.ServiceDefinition,
    {
      Handshake(call: grpc.ServerDuplexStream<Buffer, Buffer>) {
        call.on('data', () => {});
        const md = new grpc.Metadata();
        md.set('authorization', 'Bearer replay');
        call.sendMetadata(md);
        call.write(Buffer.alloc(0));
        call.end();
      },
      GetFlightInfo(call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) {
        // The descriptor's cmd is the ticket.
        const r = Reader.create(call.request);
        let cmd = Buffer.alloc(0);
        while (r.pos < r.len) {
          const t = r.uint32();
          if (t >>> 3 === P.FlightDescriptor.fields.cmd.id) cmd = Buffer.from(r.bytes());
          else r.skipType(t & 7);
        }
        const w = Writer.create();
        w.uint32((P.FlightInfo.fields.endpoint.id << 3) | 2).fork();
        w.uint32((P.FlightEndpoint.fields.ticket.id << 3) | 2).fork();
        w.uint32((P.Ticket.fields.ticket.id << 3) | 2).bytes(cmd);
        w.ldelim().ldelim();
        callback(null, Buffer.from(w.finish()));
      },
      async DoGet(call: grpc.ServerWritableStream<Buffer, Buffer>) {
        const r = Reader.create(call.request);
        r.uint32();
        const [shape, rows] = Buffer.from(r.bytes()).toString().split(' ') as [Shape, string];
        for (const m of messages(shape, Number(rows), encoded[shape])) {
          if (!call.write(m)) await new Promise((done) => call.once('drain', done));
          if (call.cancelled) return;
        }
        call.end();
      },
    } as unknown as grpc.UntypedServiceImplementation,
  );
  const port = await new Promise<number>((ok, fail) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? fail(e) : ok(p))),
  );
  return { url: `grpc://127.0.0.1:${port}`, close: () => server.forceShutdown() };
}

// ── The runs ────────────────────────────────────────────────────────────────────────────────────────

interface Measured {
  ms: number;
  cpuS: number;
  peakMiB: number;
  bytes?: number;
}

async function timed(args: string[], env: Record<string, string>, stats: string) {
  const r = await run(TIME, ['-f', '%U %S %M', '-o', stats, process.execPath, ...args], env);
  const [user, sys, kib] = readFileSync(stats, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  return { ms: r.ms, cpuS: user! + sys!, peakMiB: kib! / 1024, out: r.out };
}

const parseRows = (s: string) => Number(s.replace(/M$/i, '000000').replace(/k$/i, '000'));
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};

export async function benchReplay(): Promise<string> {
  if (!existsSync(TIME)) throw new Error(`${TIME} (GNU time) is needed for CPU and peak RSS`);
  const sizes = arg('--rows', '1M,10M').split(',').map(parseRows);
  const formats = arg('--formats', FORMATS.join(',')).split(',') as Format[];
  const shapes = arg('--shapes', 'flat,nested').split(',') as Shape[];
  const runs = Number(arg('--runs', '1'));
  const profile = process.argv.includes('--profile') ? resolve(arg('--profile', 'prof')) : undefined;
  const encoded = { flat: encode('flat'), nested: encode('nested') };
  const replay = await replayServer(encoded);
  const emu = await startEmulator({ jobStepMs: 1 });
  const dir = mkdtempSync(join(tmpdir(), 'dlake-bench-replay-'));
  const load = [loadavg()[0]!];
  try {
    const env = await loggedIn(dir, emu.url, ['--flight-url', replay.url]);
    const reader = join(dir, 'flight-reader.cjs');
    await build({
      entryPoints: [resolve(import.meta.dirname, 'flight-reader.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20.18',
      conditions: ['dlake-source'],
      define: { __DLAKE_VERSION__: '"bench"' },
      outfile: reader,
      logLevel: 'warning',
    });
    const lines = [
      '| rows | shape | how | rows/s | ÷ bare read (time) | CPU (s) | peak RSS (MiB) | file (MiB) |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ];
    const results = new Map<string, Measured>();
    for (const n of sizes)
      for (const shape of shapes) {
        const sql = `${shape} ${n}`;
        const take = async (key: string, f: () => Promise<Measured>) => {
          const all: Measured[] = [];
          for (let i = 0; i < runs; i++) all.push(await f());
          const m = {
            ms: median(all.map((x) => x.ms)),
            cpuS: median(all.map((x) => x.cpuS)),
            peakMiB: median(all.map((x) => x.peakMiB)),
            bytes: all[0]!.bytes,
          };
          results.set(`${n} ${shape} ${key}`, m);
          return m;
        };
        const bare = await take('bare', async () => {
          const r = await timed([reader, replay.url, 'Bearer replay', sql], env, join(dir, 'bare.time'));
          const got = JSON.parse(r.out) as { rows: number };
          if (got.rows !== n) throw new Error(`the bare reader read ${got.rows} rows, not ${n}`);
          return r;
        });
        const row = (how: string, m: Measured) =>
          `| ${n.toLocaleString('en-US')} | ${shape} | ${how} | ${Math.round(n / (m.ms / 1000)).toLocaleString('en-US')} | ${(m.ms / bare.ms).toFixed(2)}× | ${m.cpuS.toFixed(1)} | ${m.peakMiB.toFixed(1)} | ${m.bytes === undefined ? '' : (m.bytes / MiB).toFixed(1)} |`;
        lines.push(row('bare read (decodes, discards)', bare));
        for (const format of formats) {
          const out = join(dir, `out.${format}`);
          const m = await take(format, async () => {
            const prof = profile
              ? ['--cpu-prof', '--cpu-prof-dir', join(profile, `${shape}-${n}-${format}`)]
              : [];
            if (profile) mkdirSync(join(profile, `${shape}-${n}-${format}`), { recursive: true });
            const r = await timed(
              [...prof, BIN, 'sql', sql, '--out', out, '--transport', 'flight', '-q'],
              env,
              join(dir, `${format}.time`),
            );
            const bytes = statSync(out).size;
            rmSync(out);
            return { ...r, bytes };
          });
          lines.push(row(`dlake ${format}`, m));
        }
        load.push(loadavg()[0]!);
      }
    const ratio = (a: string, b: string) => results.get(a)!.ms / results.get(b)!.ms;
    const goals = ['', '| goal | measured | |', '| --- | --- | --- |'];
    const top = Math.max(...sizes);
    for (const shape of shapes)
      for (const format of formats) {
        const r = ratio(`${top} ${shape} ${format}`, `${top} ${shape} bare`);
        goals.push(
          `| ${top.toLocaleString('en-US')} ${shape} ${format} within 1.25× the bare read | ${r.toFixed(2)}× | ${r <= 1.25 ? 'met' : 'missed'} |`,
        );
      }
    const peak = Math.max(
      ...[...results.entries()].filter(([k]) => !k.endsWith('bare')).map(([, m]) => m.peakMiB),
    );
    goals.push(
      `| peak RSS ≤ 150 MiB, every export | ${peak.toFixed(1)} MiB at most | ${peak <= 150 ? 'met' : 'missed'} |`,
    );
    if (shapes.includes('nested') && formats.includes('parquet') && formats.includes('csv')) {
      for (const n of sizes) {
        const r = ratio(`${n} flat csv`, `${n} nested parquet`);
        goals.push(
          `| ${n.toLocaleString('en-US')} nested Parquet ≥ 0.7× Flight CSV (rows/s) | ${r.toFixed(2)}× | ${r >= 0.7 ? 'met' : 'missed'} |`,
        );
      }
    }
    if (profile) goals.push('', `CPU profiles: ${readdirSync(profile).join(', ')} in ${profile}`);
    return `Load average: ${load.map((l) => l.toFixed(1)).join(' → ')} (Node ${process.versions.node}).\n\n${lines.join('\n')}\n${goals.join('\n')}`;
  } finally {
    replay.close();
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What the parquet-wasm candidate uses of its node build. */
interface ParquetWasm {
  WriterPropertiesBuilder: new () => { setCompression(c: number): { build(): unknown } };
  Compression: { SNAPPY: number };
  Table: { fromIPCStream(bytes: Uint8Array): unknown };
  writeParquet(table: unknown, props: unknown): Uint8Array;
}

/** The Parquet encoders side by side on `rows` rows of each shape, in this process (batches made untimed). */
export async function benchEncoders(): Promise<string> {
  const rows = parseRows(arg('--rows', '1M'));
  const wasmPath = process.env.BENCH_PARQUET_WASM;
  const wasm = wasmPath ? ((await import(pathToFileURL(wasmPath).href)) as ParquetWasm) : undefined;
  const lines = ['| shape | encoder | rows/s | file (MiB) |', '| --- | --- | --- | --- |'];
  for (const shape of ['flat', 'nested'] as const) {
    const batches = Array.from({ length: Math.ceil(rows / BATCH) }, (_, i) =>
      batchOf(shape, Math.min(BATCH, rows - i * BATCH), i * BATCH),
    );
    // As Flight brings them: a row group's worth of batches (12) as one IPC stream, for parquet-wasm.
    const ipc = Array.from({ length: Math.ceil(batches.length / 12) }, (_, g) =>
      A.RecordBatchStreamWriter.writeAll(batches.slice(g * 12, g * 12 + 12)).toUint8Array(true),
    );
    const timeIt = (encode: () => number) => {
      encode(); // warm-up
      const start = performance.now();
      const bytes = encode();
      return { ms: performance.now() - start, bytes };
    };
    const report = (name: string, r: { ms: number; bytes: number }) =>
      lines.push(
        `| ${shape} | ${name} | ${Math.round(rows / (r.ms / 1000)).toLocaleString('en-US')} | ${(r.bytes / MiB).toFixed(1)} |`,
      );
    report(
      'dlake column encoder',
      timeIt(() => {
        const f = new ParquetBatchFormatter(batches[0]!.schema);
        let bytes = f.head.length;
        for (const b of batches) bytes += f.batch(b).length;
        return bytes + f.tail().length;
      }),
    );
    if (wasm) {
      const props = new wasm.WriterPropertiesBuilder().setCompression(wasm.Compression.SNAPPY).build();
      report(
        'parquet-wasm (arrow-rs)',
        timeIt(() =>
          ipc.reduce((n, bytes) => n + wasm.writeParquet(wasm.Table.fromIPCStream(bytes), props).length, 0),
        ),
      );
    }
  }
  return `Load average ${loadavg()[0]!.toFixed(1)}, Node ${process.versions.node}, ${rows.toLocaleString('en-US')} rows.\n\n${lines.join('\n')}`;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.dirname, 'export-replay.ts'))
  console.log(await (process.argv.includes('--encoders') ? benchEncoders() : benchReplay()));

/** The functions that took the most of a --cpu-prof profile's samples (self time), as `share name (file:line)`. */
export function topFunctions(file: string, count = 12): string[] {
  const p = JSON.parse(readFileSync(file, 'utf8')) as {
    nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const f = byId.get(id)!.callFrame;
    const key = `${f.functionName || '(anonymous)'} (${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1})`;
    const dt = p.timeDeltas[i] ?? 0;
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  });
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([k, t]) => `${((100 * t) / total).toFixed(1)}% ${k}`);
}
