// The network steps under an HTTP request, each tried on its own so that doctor can say which one fails: the
// name lookup, the TCP connection, the TLS handshake. Each is bounded by its caller's `ms` and never throws:
// it answers what happened.
import { lookup } from 'node:dns/promises';
import { isIP, Socket } from 'node:net';

type Probe<T> = { ok: true; value: T } | { ok: false; code?: string; message: string };

/** Runs `work` for at most `ms`: past it, `timedOut` is the answer and whatever `work` holds is let go. */
async function bounded<T>(ms: number, work: Promise<Probe<T>>, timedOut: string): Promise<Probe<T>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Probe<T>>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, code: 'ETIMEDOUT', message: timedOut }), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The addresses a host name resolves to (an IP address is its own). */
export async function resolveHost(host: string, ms: number): Promise<Probe<string[]>> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare)) return { ok: true, value: [bare] };
  const work = lookup(bare, { all: true }).then(
    (all): Probe<string[]> => ({ ok: true, value: all.map((a) => a.address) }),
    (e: NodeJS.ErrnoException): Probe<string[]> => ({ ok: false, code: e.code, message: e.message }),
  );
  return bounded(ms, work, `no answer from the name service within ${ms / 1000}s`);
}

/** Opens a TCP connection to `host:port` and closes it again. */
export function connectTcp(host: string, port: number, ms: number): Promise<Probe<void>> {
  const socket = new Socket();
  const work = new Promise<Probe<void>>((resolve) => {
    socket.once('connect', () => resolve({ ok: true, value: undefined }));
    socket.once('error', (e: NodeJS.ErrnoException) =>
      resolve({ ok: false, code: e.code, message: e.message }),
    );
    socket.connect({ host: host.replace(/^\[|\]$/g, ''), port });
  });
  return bounded(ms, work, `no answer from ${host}:${port} within ${ms / 1000}s`).finally(() =>
    socket.destroy(),
  );
}

interface TlsFacts {
  /** Whether the chain verified against the CAs given (the system's, plus the CA file). */
  authorized: boolean;
  /** OpenSSL's reason when it did not (`UNABLE_TO_VERIFY_LEAF_SIGNATURE`, `CERT_HAS_EXPIRED`, …). */
  authorizationError?: string;
  /** Whether the certificate names the host. */
  namesHost: boolean;
  subject: string;
  issuer: string;
  validTo: Date;
  protocol: string;
}

/**
 * A TLS handshake with `host:port` that accepts any certificate, so that what is wrong with it can be said
 * (an untrusted chain, an expired or foreign certificate), and nothing is sent over it.
 */
export async function handshakeTls(
  host: string,
  port: number,
  ca: string[] | undefined,
  ms: number,
): Promise<Probe<TlsFacts>> {
  const tls = process.getBuiltinModule('node:tls');
  const bare = host.replace(/^\[|\]$/g, '');
  let socket: import('node:tls').TLSSocket | undefined;
  const work = new Promise<Probe<TlsFacts>>((resolve) => {
    socket = tls.connect({
      host: bare,
      port,
      ca,
      rejectUnauthorized: false,
      // A server name is sent for a host name only (RFC 6066); an address is checked against the certificate.
      servername: isIP(bare) ? undefined : bare,
    });
    socket.once('secureConnect', () => {
      const s = socket!;
      const cert = s.getPeerCertificate();
      const named = tls.checkServerIdentity(bare, cert) === undefined;
      resolve({
        ok: true,
        value: {
          authorized: s.authorized,
          authorizationError: s.authorizationError ? String(s.authorizationError) : undefined,
          namesHost: named,
          subject: nameOf(cert.subject),
          issuer: nameOf(cert.issuer),
          validTo: new Date(cert.valid_to),
          protocol: s.getProtocol() ?? 'TLS',
        },
      });
    });
    socket.once('error', (e: NodeJS.ErrnoException) =>
      resolve({ ok: false, code: e.code, message: e.message }),
    );
  });
  return bounded(ms, work, `no TLS handshake with ${host}:${port} within ${ms / 1000}s`).finally(() =>
    socket?.destroy(),
  );
}

function nameOf(dn: { CN?: string | string[]; O?: string | string[] } | undefined): string {
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  return first(dn?.CN) ?? first(dn?.O) ?? '(unnamed)';
}
