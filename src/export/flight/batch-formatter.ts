// Which formatter a Flight export writes its batches with: the text formats (batch-writers.ts) or Parquet
// (export/parquet-arrow.ts, loaded only for Parquet).
import type { Schema } from 'apache-arrow';
import type { ExportFormat } from '../formats.js';
import { columnTypes } from './arrow-types.js';
import { type BatchFormatter, TextBatchFormatter } from './batch-writers.js';

/**
 * The formatter of a Flight export. Every column's type is looked up first (arrow-types.ts): a type no writer
 * takes is refused by name before a byte is written.
 */
export async function loadBatchFormatter(format: ExportFormat, schema: Schema): Promise<BatchFormatter> {
  columnTypes(schema);
  if (format === 'parquet') {
    const { ParquetBatchFormatter } = await import('../parquet-arrow.js');
    return new ParquetBatchFormatter(schema);
  }
  return new TextBatchFormatter(format, schema);
}
