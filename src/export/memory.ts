// Rows delivered into memory, capped in bytes: the delivery pipeline's sink for a caller that hands the rows
// on as a value (an agent's tool result) rather than writing them out. Its sources are the same as an
// export's (a job's results pages, Flight batches, rows already held), so the text is byte for byte what
// `--out` would have written, cut at a row's end once the cap is reached.
//
//   const rows = resultsPages({ fetchPage: pageFetcher(client, id), pageSize: 500 }); // rest-source.ts, page-fetcher.ts
//   const out = await deliverToMemory(rows, { format: 'ndjson', maxBytes: 64 * 1024, signal });
//   // out.text, out.rows (complete rows in text), out.bytes, out.truncated (more rows than fitted)
import type { ResultField, ResultRow } from '../api/jobs.js';
import { deliver, type Source } from './deliver.js';
import { formatModule, type LineFormat } from './formats.js';
import type { PageRows } from './formatter.js';
import { OutputClosedError, type Sink } from './sink.js';

interface MemoryRequest {
  format: LineFormat;
  /** At most this many bytes of text (UTF-8); at least the first line must fit for any row to be kept. */
  maxBytes: number;
  signal: AbortSignal;
}

interface CappedText {
  /** The rows in the format (CSV with its header), whole rows only. */
  text: string;
  /** Complete rows in `text`. */
  rows: number;
  /** `text`'s length in bytes (≤ maxBytes). */
  bytes: number;
  /** The source held more rows than fitted: `text` holds the first `rows`. */
  truncated: boolean;
}

const LF = 10;

/** A sink keeping what it is given in memory, up to `maxBytes`, cut after the last whole line that fits. */
class MemorySink implements Sink {
  readonly name = 'the result';
  readonly isFile = false;
  readonly resumed = false;
  private readonly chunks: Buffer[] = [];
  bytes = 0;
  lines = 0;
  full = false;

  constructor(private readonly maxBytes: number) {}

  async write(chunk: string | Uint8Array): Promise<void> {
    if (this.full) throw new OutputClosedError();
    if (chunk.length === 0) return;
    // The chunk is the sink's (target.ts Sink): kept as it is, copied only when it must be cut.
    const bytes =
      typeof chunk === 'string'
        ? Buffer.from(chunk)
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const room = this.maxBytes - this.bytes;
    // (lastIndexOf takes a negative start from the end: with no room, nothing is kept.)
    const cut = room > 0 ? bytes.lastIndexOf(LF, room - 1) + 1 : 0;
    const kept = bytes.length <= room ? bytes : bytes.subarray(0, cut);
    this.chunks.push(kept);
    this.bytes += kept.length;
    for (let i = kept.indexOf(LF); i >= 0; i = kept.indexOf(LF, i + 1)) this.lines++;
    if (kept.length < bytes.length) {
      this.full = true;
      throw new OutputClosedError();
    }
  }

  async checkpoint(): Promise<void> {}
  async commit(): Promise<void> {}
  async discard(): Promise<void> {}
  async suspend(): Promise<number> {
    return 0;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** Delivers every row of `source` into memory as text, up to `maxBytes`. Failures are as an export's. */
export async function deliverToMemory<C, D>(source: Source<C, D>, req: MemoryRequest): Promise<CappedText> {
  const sink = new MemorySink(req.maxBytes);
  const done = await deliver(source, sink, { format: req.format, signal: req.signal });
  const text = sink.text();
  // Cut short, the rows are the lines kept, less CSV's header line.
  const rows = done.truncated ? Math.max(0, sink.lines - (req.format === 'csv' ? 1 : 0)) : done.rows;
  return { text, rows, bytes: sink.bytes, truncated: done.truncated };
}

/** Rows already in memory (with their columns) as a source: one piece. */
export function heldRows(
  schema: readonly ResultField[],
  rows: readonly ResultRow[],
): Source<readonly ResultField[], PageRows> {
  return {
    async *pieces() {
      yield { columns: schema, rows: rows.length, data: { rows, exact: true } };
    },
    formatter: async (columns, format) => (await formatModule(format)).rows(columns),
  };
}
