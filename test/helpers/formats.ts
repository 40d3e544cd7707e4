// The export formats as the tests drive them: a format's formatter of REST rows or of Arrow batches, from the one
// table of formats (src/export/formats.ts), and a job's results pages delivered to a sink as an export over
// REST delivers them (src/export/export.ts), without a command around it.
import type { RecordBatch, Schema } from 'apache-arrow';
import type { ResultField } from '../../src/api/jobs.js';
import { csv } from '../../src/export/csv.js';
import { deliver } from '../../src/export/deliver.js';
import { type ExportFormat, formatModule } from '../../src/export/formats.js';
import type { FormatOptions, Formatter, PageRows } from '../../src/export/formatter.js';
import { json, ndjson } from '../../src/export/json.js';
import { type PagesRequest, resultsPages } from '../../src/export/rest-source.js';
import type { Sink } from '../../src/export/sink.js';

/** `format`'s formatter of REST rows with these columns. */
export const rowsFormatter = async (
  format: ExportFormat,
  schema: readonly ResultField[],
  opts?: FormatOptions,
): Promise<Formatter<PageRows>> => (await formatModule(format)).rows(schema, opts);

/** `format`'s formatter of Arrow record batches of this schema. */
export const batchFormatter = async (format: ExportFormat, schema: Schema): Promise<Formatter<RecordBatch>> =>
  (await formatModule(format)).batches(schema);

interface PagesExport extends PagesRequest {
  format: ExportFormat;
  target: Sink;
  signal?: AbortSignal;
  /** After every page: rows written by this run and the rows expected from the start offset. */
  onProgress?: (rows: number, total: number) => void;
  resumeHint?: string;
}

/** A job's results pages delivered to `req.target`: the rows written, expected (`total`) and the rowCount. */
export async function exportPages(req: PagesExport) {
  const source = resultsPages(req);
  const start = source.offset ?? 0;
  const out = await deliver(source, req.target, {
    format: req.format,
    signal: req.signal ?? new AbortController().signal,
    onProgress:
      req.onProgress && ((rows) => req.onProgress!(rows - start, Math.max(source.total, rows - start))),
    resumeHint: req.resumeHint,
  });
  return { ...out, total: source.total, rowCount: source.rowCount };
}

/** A text format's formatter of REST rows, made at once (the text formats' modules are light). */
export const textRows = (
  format: 'csv' | 'json' | 'ndjson',
  schema: readonly ResultField[],
  opts?: FormatOptions,
): Formatter<PageRows> => ({ csv, json, ndjson })[format].rows(schema, opts);
