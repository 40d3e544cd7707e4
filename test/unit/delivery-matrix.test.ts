// The delivery pipeline in-process, on the batch shapes real Flight servers send: transport (REST pages,
// Flight record batches) × format (CSV, NDJSON, JSON, Parquet, .gz) × batch shape (1 row, 4,095-row batches,
// 65,536-row batches, wide rows of kilobytes) × fault (none, a stream broken mid-way, a full disk on a private
// tmpfs). A successful Flight export is byte for byte the REST export of the same rows (Parquet: the same rows
// read back, .gz: the same bytes once unzipped), the big-batch cases 20 times over: a producer that reused a
// buffer the file writer still held wrote a wrong file of the right size about one run in three. A failure is
// one error with its exit code, and leaves no FILE and no FILE.partial. (The entry points, signals and a
// closed pipe are test/e2e/delivery-matrix.test.ts.)
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import {
  Bool,
  Field,
  Float64,
  Int32,
  makeData,
  RecordBatch,
  RecordBatchStreamWriter,
  Schema,
  Struct,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import { parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultField, ResultRow } from '../../src/api/jobs.js';
import { type DlakeError, ExitCode, ServiceError } from '../../src/errors.js';
import { deliver } from '../../src/export/deliver.js';
import type { FlightClient } from '../../src/export/flight/client.js';
import { flightBatches } from '../../src/export/flight/source.js';
import { type ExportFormat, exportSpec } from '../../src/export/formats.js';
import { openFileSink } from '../../src/export/target.js';
import { exportPages } from '../helpers/formats.js';
import { ipcPayloads } from '../helpers/hostile-flight.js';
import { canMountTmpfs, mountTmpfs, unmount } from '../helpers/tmpfs.js';

const NOTES = [
  'plain text',
  'with, commas, inside',
  'with "double quotes" inside',
  'line one\nline two',
  'crlf one\r\ntwo',
  'naïve café – 東京 🚀',
  '',
  null,
];

interface Shape {
  name: string;
  /** Rows of each Flight batch, in order. */
  batches: number[];
  /** Bytes of each note cell (wide rows). */
  noteBytes?: number;
  /** Runs of each big-batch case, to catch a race. */
  runs: number;
}

const SHAPES: Shape[] = [
  { name: '1 row', batches: [1], runs: 1 },
  { name: 'batches of 4,095', batches: [4095, 4095, 4095, 17], runs: 20 },
  { name: 'batches of 65,536', batches: [65_536, 3], runs: 20 },
  { name: 'wide rows', batches: [700, 700, 9], noteBytes: 3000, runs: 20 },
];

const SCHEMA: ResultField[] = [
  { name: 'id', type: { name: 'INTEGER' } },
  { name: 'name', type: { name: 'VARCHAR' } },
  { name: 'amount', type: { name: 'DOUBLE' } },
  { name: 'flag', type: { name: 'BOOLEAN' } },
  { name: 'note', type: { name: 'VARCHAR' } },
];

function rowsOf(shape: Shape): ResultRow[] {
  const n = shape.batches.reduce((a, b) => a + b, 0);
  return Array.from({ length: n }, (_, k) => {
    const i = k + 1;
    const base = NOTES[i % NOTES.length]!;
    const note = base === null ? null : shape.noteBytes ? `${base}|${'x'.repeat(shape.noteBytes)}${i}` : base;
    return {
      id: i,
      name: i % 97 === 0 ? null : `user_${i}`,
      amount: i % 89 === 0 ? null : Math.round(((i * 7919) % 100_000) - 50_000) / 100,
      flag: i % 53 === 0 ? null : i % 2 === 0,
      note,
    };
  });
}

const ARROW = new Schema([
  new Field('id', new Int32(), true),
  new Field('name', new Utf8(), true),
  new Field('amount', new Float64(), true),
  new Field('flag', new Bool(), true),
  new Field('note', new Utf8(), true),
]);

function batchOf(rows: readonly ResultRow[]): RecordBatch {
  const children = ARROW.fields.map(
    (f) =>
      vectorFromArray(
        rows.map((r) => r[f.name] ?? null),
        f.type,
      ).data[0]!,
  );
  return new RecordBatch(
    ARROW,
    makeData({ type: new Struct(ARROW.fields), length: rows.length, nullCount: 0, children }),
  );
}

/** The IPC stream of the shape's batches, as a Flight server's DoGet delivers it. */
function ipcOf(shape: Shape, rows: readonly ResultRow[]): Uint8Array {
  const batches: RecordBatch[] = [];
  let at = 0;
  for (const n of shape.batches) {
    batches.push(batchOf(rows.slice(at, at + n)));
    at += n;
  }
  return RecordBatchStreamWriter.writeAll(batches).toUint8Array(true);
}

/**
 * A Flight client over one endpoint whose stream is `ipc`, sent as FlightData messages, failing once the
 * messages sent reach `breakAfter` bytes.
 */
function fakeFlight(ipc: Uint8Array, breakAfter?: number): FlightClient {
  return {
    getFlightInfo: async () => ({ tickets: [Buffer.from('t')], totalRecords: -1 }),
    async *doGet() {
      let sent = 0;
      for (const p of ipcPayloads(ipc)) {
        if (breakAfter !== undefined && sent >= breakAfter) break;
        await new Promise((r) => setImmediate(r));
        yield { data_header: Buffer.from(p.data_header), data_body: Buffer.from(p.data_body) };
        sent += p.data_header.length + p.data_body.length;
      }
      if (breakAfter !== undefined)
        throw Object.assign(new Error('14 UNAVAILABLE: Connection lost'), {
          code: 14,
          details: 'Connection lost',
        });
    },
  } as unknown as FlightClient;
}

const signal = new AbortController().signal;

/** The REST export of `rows` into `file` (pages of 500, as the service serves them). */
async function restExport(
  rows: readonly ResultRow[],
  file: string,
  format: ExportFormat,
  gzip: boolean,
  failAt?: number,
) {
  return exportPages({
    fetchPage: async (offset, limit) => {
      if (failAt !== undefined && offset >= failAt)
        throw new ServiceError('the service answered 503 Service Unavailable');
      return {
        rowCount: rows.length,
        schema: SCHEMA,
        rows: rows.slice(offset, offset + limit) as ResultRow[],
        exact: false,
      };
    },
    pageSize: 500,
    format,
    target: await openFileSink(file, { gzip }),
    signal,
  });
}

async function flightExport(
  ipc: Uint8Array,
  file: string,
  format: ExportFormat,
  gzip: boolean,
  breakAfter?: number,
) {
  return deliver(
    flightBatches(fakeFlight(ipc, breakAfter), {
      sql: 'SELECT * FROM t',
      out: file,
      format,
      gzip,
      attempts: 1,
      endpoint: { url: 'grpc://lake:32010' },
      signal,
    } as never),
    await openFileSink(file, { gzip }),
    { format, signal },
  );
}

/** What a file holds, comparable: text unzipped, Parquet read back. */
async function contents(file: string, format: ExportFormat): Promise<Buffer | unknown[]> {
  const bytes = readFileSync(file);
  if (format === 'parquet') {
    const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    return parquetReadObjects({ file: buf as ArrayBuffer });
  }
  return file.endsWith('.gz') ? gunzipSync(bytes) : bytes;
}

const EXTS = ['csv', 'ndjson', 'json', 'parquet', 'csv.gz'] as const;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-delivery-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(SHAPES)('$name', (shape) => {
  const rows = rowsOf(shape);
  const ipc = ipcOf(shape, rows);

  it.each(EXTS)('%s: every Flight run byte for byte the REST export', async (ext) => {
    const { format, gzip } = exportSpec(`x.${ext}`);
    const rest = join(dir, `rest-${shape.batches[0]}.${ext}`);
    expect((await restExport(rows, rest, format, gzip)).rows).toBe(rows.length);
    const want = await contents(rest, format);
    // Parquet and gzip hold their rows whole once written: the race is a text format's.
    const runs = format === 'parquet' || gzip ? 1 : shape.runs;
    for (let run = 0; run < runs; run++) {
      const file = join(dir, `flight-${shape.batches[0]}-${run}.${ext}`);
      const out = await flightExport(ipc, file, format, gzip);
      expect(out).toEqual({ rows: rows.length, truncated: false });
      const got = await contents(file, format);
      if (Buffer.isBuffer(got)) expect(got.equals(want as Buffer), `run ${run}`).toBe(true);
      else expect(got).toEqual(want);
      rmSync(file);
    }
  });

  it.skipIf(rows.length < 2)(
    'a stream broken mid-way: exit 7 naming the rows, no FILE, no FILE.partial',
    async () => {
      for (const ext of EXTS) {
        const { format, gzip } = exportSpec(`x.${ext}`);
        const sub = mkdtempSync(join(dir, 'broken-'));
        const file = join(sub, `x.${ext}`);
        const e = (await flightExport(ipc, file, format, gzip, Math.floor(ipc.length * 0.6)).catch(
          (x) => x,
        )) as DlakeError;
        expect(e.exitCode, ext).toBe(ExitCode.service);
        expect(e.message).toMatch(
          new RegExp(
            `^the Flight stream from grpc://lake:32010 broke: Connection lost: export stopped after [\\d,]+ rows; ${file} was not written$`,
          ),
        );
        const r = (await restExport(rows, file, format, gzip, 500).catch((x) => x)) as DlakeError;
        expect(r.exitCode, ext).toBe(ExitCode.service);
        expect(r.message).toBe(
          `the service answered 503 Service Unavailable: export stopped after 500 rows; ${file} was not written`,
        );
        expect(readdirSync(sub)).toEqual([]);
      }
    },
  );
});

describe('a full disk (a private tmpfs)', () => {
  it.skipIf(!canMountTmpfs())(
    'every format, REST and Flight, every shape: exit 9 naming the file, nothing left',
    async () => {
      const disk = join(dir, 'disk');
      mkdirSync(disk);
      mountTmpfs([disk], 'size=128k');
      try {
        for (const shape of SHAPES.slice(1)) {
          const rows = rowsOf(shape);
          const ipc = ipcOf(shape, rows);
          for (const ext of EXTS) {
            const { format, gzip } = exportSpec(`x.${ext}`);
            const file = join(disk, `x.${ext}`);
            for (const run of [
              () => restExport(rows, file, format, gzip),
              () => flightExport(ipc, file, format, gzip),
            ]) {
              const e = (await run().catch((x) => x)) as DlakeError;
              // gzip may squeeze the rows into the room there is: then the file is whole.
              if (!(e instanceof Error) && gzip) {
                rmSync(file);
                continue;
              }
              expect(e.exitCode, `${shape.name} ${ext}`).toBe(ExitCode.localIO);
              expect(e.message).toMatch(
                new RegExp(
                  `^cannot write ${file}\\.partial: no space left on the device: export stopped after [\\d,]+ rows; ${file} was not written$`,
                ),
              );
              expect(existsSync(file) || existsSync(`${file}.partial`)).toBe(false);
            }
          }
        }
      } finally {
        unmount([disk]);
      }
    },
  );
});
