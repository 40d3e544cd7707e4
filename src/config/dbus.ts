// A D-Bus client connection to the session bus, in JavaScript over the bus's Unix socket (docs/architecture.md
// "Start-up"): the address, SASL EXTERNAL, Hello, method calls matched to their replies by serial, and the
// signals a caller waits for. Nothing here waits on its own: the caller bounds what it waits for and destroys the
// connection when its deadline passes (src/config/secret-service.ts), so a bus that accepts and stays silent
// costs a timer, never a hang. The socket never keeps dlake running.
//
// The handshake is sent at once with the first calls (AUTH EXTERNAL, BEGIN, Hello, then the calls), as systemd's
// sd-bus does: no round trip is spent on the bus's OK (docs/api-facts.md §17).
import { createConnection, type Socket } from 'node:net';
import { type DBusValue, MAX_MESSAGE, WireError, WireReader, WireWriter } from './dbus-wire.js';

/** The bus could not be reached or would not have dlake: there is no store to talk to. */
export class BusUnreachable extends Error {}

/** An error reply to a method call: its D-Bus error name and its message. */
export class DBusError extends Error {
  constructor(
    readonly errorName: string,
    message: string,
  ) {
    super(message);
  }
}

export const METHOD_CALL = 1;
export const METHOD_RETURN = 2;
export const ERROR = 3;
export const SIGNAL = 4;

/** Header field codes. */
const PATH = 1;
const INTERFACE = 2;
const MEMBER = 3;
const ERROR_NAME = 4;
const REPLY_SERIAL = 5;
const DESTINATION = 6;
const SENDER = 7;
const SIGNATURE = 8;

/** The longest line of the authentication exchange dlake reads before calling it garbage. */
const MAX_AUTH_LINE = 1024;

export interface Call {
  destination: string;
  path: string;
  interface: string;
  member: string;
  signature?: string;
  body?: unknown[];
}

/** A method return, or a signal, as read off the bus. */
export interface Incoming {
  type: number;
  serial: number;
  replySerial?: number;
  path?: string;
  interface?: string;
  member?: string;
  errorName?: string;
  sender?: string;
  signature: string;
  body: DBusValue[];
}

/** The Unix socket of a D-Bus address (`unix:path=…` or, on Linux, `unix:abstract=…`), the first one given. */
export function socketOf(address: string): string {
  for (const one of address.split(';')) {
    const colon = one.indexOf(':');
    if (one.slice(0, colon) !== 'unix') continue;
    const pairs = new Map(
      one
        .slice(colon + 1)
        .split(',')
        .map((kv) => {
          const eq = kv.indexOf('=');
          return [kv.slice(0, eq), unescapeValue(kv.slice(eq + 1))] as const;
        }),
    );
    if (pairs.get('path')) return pairs.get('path')!;
    if (pairs.get('abstract')) return `\0${pairs.get('abstract')}`;
  }
  throw new BusUnreachable(`the session bus address names no Unix socket (${address.split(',')[0]})`);
}

/** An address value's %XX escapes. */
function unescapeValue(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

/** What a message says besides its serial: a method call's Call, or (a test's bus) a reply or signal. */
export interface Outgoing extends Partial<Call> {
  type: number;
  replySerial?: number;
  errorName?: string;
  sender?: string;
}

/** One message, marshalled (little-endian). */
export function encodeMessage(serial: number, m: Outgoing): Buffer {
  const w = new WireWriter();
  const body = new WireWriter();
  if (m.signature) body.writeAll(m.signature, m.body ?? []);
  const fields: [number, { signature: string; value: unknown }][] = [];
  const field = (code: number, signature: string, value: unknown) => {
    if (value !== undefined) fields.push([code, { signature, value }]);
  };
  field(PATH, 'o', m.path);
  field(INTERFACE, 's', m.interface);
  field(MEMBER, 's', m.member);
  field(ERROR_NAME, 's', m.errorName);
  field(REPLY_SERIAL, 'u', m.replySerial);
  field(DESTINATION, 's', m.destination);
  field(SENDER, 's', m.sender);
  field(SIGNATURE, 'g', m.signature || undefined);
  w.writeAll('yyyyuua(yv)', ['l'.charCodeAt(0), m.type, 0, 1, body.length, serial, fields]);
  w.align(8);
  return Buffer.concat([w.bytes(), body.bytes()]);
}

/**
 * The length of the message at the start of `buf` (its fixed header read), or undefined until 16 bytes are
 * there. A length past MAX_MESSAGE, a byte order or version that is not D-Bus's, is a WireError.
 */
export function messageLength(buf: Buffer): number | undefined {
  if (buf.length < 16) return undefined;
  const little = buf[0] === 0x6c;
  if (!little && buf[0] !== 0x42) throw new WireError(`a message in byte order ${buf[0]}`);
  if (buf[3] !== 1) throw new WireError(`a message of protocol version ${buf[3]}`);
  const bodyLength = little ? buf.readUInt32LE(4) : buf.readUInt32BE(4);
  const fieldsLength = little ? buf.readUInt32LE(12) : buf.readUInt32BE(12);
  const total = Math.ceil((16 + fieldsLength) / 8) * 8 + bodyLength;
  if (bodyLength > MAX_MESSAGE || fieldsLength > MAX_MESSAGE || total > MAX_MESSAGE)
    throw new WireError(`a message of ${total} bytes`);
  return total;
}

/** One whole message (messageLength bytes), read and checked. */
export function decodeMessage(buf: Buffer): Incoming {
  const little = buf[0] === 0x6c;
  const fieldsEnd = headerEnd(buf, little);
  const [, type, , , bodyLength, serial, fields] = new WireReader(buf, little, 0, fieldsEnd).readAll(
    'yyyyuua(yv)',
  ) as [number, number, number, number, number, number, DBusValue[]];
  if (serial === 0) throw new WireError('a message of serial 0');
  const header = new Map<number, DBusValue>();
  for (const field of fields) {
    const [code, variant] = field as [number, { signature: string; value: DBusValue }];
    const want = FIELD_TYPES[code];
    // An unknown field is skipped, as the specification asks; a known one must have its type.
    if (want === undefined) continue;
    if (variant.signature !== want)
      throw new WireError(`header field ${code} of type "${variant.signature}"`);
    header.set(code, variant.value);
  }
  const signature = (header.get(SIGNATURE) as string | undefined) ?? '';
  const start = Math.ceil(fieldsEnd / 8) * 8;
  for (let i = fieldsEnd; i < start; i++) if (buf[i] !== 0) throw new WireError('padding that is not zero');
  if (start + bodyLength !== buf.length) throw new WireError('a body of the wrong length');
  const body = new WireReader(buf, little, start, buf.length).readAll(signature);
  const message: Incoming = {
    type,
    serial,
    replySerial: header.get(REPLY_SERIAL) as number | undefined,
    path: header.get(PATH) as string | undefined,
    interface: header.get(INTERFACE) as string | undefined,
    member: header.get(MEMBER) as string | undefined,
    errorName: header.get(ERROR_NAME) as string | undefined,
    sender: header.get(SENDER) as string | undefined,
    signature,
    body,
  };
  const missing = REQUIRED[type]?.find((code) => !header.has(code));
  if (missing !== undefined) throw new WireError(`a message of type ${type} without header field ${missing}`);
  return message;
}

const FIELD_TYPES: Record<number, string> = {
  [PATH]: 'o',
  [INTERFACE]: 's',
  [MEMBER]: 's',
  [ERROR_NAME]: 's',
  [REPLY_SERIAL]: 'u',
  [DESTINATION]: 's',
  [SENDER]: 's',
  [SIGNATURE]: 'g',
  9: 'u',
};

const REQUIRED: Record<number, number[]> = {
  [METHOD_CALL]: [PATH, MEMBER],
  [METHOD_RETURN]: [REPLY_SERIAL],
  [ERROR]: [ERROR_NAME, REPLY_SERIAL],
  [SIGNAL]: [PATH, INTERFACE, MEMBER],
};

/** Where the header's fields end (before the padding to the body). */
function headerEnd(buf: Buffer, little: boolean): number {
  return 16 + (little ? buf.readUInt32LE(12) : buf.readUInt32BE(12));
}

type Waiter = { resolve: (m: Incoming) => void; reject: (e: Error) => void };

export class DBusConnection {
  private readonly socket: Socket;
  private serial = 0;
  private readonly replies = new Map<number, Waiter>();
  private readonly signalWaiters = new Set<{ match: (m: Incoming) => boolean } & Waiter>();
  private input: Buffer = Buffer.alloc(0);
  private authenticated = false;
  private failed?: Error;

  /** Connects to the bus at `address` and starts the handshake; calls may be made at once. */
  constructor(address: string) {
    const path = socketOf(address);
    this.socket = createConnection(path);
    this.socket.unref();
    this.socket.on('error', (e: NodeJS.ErrnoException) =>
      this.destroy(
        this.authenticated
          ? new Error(`the session bus connection failed: ${e.code ?? e.message}`)
          : new BusUnreachable(`cannot connect to the session bus (${e.code ?? e.message})`),
      ),
    );
    this.socket.on('close', () => this.destroy(new Error('the session bus closed the connection')));
    this.socket.on('data', (d: Buffer) => this.received(d));
    const uid = String(process.getuid?.() ?? 0);
    this.socket.write(`\0AUTH EXTERNAL ${Buffer.from(uid).toString('hex')}\r\nBEGIN\r\n`);
    void this.call({
      destination: 'org.freedesktop.DBus',
      path: '/org/freedesktop/DBus',
      interface: 'org.freedesktop.DBus',
      member: 'Hello',
    }).catch(() => {});
  }

  /** Sends a method call; resolves with its return, rejects with a DBusError for an error reply. */
  call(call: Call): Promise<Incoming> {
    if (this.failed) return Promise.reject(this.failed);
    const serial = ++this.serial;
    return new Promise<Incoming>((resolve, reject) => {
      this.replies.set(serial, { resolve, reject });
      this.socket.write(encodeMessage(serial, { type: METHOD_CALL, ...call }));
    });
  }

  /** The next signal that `match` accepts (register it before the call that makes it be sent). */
  signal(match: (m: Incoming) => boolean): Promise<Incoming> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise<Incoming>((resolve, reject) => {
      const waiter = {
        match,
        resolve: (m: Incoming) => {
          this.signalWaiters.delete(waiter);
          resolve(m);
        },
        reject,
      };
      this.signalWaiters.add(waiter);
    });
  }

  /** Ends the connection; every call and signal still waited for is rejected with `error`. */
  destroy(error: Error): void {
    if (this.failed) return;
    this.failed = error;
    this.socket.destroy();
    for (const w of [...this.replies.values(), ...this.signalWaiters]) w.reject(error);
    this.replies.clear();
    this.signalWaiters.clear();
  }

  close(): void {
    this.destroy(new Error('the session bus connection was closed'));
  }

  private received(data: Buffer): void {
    this.input = this.input.length ? Buffer.concat([this.input, data]) : data;
    try {
      if (!this.authenticated && !this.authLine()) return;
      for (let length = messageLength(this.input); length !== undefined && this.input.length >= length; ) {
        const message = decodeMessage(this.input.subarray(0, length));
        this.input = this.input.subarray(length);
        this.dispatch(message);
        if (this.failed) return;
        length = messageLength(this.input);
      }
    } catch (e) {
      const why =
        e instanceof WireError ? `the session bus sent a malformed message (${e.message})` : String(e);
      this.destroy(new Error(why));
    }
  }

  /** The bus's answer to AUTH: true once it said OK (the bytes after it are messages). */
  private authLine(): boolean {
    const end = this.input.indexOf('\r\n');
    if (end < 0) {
      if (this.input.length > MAX_AUTH_LINE) throw new WireError('an authentication line too long');
      return false;
    }
    const line = this.input.toString('latin1', 0, end);
    if (!/^OK [0-9a-f]{32}$/.test(line)) {
      this.destroy(new BusUnreachable(`the session bus refused dlake (${line.slice(0, 80)})`));
      return false;
    }
    this.input = this.input.subarray(end + 2);
    this.authenticated = true;
    return true;
  }

  private dispatch(m: Incoming): void {
    if (m.type === METHOD_RETURN || m.type === ERROR) {
      const waiter = this.replies.get(m.replySerial!);
      if (!waiter) return;
      this.replies.delete(m.replySerial!);
      if (m.type === METHOD_RETURN) waiter.resolve(m);
      else waiter.reject(new DBusError(m.errorName!, typeof m.body[0] === 'string' ? m.body[0] : ''));
      return;
    }
    if (m.type !== SIGNAL) return;
    const waiter = [...this.signalWaiters].find((w) => w.match(m));
    waiter?.resolve(m);
  }
}
