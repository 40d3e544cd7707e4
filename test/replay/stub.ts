// A small HTTP stub that answers with recorded bodies, byte for byte: the replay suite's "server". Routes are
// matched on method and path (a trailing `*` matches any rest); anything else is a 404 in the spec's error form.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubRoute {
  method: string;
  /** Exact path, or a prefix ending in `*`. */
  path: string;
  status?: number;
  /** The body as recorded (a file's text), sent unchanged. */
  body: string;
}

export interface Stub {
  url: string;
  /** Every request received, `METHOD path?query`. */
  requests: string[];
  /** The bodies of the requests that had one, in order. */
  bodies: string[];
  close(): Promise<void>;
}

export async function startStub(routes: StubRoute[]): Promise<Stub> {
  const requests: string[] = [];
  const bodies: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (chunks.length) bodies.push(Buffer.concat(chunks).toString('utf8'));
    const route = routes.find(
      (r) =>
        r.method === req.method &&
        (r.path.endsWith('*') ? url.pathname.startsWith(r.path.slice(0, -1)) : url.pathname === r.path),
    );
    const status = route ? (route.status ?? 200) : 404;
    const body = route?.body ?? JSON.stringify({ errorMessage: 'HTTP 404 Not Found', moreInfo: '' });
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
