// The Flight error mapping reads errors it did not make: whatever their shape, it answers one of dlake's errors
// (an exit code and a message) and never throws.
import * as grpc from '@grpc/grpc-js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flightErrorText, mapFlightError } from '../../src/export/flight/errors.js';

const failure = { rows: 3, out: 'out.csv', url: 'grpc://lake:32010' };

describe('mapFlightError', () => {
  const hostile: [string, unknown][] = [
    ['details that are an object', { code: grpc.status.UNAVAILABLE, details: { why: 'x' } }],
    ['details that are a number', { code: grpc.status.INTERNAL, details: 42, message: 7 }],
    ['details that are a Buffer', { code: grpc.status.UNAVAILABLE, details: Buffer.from('gone') }],
    ['a code that is a string', { code: 'ENOSPC', message: 'no space' }],
    ['null', null],
    ['undefined', undefined],
    ['a symbol', Symbol('s')],
    ['an object String() cannot print', Object.create(null)],
    [
      'getters that throw',
      Object.defineProperties(
        {},
        {
          code: {
            get() {
              throw new Error('code');
            },
          },
          details: {
            get() {
              throw new Error('details');
            },
          },
          message: {
            get() {
              throw new Error('message');
            },
          },
        },
      ),
    ],
    [
      'a proxy that throws on everything',
      new Proxy(
        {},
        {
          get() {
            throw new Error('get');
          },
          getPrototypeOf() {
            throw new Error('proto');
          },
        },
      ),
    ],
  ];

  it.each(hostile)('%s: one of dlake’s errors, never a throw', (_name, err) => {
    for (const signal of [undefined, AbortSignal.abort()]) {
      const mapped = mapFlightError(err, { ...failure, signal });
      expect(mapped).toBeInstanceOf(Error);
      expect(typeof (mapped as { exitCode?: unknown }).exitCode).toBe('number');
      expect(typeof mapped.message).toBe('string');
      // What --debug prints of it (its cause's stack) can be printed too.
      const cause = (mapped as { cause?: unknown }).cause;
      expect(() => String((cause as Error | undefined)?.stack ?? cause)).not.toThrow();
    }
  });

  it('any value at all', () => {
    fc.assert(
      fc.property(fc.anything({ withObjectString: true, withNullPrototype: true }), (err) => {
        const mapped = mapFlightError(err, failure);
        expect(typeof (mapped as { exitCode?: unknown }).exitCode).toBe('number');
      }),
    );
  });

  it('gRPC statuses as exit codes, with what the server said', () => {
    const e = (code: number, details: string) =>
      Object.assign(new Error(`${code} X: ${details}`), { code, details });
    expect(mapFlightError(e(grpc.status.UNAUTHENTICATED, 'no'), failure)).toMatchObject({ exitCode: 3 });
    expect(mapFlightError(e(grpc.status.INVALID_ARGUMENT, 'bad sql'), failure)).toMatchObject({
      exitCode: 6,
      message: 'the query failed after 3 rows received; out.csv was not written: bad sql',
    });
    expect(mapFlightError(e(grpc.status.UNAVAILABLE, 'gone'), failure)).toMatchObject({ exitCode: 7 });
    expect(flightErrorText({ details: '', message: '14 UNAVAILABLE: down' })).toBe('down');
  });
});
