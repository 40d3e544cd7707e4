// A query's result over Arrow Flight, as the delivery pipeline takes it: the schema, then the record batches of
// every endpoint in order, each message checked (./validate.ts) before apache-arrow reads a cell of it.
// GetFlightInfo plans the query; DoGet of each endpoint's ticket streams its part. A FlightInfo without an
// endpoint, a stream without a schema, or an endpoint whose columns differ from the first's is refused (exit 7):
// the service always answers one endpoint whose stream begins with the schema, even for no rows
// (docs/api-facts.md §14). Loaded only by an export that uses Flight.
import { MessageHeader, type RecordBatch, RecordBatchReader, type Schema } from 'apache-arrow';
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
  /**
   * The reader of the batches keeps nothing of a batch once it asks for the next (a text format: its bytes are
   * written before): the buffer a batch came in is filled with a later one (`validated`).
   */
  reuse?: boolean;
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
        q.reuse,
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
  reuse = false,
) {
  const reader = await RecordBatchReader.from(validated(messages, where, count, reuse));
  return reader.open();
}

/**
 * The stream's messages, each checked, framed as the IPC stream format frames them (continuation marker,
 * padded metadata length, metadata, body) in one buffer each, for apache-arrow's reader: it reads a message
 * from one chunk with less work than from four. Each is followed by an empty chunk: the reader's byte source
 * asks for one more chunk when those it holds end exactly where the bytes it wants do (apache-arrow 21,
 * `fromAsyncIterable`), so that without it a batch would wait for the next message before it is handed on.
 * A stream that ends before its schema is refused here, before the reader could take it for an empty result.
 *
 * With `reuse`, a record batch's buffer is filled again with a later one once the reader asks for more: it
 * reads nothing ahead (the empty chunk), so the batch read from it has been handed on and is done with (a
 * dictionary's buffer is never reused: the reader keeps the dictionary).
 */
async function* validated(
  messages: AsyncIterable<FlightData>,
  where: string,
  count: { rows: number },
  reuse: boolean,
): AsyncGenerator<Uint8Array> {
  const validator = new StreamValidator(where);
  const spares: ArrayBuffer[] = [];
  let lent: ArrayBuffer | undefined;
  for await (const msg of messages) {
    const header = msg.data_header ?? EMPTY;
    // A FlightData without metadata or body carries only app_metadata: nothing of the result. A body without
    // metadata is a batch that cannot be read, never one to skip.
    if (header.length === 0 && !msg.data_body?.length) continue;
    const { message, body, rows } = validator.check(header, msg.data_body ?? EMPTY);
    count.rows += rows;
    if (lent) spares.push(lent);
    lent = undefined;
    const batch = reuse && message.headerType === MessageHeader.RecordBatch;
    const bytes = framed(header, body, batch, batch ? spares.pop() : undefined);
    if (batch) lent = bytes.buffer as ArrayBuffer;
    yield bytes;
    yield EMPTY;
  }
  if (!validator.streamSchema) throw new InvalidFlightStreamError(`${where} ended without its schema`);
}

const EMPTY = new Uint8Array(0);

/**
 * A message framed in one buffer: `into` when it is large enough, else a new one (never Node's shared pool),
 * with room to spare for a later batch's when it is to be reused (their strings differ in length).
 */
function framed(header: Uint8Array, body: Uint8Array, reused: boolean, into?: ArrayBuffer): Uint8Array {
  const pad = padding(header.length);
  const length = 8 + header.length + pad + body.length;
  const buffer =
    into && into.byteLength >= length
      ? into
      : (Buffer.allocUnsafeSlow(length + (reused ? length >> 3 : 0)).buffer as ArrayBuffer);
  const bytes = new Uint8Array(buffer, 0, length);
  const view = new DataView(buffer);
  view.setUint32(0, 0xffffffff, true);
  view.setInt32(4, header.length + pad, true);
  bytes.set(header, 8);
  bytes.fill(0, 8 + header.length, 8 + header.length + pad);
  bytes.set(body, 8 + header.length + pad);
  return bytes;
}

/** Bytes after a header to the next multiple of 8, as the IPC format aligns a message's body. */
const padding = (n: number): number => (8 - (n % 8)) % 8;
