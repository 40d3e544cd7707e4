// The HTTP/2 flow-control window dlake's Flight client offers (docs/benchmarks.md "Flight export across a
// network: the HTTP/2 window"): an HTTP/2 server of the test's own sees the client's SETTINGS (the window of
// every stream) and the WINDOW_UPDATE that raises the connection's window from HTTP/2's 65,535 bytes. No timing:
// the server reads its peer's window once a PING it sent after the call had ended comes back, so every frame the
// client sent before is taken (its WINDOW_UPDATE went when the server's SETTINGS arrived, before the call's answer).
import { createServer, type Http2Server, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlightClient, STATUS } from '../../src/export/flight/client.js';
import { parseFlightUrl } from '../../src/export/flight/endpoint.js';

/** The window chosen by the measurements of docs/benchmarks.md. */
const WINDOW = 8 * 2 ** 20;

let server: Http2Server;
let session: Promise<ServerHttp2Session>;
const paths: string[] = [];
beforeAll(async () => {
  server = createServer();
  session = new Promise((got) => server.once('session', got));
  server.on('stream', (stream, headers) => {
    paths.push(String(headers[':path']));
    // A trailers-only answer: no DATA, so nothing is taken from the window the client gave.
    stream.respond(
      { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': String(STATUS.UNIMPLEMENTED) },
      { endStream: true },
    );
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

describe("the Flight client's HTTP/2 window", () => {
  it('is offered for every stream in SETTINGS and for the connection by a WINDOW_UPDATE', async () => {
    const { port } = server.address() as AddressInfo;
    const client = new FlightClient({ endpoint: parseFlightUrl(`grpc://127.0.0.1:${port}`), idleMs: 10_000 });
    try {
      const refused = await client.getFlightInfo('SELECT 1', 'Bearer t').catch((e: unknown) => e);
      expect((refused as { code?: number }).code).toBe(STATUS.UNIMPLEMENTED);
      expect(paths).toEqual(['/arrow.flight.protocol.FlightService/GetFlightInfo']);
      const s = await session;
      await new Promise<void>((acked, fail) => s.ping((err) => (err ? fail(err) : acked())));
      expect(s.remoteSettings.initialWindowSize).toBe(WINDOW);
      expect(s.state.remoteWindowSize).toBe(WINDOW);
    } finally {
      client.close();
    }
  });
});
