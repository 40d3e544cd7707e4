// A query's result over Arrow Flight, as the delivery pipeline takes it: the schema, then the record batches of
// every endpoint in order, each message checked (./validate.ts) before apache-arrow reads a cell of it.
// GetFlightInfo plans the query; DoGet of each endpoint's ticket streams its part. A FlightInfo without an
// endpoint, a stream without a schema, or an endpoint whose columns differ from the first's is refused (exit 7):
// the service always answers one endpoint whose stream begins with the schema, even for no rows
// (docs/api-facts.md §14). Loaded only by an export that uses Flight.
import { type RecordBatch, RecordBatchReader, type Schema } from 'apache-arrow';
import type { FlightClient } from './client.js';
import type { FlightData } from './codec.js';
import { describeSchema, InvalidFlightStreamError, StreamValidator, sameSchema } from './validate.js';

interface FlightResult {
  /** The result's columns: every endpoint's are the same. */
  readonly schema: Schema;
  /**
   * The batches of every endpoint in order, each validated before it is yielded; ending the iteration early
   * (`break`, an error) cancels the stream. Iterate once.
   */
  readonly batches: AsyncIterable<RecordBatch>;
  /**
   * The rows of the batches received and checked so far: apache-arrow's reader may hold a batch that has
   * arrived while it reads on, so a stream that breaks then has received more rows than were yielded.
   */
  readonly received: number;
}

interface FlightQuery {
  sql: string;
  /** The authorization header of every call (`Bearer …`); never traced. */
  authorization: string;
  signal?: AbortSignal;
}

/** Plans the query and opens its first stream, up to its schema. */
export async function openFlightResult(client: FlightClient, q: FlightQuery): Promise<FlightResult> {
  const info = await client.getFlightInfo(q.sql, q.authorization, q.signal);
  const n = info.tickets.length;
  if (n === 0) {
    throw new InvalidFlightStreamError(
      'the Flight endpoint answered the query with no endpoint to read it from',
    );
  }
  const count = { rows: 0 };
  const where = (i: number) =>
    n === 1 ? 'the Flight stream' : `the Flight stream of endpoint ${i + 1} of ${n}`;
  // Each stream has its own abort, so that a consumer that stops early ends the gRPC call at once: apache-arrow's
  // reader does not end the source it reads, and an open call would keep the process alive.
  const open = async (i: number) => {
    const stop = new AbortController();
    const abort = () => stop.abort();
    q.signal?.addEventListener('abort', abort, { once: true });
    if (q.signal?.aborted) stop.abort();
    const close = () => {
      q.signal?.removeEventListener('abort', abort);
      stop.abort();
    };
    try {
      const reader = await readStream(
        client.doGet(info.tickets[i]!, q.authorization, stop.signal),
        where(i),
        count,
      );
      return { reader, close };
    } catch (e) {
      close();
      throw e;
    }
  };
  const first = await open(0);
  const schema = first.reader.schema;
  async function* batches(): AsyncGenerator<RecordBatch> {
    for (let i = 0; i < n; i++) {
      const { reader, close } = i === 0 ? first : await open(i);
      try {
        if (!sameSchema(reader.schema, schema)) {
          throw new InvalidFlightStreamError(
            `endpoint ${i + 1} of ${n} has other columns than endpoint 1: (${describeSchema(reader.schema)}) after (${describeSchema(schema)})`,
          );
        }
        for await (const batch of reader) yield batch;
      } finally {
        close();
        await reader.cancel().catch(() => {});
      }
    }
  }
  return {
    schema,
    batches: { [Symbol.asyncIterator]: batches },
    get received() {
      return count.rows;
    },
  };
}

/**
 * One DoGet stream's batches, each message checked before apache-arrow reads it; opened up to its schema. The
 * rows of each batch checked are added to `count`.
 */
export async function readStream(
  messages: AsyncIterable<FlightData>,
  where = 'the Flight stream',
  count = { rows: 0 },
) {
  const reader = await RecordBatchReader.from(validated(messages, where, count));
  return reader.open();
}

/**
 * The stream's messages, each checked, framed as the IPC stream format frames them (continuation marker,
 * padded metadata length, metadata, body) for apache-arrow's reader. A stream that ends before its schema is
 * refused here, before the reader could take it for an empty result.
 */
async function* validated(
  messages: AsyncIterable<FlightData>,
  where: string,
  count: { rows: number },
): AsyncGenerator<Uint8Array> {
  const validator = new StreamValidator(where);
  for await (const msg of messages) {
    const header = msg.data_header ?? EMPTY;
    // A FlightData without metadata or body carries only app_metadata: nothing of the result. A body without
    // metadata is a batch that cannot be read, never one to skip.
    if (header.length === 0 && !msg.data_body?.length) continue;
    const { body, rows } = validator.check(header, msg.data_body ?? EMPTY);
    count.rows += rows;
    yield ipcPrefix(header);
    yield header;
    const pad = padding(header.length);
    if (pad) yield new Uint8Array(pad);
    if (body.length > 0) yield body;
  }
  if (!validator.streamSchema) throw new InvalidFlightStreamError(`${where} ended without its schema`);
}

const EMPTY = new Uint8Array(0);

/** The IPC stream's framing of a message: the continuation marker and the header's padded length. */
function ipcPrefix(header: Uint8Array): Uint8Array {
  const prefix = new Uint8Array(8);
  const view = new DataView(prefix.buffer);
  view.setUint32(0, 0xffffffff, true);
  view.setInt32(4, header.length + padding(header.length), true);
  return prefix;
}

/** Bytes after a header to the next multiple of 8, as the IPC format aligns a message's body. */
const padding = (n: number): number => (8 - (n % 8)) % 8;
