// The few Flight messages dlake sends and reads, encoded and decoded with protobufjs's wire-format runtime
// (`protobufjs/minimal`, its Reader and Writer, as the static code protobufjs generates uses them) rather
// than a reflection of the whole Flight.proto at run time (@grpc/proto-loader and all of protobufjs: 150 KB
// of the installed package, docs/benchmarks.md). The field numbers and the descriptor type come from the
// descriptor generated from proto/Flight.proto (`npm run gen:flight-proto`), not written here a second time.
// A decoder skips the fields it does not read, as protobuf requires.
import { Reader, Writer } from 'protobufjs/minimal.js';
import { FLIGHT_PROTO } from './proto.generated.js';

const PROTOCOL = FLIGHT_PROTO.nested.arrow.nested.flight.nested.protocol.nested;
export const FLIGHT_SERVICE = '/arrow.flight.protocol.FlightService';
const field = {
  handshakeVersion: PROTOCOL.HandshakeRequest.fields.protocol_version.id,
  handshakePayload: PROTOCOL.HandshakeRequest.fields.payload.id,
  descriptorType: PROTOCOL.FlightDescriptor.fields.type.id,
  descriptorCmd: PROTOCOL.FlightDescriptor.fields.cmd.id,
  ticket: PROTOCOL.Ticket.fields.ticket.id,
  infoEndpoint: PROTOCOL.FlightInfo.fields.endpoint.id,
  infoTotalRecords: PROTOCOL.FlightInfo.fields.total_records.id,
  endpointTicket: PROTOCOL.FlightEndpoint.fields.ticket.id,
  dataHeader: PROTOCOL.FlightData.fields.data_header.id,
  dataBody: PROTOCOL.FlightData.fields.data_body.id,
  actionType: PROTOCOL.Action.fields.type.id,
  actionBody: PROTOCOL.Action.fields.body.id,
  resultBody: PROTOCOL.Result.fields.body.id,
  sessionOptions: PROTOCOL.SetSessionOptionsRequest.fields.session_options.id,
  optionString: PROTOCOL.SessionOptionValue.fields.string_value.id,
  sessionErrors: PROTOCOL.SetSessionOptionsResult.fields.errors.id,
  sessionErrorValue: PROTOCOL.SetSessionOptionsResult.nested.Error.fields.value.id,
};
/** A protobuf map's entries are messages of a key (field 1) and a value (field 2): protobuf's encoding of maps. */
const MAP_KEY = 1;
const MAP_VALUE = 2;
const SESSION_ERRORS = PROTOCOL.SetSessionOptionsResult.nested.ErrorValue.values;

const CMD = PROTOCOL.FlightDescriptor.nested.DescriptorType.values.CMD;

/** Wire types (protobuf's encoding): a varint, or bytes with their length before them. */
const VARINT = 0;
const LENGTH = 2;
const tag = (id: number, wire: number): number => (id << 3) | wire;

export interface FlightData {
  data_header?: Buffer;
  data_body?: Buffer;
}

export interface FlightInfo {
  tickets: Buffer[];
  /** -1 when the server does not know. */
  totalRecords: number;
}

export function encodeHandshakeRequest(payload: Uint8Array): Buffer {
  const w = Writer.create();
  w.uint32(tag(field.handshakeVersion, VARINT)).uint64(0);
  w.uint32(tag(field.handshakePayload, LENGTH)).bytes(payload);
  return Buffer.from(w.finish());
}

/** A CMD descriptor holding the command (the SQL). */
export function encodeCommandDescriptor(cmd: Uint8Array): Buffer {
  const w = Writer.create();
  w.uint32(tag(field.descriptorType, VARINT)).int32(CMD);
  w.uint32(tag(field.descriptorCmd, LENGTH)).bytes(cmd);
  return Buffer.from(w.finish());
}

export function encodeTicket(ticket: Uint8Array): Buffer {
  const w = Writer.create();
  w.uint32(tag(field.ticket, LENGTH)).bytes(ticket);
  return Buffer.from(w.finish());
}

/** An action of DoAction: its type and its body. */
export function encodeAction(type: string, body: Uint8Array): Buffer {
  const w = Writer.create();
  w.uint32(tag(field.actionType, LENGTH)).string(type);
  w.uint32(tag(field.actionBody, LENGTH)).bytes(body);
  return Buffer.from(w.finish());
}

/** A SetSessionOptionsRequest of string options (Flight.proto, Arrow 16+: docs/api-facts.md §14). */
export function encodeSetSessionOptions(options: Record<string, string>): Buffer {
  const w = Writer.create();
  for (const [name, value] of Object.entries(options)) {
    w.uint32(tag(field.sessionOptions, LENGTH)).fork();
    w.uint32(tag(MAP_KEY, LENGTH)).string(name);
    w.uint32(tag(MAP_VALUE, LENGTH)).fork();
    w.uint32(tag(field.optionString, LENGTH)).string(value);
    w.ldelim().ldelim();
  }
  return Buffer.from(w.finish());
}

/** A Result of DoAction: its body. */
export function decodeResult(bytes: Uint8Array): Buffer {
  const r = Reader.create(bytes);
  let body: Buffer = Buffer.alloc(0);
  fields(r, r.len, (id, wire) => {
    if (id !== field.resultBody || wire !== LENGTH) return false;
    body = asBuffer(r.bytes());
    return true;
  });
  return body;
}

/** A SetSessionOptionsResult: the options not set, each with its error's name (`INVALID_NAME`, …). */
export function decodeSetSessionOptionsResult(bytes: Uint8Array): Record<string, string> {
  const r = Reader.create(bytes);
  const errors: Record<string, string> = {};
  fields(r, r.len, (id, wire) => {
    if (id !== field.sessionErrors || wire !== LENGTH) return false;
    const end = r.uint32() + r.pos;
    let name = '';
    let value = 0;
    fields(r, end, (eid, ewire) => {
      if (eid === MAP_KEY && ewire === LENGTH) name = r.string();
      else if (eid === MAP_VALUE && ewire === LENGTH) {
        const vend = r.uint32() + r.pos;
        fields(r, vend, (vid, vwire) => {
          if (vid !== field.sessionErrorValue || vwire !== VARINT) return false;
          value = r.int32();
          return true;
        });
      } else return false;
      return true;
    });
    errors[name] = Object.entries(SESSION_ERRORS).find(([, v]) => v === value)?.[0] ?? `error ${value}`;
    return true;
  });
  return errors;
}

/** Calls `each(fieldId, reader)` for each field of a message; fields it does not read are skipped. */
function fields(r: Reader, end: number, each: (id: number, wire: number) => boolean): void {
  while (r.pos < end) {
    const t = r.uint32();
    if (!each(t >>> 3, t & 7)) r.skipType(t & 7);
  }
}

export function decodeFlightInfo(bytes: Uint8Array): FlightInfo {
  const r = Reader.create(bytes);
  const info: FlightInfo = { tickets: [], totalRecords: -1 };
  fields(r, r.len, (id, wire) => {
    if (id === field.infoEndpoint && wire === LENGTH) {
      const end = r.uint32() + r.pos;
      let ticket: Buffer = Buffer.alloc(0);
      fields(r, end, (eid, ewire) => {
        if (eid !== field.endpointTicket || ewire !== LENGTH) return false;
        const tend = r.uint32() + r.pos;
        fields(r, tend, (tid, twire) => {
          if (tid !== field.ticket || twire !== LENGTH) return false;
          ticket = Buffer.from(r.bytes());
          return true;
        });
        return true;
      });
      info.tickets.push(ticket);
      return true;
    }
    if (id === field.infoTotalRecords && wire === VARINT) {
      // A Long where the `long` package can be loaded, else a number (exact to 2^53 rows).
      info.totalRecords = Number(r.int64().toString());
      return true;
    }
    return false;
  });
  return info;
}

/** A FlightData's IPC header and body, as views of the received message (no copy). */
export function decodeFlightData(bytes: Uint8Array): FlightData {
  const r = Reader.create(bytes);
  const data: FlightData = {};
  fields(r, r.len, (id, wire) => {
    if (wire !== LENGTH) return false;
    if (id === field.dataHeader) data.data_header = asBuffer(r.bytes());
    else if (id === field.dataBody) data.data_body = asBuffer(r.bytes());
    else return false;
    return true;
  });
  return data;
}

const asBuffer = (b: Uint8Array): Buffer =>
  Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
