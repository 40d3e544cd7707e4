// A Flight server that sends whatever a test scripts: FlightInfo with any endpoints, and per endpoint any
// FlightData messages, valid or not, byte for byte (no Arrow library between the script and the wire). The
// tests of a client that must not trust what it is sent (docs/cli-contract.md "Export over Arrow Flight").
// Messages are made from valid ones (apache-arrow writes them) and then broken on purpose.
import * as grpc from '@grpc/grpc-js';
import { Message, RecordBatchStreamWriter, type Table } from 'apache-arrow';
import protobuf from 'protobufjs';
import { payloadsOf as emulatorPayloads } from '../../emulator/src/flight/arrow-batches.js';
import { FLIGHT_PROTO } from '../../src/export/flight/proto.generated.js';

/** One FlightData message: the IPC metadata (flatbuffer) and the body. */
export interface Payload {
  data_header: Uint8Array;
  data_body: Uint8Array;
}

export interface HostilePlan {
  /** Each endpoint's messages, in order; `[]` endpoints: a FlightInfo without one. */
  endpoints: Payload[][];
  /** After its messages, the stream sends `trickle` (a batch) every `everyMs`, never ending. */
  trickle?: { payload: Payload; everyMs: number };
  /** GetFlightInfo never answers (a query planned forever). */
  stallInfo?: boolean;
  /**
   * After its messages, the stream sends bytes that are no FlightData (`garbage`), or the server's error text
   * `error` (whatever it holds: line breaks, a token) as the status of an INTERNAL failure.
   */
  ending?: { garbage: true } | { error: string };
}

export interface HostileFlight {
  url: string;
  /** The plan of the next queries. */
  plan: HostilePlan;
  /** DoGet calls and how each ended (cancelled by the client, or every message sent). */
  doGets: { endpoint: number; sent: number; cancelled: boolean }[];
  close(): Promise<void>;
}

const proto = protobuf.Root.fromJSON(FLIGHT_PROTO as unknown as protobuf.INamespace);
const type = (name: string) => proto.lookupType(`arrow.flight.protocol.${name}`);
const encode = (name: string, value: object): Buffer =>
  Buffer.from(type(name).encode(type(name).fromObject(value)).finish());

/** The IPC stream of `table` (schema, then its batches) as FlightData messages. */
export function payloadsOf(table: Table): Payload[] {
  return ipcPayloads(RecordBatchStreamWriter.writeAll(table).toUint8Array(true));
}

/** An IPC stream's messages as FlightData: the emulator's own split (views of `stream`). */
export const ipcPayloads = (stream: Uint8Array): Payload[] => emulatorPayloads(stream);

/** Where a table's field `i` lies in a flatbuffer (0 when absent), following the vtable. */
export function fieldAt(buf: Uint8Array, table: number, i: number): number {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const vt = table - view.getInt32(table, true);
  const vtSize = view.getUint16(vt, true);
  const off = 4 + 2 * i < vtSize ? view.getUint16(vt + 4 + 2 * i, true) : 0;
  return off === 0 ? 0 : table + off;
}

/** The RecordBatch table of a message's metadata (Message.header, field 2). */
export function recordBatchTable(header: Uint8Array): number {
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  const root = view.getUint32(0, true);
  const at = fieldAt(header, root, 2);
  return at + view.getUint32(at, true);
}

/** A copy of a batch message whose metadata says `rows` rows (RecordBatch.length), nothing else changed. */
export function withLength(p: Payload, rows: bigint): Payload {
  const header = p.data_header.slice();
  const at = fieldAt(header, recordBatchTable(header), 0);
  if (at === 0) throw new Error('the batch has no length field to change');
  new DataView(header.buffer).setBigInt64(at, rows, true);
  return { data_header: header, data_body: p.data_body };
}

/** The buffers (offset, length in the body) a batch message's metadata states. */
export function buffersOf(p: Payload): { offset: number; length: number }[] {
  const header = Message.decode(p.data_header).header() as unknown as {
    buffers: { offset: number; length: number }[];
  };
  return header.buffers.map((b) => ({ offset: Number(b.offset), length: Number(b.length) }));
}

export async function startHostileFlight(plan: HostilePlan): Promise<HostileFlight> {
  const raw = { serialize: (b: Buffer) => b, deserialize: (b: Buffer) => b };
  const method = (name: string, responseStream: boolean): grpc.MethodDefinition<Buffer, Buffer> => ({
    path: `/arrow.flight.protocol.FlightService/${name}`,
    requestStream: false,
    responseStream,
    requestSerialize: raw.serialize,
    requestDeserialize: raw.deserialize,
    responseSerialize: raw.serialize,
    responseDeserialize: raw.deserialize,
  });
  const server = new grpc.Server({ 'grpc.max_send_message_length': -1 });
  const state: HostileFlight = {
    url: '',
    plan,
    doGets: [],
    close: () =>
      new Promise<void>((resolve) => {
        server.forceShutdown();
        resolve();
      }),
  };
  const timers = new Set<NodeJS.Timeout>();
  server.addService(
    { GetFlightInfo: method('GetFlightInfo', false), DoGet: method('DoGet', true) },
    {
      GetFlightInfo: (_call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => {
        if (state.plan.stallInfo) return;
        done(
          null,
          encode('FlightInfo', {
            endpoint: state.plan.endpoints.map((_, i) => ({ ticket: { ticket: Buffer.from(String(i)) } })),
            total_records: -1,
            total_bytes: -1,
          }),
        );
      },
      DoGet: (call: grpc.ServerWritableStream<Buffer, Buffer>) => {
        const ticket = type('Ticket').decode(call.request) as unknown as { ticket: Uint8Array };
        const endpoint = Number(Buffer.from(ticket.ticket).toString());
        const log = { endpoint, sent: 0, cancelled: false };
        state.doGets.push(log);
        call.on('cancelled', () => {
          log.cancelled = true;
        });
        const send = (p: Payload) => {
          call.write(encode('FlightData', { data_header: p.data_header, data_body: p.data_body }));
          log.sent++;
        };
        for (const p of state.plan.endpoints[endpoint] ?? []) send(p);
        const ending = state.plan.ending;
        if (ending && 'garbage' in ending) {
          call.write(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]));
          call.end();
          return;
        }
        if (ending && 'error' in ending) {
          call.emit('error', { code: grpc.status.INTERNAL, details: ending.error });
          return;
        }
        const trickle = state.plan.trickle;
        if (!trickle) {
          call.end();
          return;
        }
        const t = setInterval(() => {
          if (log.cancelled) {
            clearInterval(t);
            timers.delete(t);
            return;
          }
          send(trickle.payload);
        }, trickle.everyMs);
        timers.add(t);
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) =>
      e ? reject(e) : resolve(p),
    ),
  );
  state.url = `grpc://127.0.0.1:${port}`;
  const close = state.close;
  state.close = async () => {
    for (const t of timers) clearInterval(t);
    await close();
  };
  return state;
}
