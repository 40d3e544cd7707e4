// What a failure to exchange anything with the service means: whether it is worth another attempt, and its
// words and next step. Shared by the retry layer (which decides) and the client (which reports).
import type { Advice } from '../../errors.js';
import { formatDuration } from '../../util/units.js';

/** Errors that prove the request never reached the server, so even a POST may be sent again. */
export const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

export function errorCode(err: unknown): string | undefined {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.code ?? e?.cause?.code;
}

export function isTransient(err: unknown): boolean {
  const code = errorCode(err) ?? '';
  return (
    NEVER_SENT.has(code) ||
    /^(ECONNRESET|EPIPE|ETIMEDOUT|UND_ERR_SOCKET|UND_ERR_HEADERS_TIMEOUT|UND_ERR_BODY_TIMEOUT|DLAKE_BODY_DEADLINE|UND_ERR_RES_CONTENT_LENGTH_MISMATCH|UND_ERR_CLOSED)$/.test(
      code,
    )
  );
}

export function describeNetworkError(err: unknown, timeoutMs: number): string {
  const code = errorCode(err);
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `no connection within the per-request timeout of ${formatDuration(timeoutMs)}`;
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return `no answer within the per-request timeout of ${formatDuration(timeoutMs)}`;
    case 'DLAKE_BODY_DEADLINE':
      return (err as Error).message;
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the connection was closed before the answer was complete';
    case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
      return 'the answer was cut short';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return "the server's TLS certificate is for another host name";
    default: {
      if (isNotTls(code, err)) return 'the server does not speak TLS (https) on this port';
      // OpenSSL's messages can hold line breaks: an error is one line.
      const msg = ((err as Error)?.message ?? String(err)).replace(/\s+/g, ' ').trim();
      if (isTlsTrustError(code)) return `the server's TLS certificate is not trusted (${msg})`;
      return code ? `${msg} (${code})` : msg;
    }
  }
}

/** The server answered a TLS hello with something else: plain HTTP on an https:// URL. */
function isNotTls(code: string | undefined, err: unknown): boolean {
  const msg = `${(err as Error)?.message ?? ''} ${(err as { cause?: Error })?.cause?.message ?? ''}`;
  return (
    code === 'ERR_SSL_WRONG_VERSION_NUMBER' ||
    code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG' ||
    code === 'ERR_SSL_HTTP_REQUEST' ||
    (code === 'EPROTO' && /wrong version number|packet length too long|http request/i.test(msg))
  );
}

export function networkAdvice(code: string | undefined, err: unknown): Advice | undefined {
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return { kind: 'certificate-name-mismatch' };
  if (isNotTls(code, err)) return { kind: 'not-tls' };
  if (isTlsTrustError(code)) return { kind: 'untrusted-certificate' };
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND') return { kind: 'unreachable' };
  if (
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'DLAKE_BODY_DEADLINE'
  )
    return { kind: 'timed-out' };
  return undefined;
}

function isTlsTrustError(code: string | undefined): boolean {
  return /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/i.test(code ?? '');
}
