// `job export --resume`: whether FILE.partial may be continued for this job and format. The sidecar
// FILE.partial.json says whose rows the partial file holds, how many and in how many bytes, and the CRC-32
// of those bytes' end; the data itself is never marked. Nothing is trusted before it is checked: a partial file that does not
// match its sidecar is refused (exit 2) and both are left as they are (docs/cli-contract.md "Jobs, results
// and export").
import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { kindOfFile } from '../util/files.js';
import { partialOf, readResumeRecord, sidecarOf, tailCrc } from './file-sink.js';
import { type ExportSpec, formatModule } from './formats.js';
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
  const crc = await readTailCrc(partial, record.bytes).catch(() => undefined);
  if (crc !== record.crc32)
    throw refuse(`its first ${record.bytes} bytes are not those ${sidecarOf(path)} describes`);
  const format = await formatModule(spec.format);
  const rows = await format.keptRows({ partial, sidecar: sidecarOf(path), record }).catch(() => null);
  if (rows === null) throw refuse(`its first ${record.bytes} bytes cannot be read back`);
  if (typeof rows === 'string') throw refuse(rows);
  if (rows !== record.rows)
    throw refuse(
      `it holds ${rows.toLocaleString('en-US')} rows, but ${sidecarOf(path)} says ${record.rows.toLocaleString('en-US')}`,
    );
  return record;
}

/** The CRC-32 of the end of the kept bytes, as the sidecar took it (file-sink.ts tailCrc). */
async function readTailCrc(partial: string, bytes: number): Promise<number> {
  const handle = await open(partial, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    return await tailCrc(handle, bytes);
  } finally {
    await handle.close();
  }
}
