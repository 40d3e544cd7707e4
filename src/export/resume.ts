// `job export --resume`: whether FILE.partial may be continued for this job and format. The sidecar
// FILE.partial.json says whose rows the partial file holds; the data itself is never marked.
import { stat } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { partialOf, type ResumeRecord, readResumeRecord, sidecarOf } from './target.js';
import type { ExportSpec } from './writers.js';

const describe = (format: string, gzip: boolean) => `${format.toUpperCase()}${gzip ? ' (gzip)' : ''}`;

/**
 * The record to continue from, or undefined when there is nothing to resume (the export then starts at the
 * first row). A partial file of another job or format, or one shorter than its record, is refused (exit 2).
 */
export async function checkResume(
  file: string,
  jobId: string,
  spec: ExportSpec,
): Promise<ResumeRecord | undefined> {
  const record = await readResumeRecord(file);
  if (!record) return undefined;
  const startOver = `remove ${partialOf(file)} and ${sidecarOf(file)}, or export without --resume to start over`;
  if (record.jobId !== jobId) {
    throw new UsageError(
      `cannot resume ${partialOf(file)}: it holds rows of job ${record.jobId}, not ${jobId}`,
      {
        hint: startOver,
      },
    );
  }
  if (record.format !== spec.format || record.gzip !== spec.gzip) {
    throw new UsageError(
      `cannot resume ${partialOf(file)}: it holds ${describe(record.format, record.gzip)}, not ${describe(spec.format, spec.gzip)}`,
      { hint: startOver },
    );
  }
  const size = (await stat(partialOf(file)).catch(() => undefined))?.size;
  if (size === undefined || size < record.bytes) {
    throw new UsageError(
      `cannot resume ${partialOf(file)}: it is ${size === undefined ? 'missing' : 'shorter than its record says'}`,
      { hint: startOver },
    );
  }
  // Parquet's footer lists the row groups already written: the record must hold them, for as many rows.
  if (spec.format === 'parquet') {
    const { writerState } = await import('./parquet.js');
    const state = writerState(record.writer);
    if (!state || state.num_rows !== BigInt(record.rows)) {
      throw new UsageError(
        `cannot resume ${partialOf(file)}: ${sidecarOf(file)} does not describe its Parquet row groups`,
        { hint: startOver },
      );
    }
  }
  return record;
}
