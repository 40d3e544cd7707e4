// Scratch: candidates side by side.
import {
  Bool,
  Field,
  Float64,
  Int64,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import { loadBatchFormatter } from '../src/export/flight/batch-writers.js';

const NOTES = [
  'plain text ',
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
export function bigBatch(from: number, rows: number): RecordBatch {
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
    const n = NOTES[i % 10]!;
    note.push(n === 'plain text ' ? n + i : n);
  }
  const fields = [
    new Field('id', new Int64(), true),
    new Field('name', new Utf8(), true),
    new Field('amount', new Float64(), true),
    new Field('flag', new Bool(), true),
    new Field('note', new Utf8(), true),
  ];
  const schema = new Schema(fields);
  const children = [
    makeData({ type: new Int64(), length: rows, nullCount: 0, data: id }),
    vectorFromArray(name, new Utf8()).data[0]!,
    vectorFromArray(amount, new Float64()).data[0]!,
    vectorFromArray(flag, new Bool()).data[0]!,
    vectorFromArray(note, new Utf8()).data[0]!,
  ];
  return new RecordBatch(
    schema,
    makeData({ type: new Struct(fields), length: rows, nullCount: 0, children }),
  );
}

const ROWS = Number(process.env.ROWS ?? 200_000);
const B = 4095;
const batches: RecordBatch[] = [];
for (let i = 1; i <= ROWS; i += B) batches.push(bigBatch(i, Math.min(B, ROWS - i + 1)));
for (const fmt of (process.env.FMT ?? 'csv,parquet').split(',')) {
  const f = await loadBatchFormatter(fmt as 'csv', batches[0]!.schema);
  let bytes = 0;
  const { Session } = await import('node:inspector/promises');
  const sess = process.env.PROF ? new Session() : undefined;
  if (sess) {
    sess.connect();
    await sess.post('Profiler.enable');
    await sess.post('Profiler.start');
  }
  const t = performance.now();
  for (const b of batches) {
    const o = f.batch(b);
    bytes += o.length;
  }
  bytes += f.tail().length;
  const ms = performance.now() - t;
  if (sess) {
    const { profile } = await sess.post('Profiler.stop');
    (await import('node:fs')).writeFileSync(process.env.PROF!, JSON.stringify(profile));
  }
  console.log(fmt, Math.round(ROWS / (ms / 1000)), 'rows/s', bytes, 'bytes');
}
