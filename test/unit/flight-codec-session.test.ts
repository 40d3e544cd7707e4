// The session messages of the client's codec against protobufjs's reflection of the whole Flight.proto (what a
// server decodes with): the SetSessionOptions action of the hosted edition (docs/api-facts.md §14).
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import {
  decodeResult,
  decodeSetSessionOptionsResult,
  encodeAction,
  encodeSetSessionOptions,
} from '../../src/export/flight/codec.js';
import { FLIGHT_PROTO } from '../../src/export/flight/proto.generated.js';

const proto = protobuf.Root.fromJSON(FLIGHT_PROTO as unknown as protobuf.INamespace);
const type = (name: string) => proto.lookupType(`arrow.flight.protocol.${name}`);
const plain = (name: string, bytes: Uint8Array) =>
  type(name).toObject(type(name).decode(bytes), {
    longs: Number,
    enums: String,
    bytes: String,
    oneofs: true,
  });

describe('session options', () => {
  it('a SetSessionOptions action holding a SetSessionOptionsRequest of string values', () => {
    const body = encodeSetSessionOptions({ project_id: 'p-1', catalog: 'c' });
    expect(plain('SetSessionOptionsRequest', body)).toEqual({
      session_options: {
        project_id: { string_value: 'p-1', option_value: 'string_value' },
        catalog: { string_value: 'c', option_value: 'string_value' },
      },
    });
    expect(plain('Action', encodeAction('SetSessionOptions', body))).toEqual({
      type: 'SetSessionOptions',
      body: body.toString('base64'),
    });
  });

  it('reads the answer: the Result body, and the options not set with their error', () => {
    const result = type('SetSessionOptionsResult').encode({
      errors: { project_id: { value: 2 }, other: { value: 1 } },
    });
    const bytes = Buffer.from(result.finish());
    const wrapped = Buffer.from(type('Result').encode({ body: bytes }).finish());
    expect(decodeResult(wrapped).equals(bytes)).toBe(true);
    expect(decodeSetSessionOptionsResult(bytes)).toEqual({
      project_id: 'INVALID_VALUE',
      other: 'INVALID_NAME',
    });
    expect(decodeSetSessionOptionsResult(Buffer.alloc(0))).toEqual({});
  });
});
