// `job export --resume`: whether FILE.partial may be continued for this job and format. The sidecar
// FILE.partial.json says whose rows the partial file holds, how many and in how many bytes, and the CRC-32
// of those bytes' end; the data itself is never marked. Nothing is trusted before it is checked: a partial file that does not
// match its sidecar is refused (exit 2) and both are left as they are (docs/cli-contract.md "Jobs, results
// and export").
import { constants, createReadStream } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { UsageError } from '../errors.js';
import { kindOfFile } from '../util/files.js';
import { partialOf, readResumeRecord, sidecarOf, tailCrc } from './file-sink.js';
import type { ExportSpec } from './formats.js';
import type { ResumeRecord } from './sink.js';
import { cannotResumeInto, resolveOut } from './special-files.js';

const describe = (format: string, gzip: boolean) => `${format.toUpperCase()}${gzip ? ' (gzip)' : ''}`;

/**
 * The record to continue from, or undefined when there is nothing to resume (the export then starts at the
 * first row). A partial file of another job or format, one shorter than its record, or one whose bytes or
 * rows are not those its record describes, is refused (exit 2). `--out` may be a symbolic link: the partial
 * file lies beside the file it leads to; a device or pipe has nothing to resume.
 */
export async function checkResume(
  file: string,
  jobId: string,
  spec: ExportSpec,
): Promise<ResumeRecord | undefined> {
  const out = await resolveOut(file);
  if (out.kind === 'special') throw cannotResumeInto(file, out.what);
  const path = out.path;
  const record = await readResumeRecord(path);
  if (!record) return undefined;
  const partial = partialOf(path);
  const startOver = `remove ${partial} and ${sidecarOf(path)}, or export without --resume to start over`;
  const refuse = (why: string) => new UsageError(`cannot resume ${partial}: ${why}`, { hint: startOver });
  if (record.jobId !== jobId) throw refuse(`it holds rows of job ${record.jobId}, not ${jobId}`);
  if (record.format !== spec.format || record.gzip !== spec.gzip) {
    throw refuse(`it holds ${describe(record.format, record.gzip)}, not ${describe(spec.format, spec.gzip)}`);
  }
  // Only a regular file is read back: a named pipe there would block the reads, a device never end them.
  const info = await lstat(partial).catch(() => undefined);
  if (info && !info.isFile()) throw refuse(`it is ${kindOfFile(info)}, not a regular file`);
  const size = info?.size;
  if (size === undefined || size < record.bytes)
    throw refuse(`it is ${size === undefined ? 'missing' : 'shorter than its record says'}`);
  if (record.rows <= 0) throw refuse(`${sidecarOf(path)} records no rows to continue from`);
  // Parquet's footer lists the row groups already written: the record must hold them, for as many rows.
  if (spec.format === 'parquet') {
    const { writerState } = await import('./parquet-file.js');
    const state = writerState(record.writer);
    if (!state || state.num_rows !== BigInt(record.rows))
      throw refuse(`${sidecarOf(path)} does not describe its Parquet row groups`);
  }
  const crc = await readTailCrc(partial, record.bytes).catch(() => undefined);
  if (crc !== record.crc32)
    throw refuse(`its first ${record.bytes} bytes are not those ${sidecarOf(path)} describes`);
  const rows = await countRows(partial, record, spec).catch(() => null);
  if (rows === null) throw refuse(`its first ${record.bytes} bytes cannot be read back`);
  if (rows !== undefined && rows !== record.rows)
    throw refuse(
      `it holds ${rows.toLocaleString('en-US')} rows, but ${sidecarOf(path)} says ${record.rows.toLocaleString('en-US')}`,
    );
  return record;
}

/** The CRC-32 of the end of the kept bytes, as the sidecar took it (target.ts tailCrc). */
async function readTailCrc(partial: string, bytes: number): Promise<number> {
  const handle = await open(partial, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    return await tailCrc(handle, bytes);
  } finally {
    await handle.close();
  }
}

/**
 * The rows in the kept bytes of FILE.partial (CSV, JSON, NDJSON: a row a line, a CSV line break inside quotes
 * excepted, after the CSV header; gzip members decompressed). Parquet's rows are those of its row groups,
 * checked above: undefined.
 */
async function countRows(
  partial: string,
  record: ResumeRecord,
  spec: ExportSpec,
): Promise<number | undefined> {
  if (spec.format === 'parquet') return undefined;
  if (record.bytes === 0) return 0;
  const raw = createReadStream(partial, { start: 0, end: record.bytes - 1 });
  let lines = 0;
  let quoted = false;
  const count =
    spec.format === 'csv'
      ? (chunk: Buffer) => {
          for (let i = 0; i < chunk.length; i++) {
            const b = chunk[i];
            if (b === 0x22) quoted = !quoted;
            else if (b === 0x0a && !quoted) lines++;
          }
        }
      : (chunk: Buffer) => {
          for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, i + 1)) lines++;
        };
  const text: Readable = spec.gzip ? raw.pipe(createGunzip()) : raw;
  if (spec.gzip) raw.on('error', (e) => text.destroy(e));
  for await (const chunk of text) count(chunk as Buffer);
  // The CSV header is a line of its own, unless the result had no columns (and the file no bytes of text).
  return spec.format === 'csv' ? Math.max(0, lines - 1) : lines;
}
