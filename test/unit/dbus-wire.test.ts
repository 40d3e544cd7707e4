// The D-Bus wire format of the credential store's client (src/config/dbus-wire.ts, src/config/dbus.ts): every type
// it writes read back as written, a message framed and read whole, and what a hostile bus may send (a lying
// length, a cut message, a huge array, a wrong or malformed signature, a bad boolean, string or padding) refused
// as a WireError, never read as a value.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BusUnreachable,
  decodeMessage,
  ERROR,
  encodeMessage,
  METHOD_CALL,
  METHOD_RETURN,
  messageLength,
  SIGNAL,
  socketOf,
} from '../../src/config/dbus.js';
import {
  MAX_MESSAGE,
  parseSignature,
  WireError,
  WireReader,
  WireWriter,
} from '../../src/config/dbus-wire.js';

const roundTrip = (signature: string, values: unknown[]) => {
  const w = new WireWriter();
  w.writeAll(signature, values);
  return new WireReader(w.bytes(), true).readAll(signature);
};

/** A method return of `signature` and `body`, as the bus would send it, and its bytes to corrupt. */
const reply = (signature: string, body: unknown[]) =>
  encodeMessage(9, { type: METHOD_RETURN, replySerial: 2, sender: ':1.0', signature, body });

/** Where the body of a message starts. */
const bodyStart = (m: Buffer) => Math.ceil((16 + m.readUInt32LE(12)) / 8) * 8;

describe('values', () => {
  it('every type the Secret Service client writes reads back as written', () => {
    const secret = [
      '/org/freedesktop/secrets/session/s1',
      Buffer.alloc(0),
      Buffer.from('tök€n'),
      'text/plain',
    ];
    expect(roundTrip('ybus', [7, true, 4_000_000_000, 'héllo'])).toEqual([7, true, 4_000_000_000, 'héllo']);
    expect(roundTrip('og', ['/a/b_1', 'a{sv}'])).toEqual(['/a/b_1', 'a{sv}']);
    expect(roundTrip('v', [{ signature: 's', value: '' }])).toEqual([{ signature: 's', value: '' }]);
    expect(roundTrip('a{ss}', [{ service: 'dlake', username: 'p:token:0badf00d' }])).toEqual([
      new Map([
        ['service', 'dlake'],
        ['username', 'p:token:0badf00d'],
      ]),
    ]);
    expect(roundTrip('aoao', [['/x/1', '/x/2'], []])).toEqual([['/x/1', '/x/2'], []]);
    const properties = new Map([
      ['org.freedesktop.Secret.Item.Label', { signature: 's', value: 'keyring:a@dlake' }],
      ['org.freedesktop.Secret.Item.Attributes', { signature: 'a{ss}', value: { service: 'dlake' } }],
    ]);
    expect(roundTrip('a{sv}(oayays)b', [properties, secret, true])).toEqual([
      new Map([
        ['org.freedesktop.Secret.Item.Label', { signature: 's', value: 'keyring:a@dlake' }],
        [
          'org.freedesktop.Secret.Item.Attributes',
          { signature: 'a{ss}', value: new Map([['service', 'dlake']]) },
        ],
      ]),
      secret,
      true,
    ]);
    expect(roundTrip('a{o(oayays)}', [new Map([['/i/1', secret]])])).toEqual([new Map([['/i/1', secret]])]);
  });

  it('any text, bytes and numbers, at any alignment', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\0')),
        fc.uint8Array({ maxLength: 300 }),
        fc.nat({ max: 0xffffffff }),
        fc.dictionary(
          fc.string().filter((s) => !s.includes('\0')),
          fc.string().filter((s) => !s.includes('\0')),
        ),
        (text, bytes, n, dict) => {
          const [a, b, c, d, e] = roundTrip('ysaybua{ss}', [
            1,
            text,
            Buffer.from(bytes),
            true,
            n,
            dict,
          ]) as unknown[];
          expect([a, b, Buffer.from(c as Buffer).equals(Buffer.from(bytes)), d, e]).toEqual([
            1,
            text,
            true,
            true,
            n,
          ]);
          expect(Object.fromEntries(roundTrip('a{ss}', [dict])[0] as Map<string, string>)).toEqual(dict);
        },
      ),
    );
  });
});

describe('messages', () => {
  it('a method call framed and read whole: its header fields and body', () => {
    const m = encodeMessage(5, {
      type: METHOD_CALL,
      destination: 'org.freedesktop.secrets',
      path: '/org/freedesktop/secrets',
      interface: 'org.freedesktop.Secret.Service',
      member: 'SearchItems',
      signature: 'a{ss}',
      body: [{ service: 'dlake' }],
    });
    expect(messageLength(m)).toBe(m.length);
    expect(messageLength(m.subarray(0, 15))).toBeUndefined();
    expect(decodeMessage(m)).toMatchObject({
      type: METHOD_CALL,
      serial: 5,
      path: '/org/freedesktop/secrets',
      interface: 'org.freedesktop.Secret.Service',
      member: 'SearchItems',
      signature: 'a{ss}',
      body: [new Map([['service', 'dlake']])],
    });
  });

  it('an error reply carries its name and message; a signal its path, interface and member', () => {
    const error = encodeMessage(3, {
      type: ERROR,
      replySerial: 2,
      errorName: 'org.freedesktop.DBus.Error.ServiceUnknown',
      signature: 's',
      body: ['nobody'],
    });
    expect(decodeMessage(error)).toMatchObject({
      errorName: 'org.freedesktop.DBus.Error.ServiceUnknown',
      replySerial: 2,
      body: ['nobody'],
    });
    const signal = encodeMessage(4, {
      type: SIGNAL,
      path: '/p/1',
      interface: 'org.freedesktop.Secret.Prompt',
      member: 'Completed',
      sender: ':1.0',
      signature: 'bv',
      body: [false, { signature: 'ao', value: ['/c/login'] }],
    });
    expect(decodeMessage(signal)).toMatchObject({
      type: SIGNAL,
      member: 'Completed',
      sender: ':1.0',
      body: [false, { signature: 'ao', value: ['/c/login'] }],
    });
  });

  it('a big-endian message is read as well (the bus passes on each sender’s byte order)', () => {
    const m = Buffer.alloc(36);
    m.write('B', 0, 'latin1');
    m.writeUInt8(METHOD_RETURN, 1);
    m.writeUInt8(1, 3);
    m.writeUInt32BE(4, 4); // body length
    m.writeUInt32BE(7, 8); // serial
    m.writeUInt32BE(15, 12); // header fields' bytes
    m.set([5, 1, 0x75, 0], 16); // REPLY_SERIAL, variant "u"
    m.writeUInt32BE(3, 20);
    m.set([8, 1, 0x67, 0, 1, 0x75, 0], 24); // SIGNATURE, variant "g": "u"
    m.writeUInt32BE(42, 32);
    expect(decodeMessage(m)).toMatchObject({ serial: 7, replySerial: 3, signature: 'u', body: [42] });
  });

  it('a header field dlake does not know is skipped, as the specification asks', () => {
    const m = encodeMessage(1, { type: METHOD_RETURN, replySerial: 1, member: 'M' });
    expect(decodeMessage(m)).toMatchObject({ replySerial: 1, member: 'M' });
    m[m.indexOf(Buffer.from([3, 1, 0x73, 0]), 16)] = 80; // MEMBER's code becomes 80, which no version defines
    expect(decodeMessage(m)).toMatchObject({ replySerial: 1, member: undefined });
  });
});

describe('what a hostile bus may send is refused', () => {
  const refused = (m: Buffer, why: RegExp) => expect(() => decodeMessage(m)).toThrow(why);

  it('a string whose length lies (past the end of the body)', () => {
    const m = reply('s', ['token']);
    m.writeUInt32LE(1000, bodyStart(m));
    refused(m, /past the end/);
  });

  it('an array whose length says more than the message holds, or more than 64 MiB', () => {
    const m = reply('ao', [['/a']]);
    m.writeUInt32LE(64, bodyStart(m));
    refused(m, /past the end/);
    m.writeUInt32LE(0x7fffffff, bodyStart(m));
    refused(m, /an array of 2147483647 bytes/);
  });

  it('an array whose elements overrun its length', () => {
    const m = reply('ao', [['/abc']]);
    // The element's string runs on past the array's 2 bytes.
    m.writeUInt32LE(2, bodyStart(m));
    refused(m, /past the end|bytes after/);
  });

  it('a message cut short, and one longer than dlake reads', () => {
    const m = reply('s', ['token']);
    expect(messageLength(m.subarray(0, 20))).toBe(m.length);
    refused(m.subarray(0, m.length - 3), /./);
    const huge = Buffer.from(m);
    huge.writeUInt32LE(MAX_MESSAGE, 4);
    expect(() => messageLength(huge)).toThrow(WireError);
    const byteOrder = Buffer.from(m);
    byteOrder[0] = 0x58;
    expect(() => messageLength(byteOrder)).toThrow(/byte order/);
  });

  it('a body that does not match its signature, and a signature that is no signature', () => {
    const m = reply('u', [1]);
    const sigAt = m.indexOf(Buffer.from([8, 1, 0x67, 0, 1, 0x75, 0]), 16); // SIGNATURE, "g": "u"
    m[sigAt + 5] = 0x79; // "y": one byte read, three left over
    refused(m, /bytes after/);
    for (const bad of [
      'a{vs}',
      '(',
      '()',
      'a',
      '{ss}',
      'z',
      `${'a'.repeat(33)}y`,
      `${'('.repeat(33)}y${')'.repeat(33)}`,
    ])
      expect(() => parseSignature(bad), bad).toThrow(WireError);
    expect(() => parseSignature('x'.repeat(256))).toThrow(/longer than 255/);
  });

  it('a header field of the wrong type, a reply without its reply serial', () => {
    const m = reply('', []);
    const at = m.indexOf(Buffer.from([5, 1, 0x75, 0]), 16); // REPLY_SERIAL of type u
    m[at + 2] = 0x69; // i
    refused(m, /header field 5 of type "i"/);
    refused(encodeMessage(1, { type: METHOD_RETURN }), /without header field 5/);
  });

  it('a boolean of 2, a string without its NUL or holding one, text that is not UTF-8, a path that is none', () => {
    const b = reply('b', [true]);
    b.writeUInt32LE(2, bodyStart(b));
    refused(b, /a boolean of 2/);
    const s = reply('s', ['abc']);
    s[bodyStart(s) + 7] = 0x41;
    refused(s, /terminating NUL/);
    s[bodyStart(s) + 7] = 0;
    s[bodyStart(s) + 5] = 0;
    refused(s, /holding a NUL/);
    s[bodyStart(s) + 5] = 0xff;
    refused(s, /not UTF-8/);
    const o = reply('o', ['/a/b']);
    o[bodyStart(o) + 6] = 0x2d; // "-"
    refused(o, /not one/);
  });

  it('padding that is not zero, a variant of more than one type, values nested past 64', () => {
    const p = reply('y(y)', [1, [2]]);
    p[bodyStart(p) + 3] = 1;
    refused(p, /padding that is not zero/);
    const v = reply('v', [{ signature: 'y', value: 1 }]);
    v.set([2, 0x79, 0x79, 0], bodyStart(v));
    refused(v, /not one type/);
    // A variant holding a variant holding … 70 deep.
    let value: unknown = 1;
    for (let i = 0; i < 70; i++) value = { signature: i === 0 ? 'y' : 'v', value };
    refused(reply('v', [value]), /nested more than 64/);
  });
});

describe('any bytes at all', () => {
  /** Whatever the bytes, a message or a WireError: never another exception (a RangeError from a read past the end). */
  const readOrRefuse = (bytes: Buffer) => {
    try {
      const n = messageLength(bytes);
      if (n !== undefined && n <= bytes.length) decodeMessage(bytes.subarray(0, n));
    } catch (e) {
      if (!(e instanceof WireError)) throw e;
    }
  };

  it('a valid message with any of its bytes changed, or cut anywhere', () => {
    const valid = encodeMessage(7, {
      type: METHOD_RETURN,
      replySerial: 3,
      sender: ':1.0',
      signature: 'a{o(oayays)}aoa{sv}',
      body: [
        new Map([['/i/1', ['/s/1', Buffer.alloc(0), Buffer.from('token'), 'text/plain']]]),
        ['/a', '/b'],
        new Map([['k', { signature: 'a{ss}', value: { a: 'b' } }]]),
      ],
    });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat({ max: valid.length - 1 }), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.nat({ max: valid.length }),
        (changes, cut) => {
          const m = Buffer.from(valid);
          for (const [at, byte] of changes) m[at] = byte;
          readOrRefuse(m);
          readOrRefuse(m.subarray(0, cut));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('random bytes behind a plausible fixed header', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 200 }),
        fc.constantFrom(0x6c, 0x42),
        (rest, order) => {
          const m = Buffer.concat([Buffer.from([order, METHOD_RETURN, 0, 1]), Buffer.from(rest)]);
          readOrRefuse(m);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('the session bus address', () => {
  it('its Unix socket: a path, an abstract name, the first usable of several, escapes undone', () => {
    expect(socketOf('unix:path=/run/user/1000/bus')).toBe('/run/user/1000/bus');
    expect(socketOf('unix:abstract=/tmp/dbus-Ab12,guid=0123')).toBe('\0/tmp/dbus-Ab12');
    expect(socketOf('tcp:host=localhost,port=1;unix:path=/x%20y/bus')).toBe('/x y/bus');
    expect(() => socketOf('tcp:host=localhost,port=1')).toThrow(BusUnreachable);
  });
});
