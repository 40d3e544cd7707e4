// Which formatter a Flight export writes its batches with: the text formats (batch-writers.ts) or Parquet
// (export/parquet-arrow.ts, loaded only for Parquet). Apart from both, since Parquet's writer reuses the text
// writers' cell texts for its rarer column types.
import type { Schema } from 'apache-arrow';
import { columnKinds } from '../column-types.js';
import type { ExportFormat } from '../writers.js';
import { type BatchFormatter, TextBatchFormatter } from './batch-writers.js';

/**
 * The formatter of a Flight export. Every column's type is looked up first (column-types.ts): a type the
 * writers do not know is refused by name before a byte is written.
 */
export async function loadBatchFormatter(format: ExportFormat, schema: Schema): Promise<BatchFormatter> {
  columnKinds(schema);
  if (format === 'parquet') {
    const { ParquetBatchFormatter } = await import('../parquet-arrow.js');
    return new ParquetBatchFormatter(schema);
  }
  return new TextBatchFormatter(format, schema);
}
