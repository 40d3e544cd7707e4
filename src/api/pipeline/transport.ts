// The innermost layer: one exchange through undici, its body read as text or (a success asked for as bytes)
// into pooled buffers, and the --debug trace of both sides with secrets redacted. It knows nothing of
// retries, redirects or credentials: the layers around it do.
import { ServiceError } from '../../errors.js';
import { BufferPool } from '../../util/buffer-pool.js';
import { redactForm, redactHeader, redactJson } from '../../util/redact.js';
import { formatSize } from '../../util/units.js';
import type { DispatchController, Dispatcher, DispatchOptions } from '../undici-lite.js';
import type { Outgoing, RawResponse, Send } from './types.js';

/** The most of an answer's body read, but for a results page (api/pipeline/deadline.ts). */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

interface TransportOptions {
  dispatcher: Dispatcher;
  timeoutMs: number;
  userAgent?: string;
  /** --debug: receives one line per traced item. */
  trace?: (line: string) => void;
}

export function transport(opts: TransportOptions): Send {
  return async (req: Outgoing): Promise<RawResponse> => {
    const { spec, url } = req;
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': opts.userAgent ?? 'dlake',
      ...req.headers,
    };
    let body: string | undefined;
    if (spec.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(spec.json);
    } else if (spec.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(spec.form).toString();
    }
    const trace = opts.trace;
    const started = performance.now();
    if (trace) {
      trace(`> ${spec.method} ${url}`);
      for (const [k, v] of Object.entries(headers)) trace(`>   ${k}: ${redactHeader(k, v)}`);
      if (spec.json !== undefined)
        trace(`>   body: ${JSON.stringify(redactJson(spec.json, spec.secretFields))}`);
      if (spec.form) trace(`>   body: ${new URLSearchParams(redactForm(spec.form)).toString()}`);
    }
    const options: DispatchOptions = {
      origin: url.origin,
      path: url.pathname + url.search,
      method: spec.method,
      headers,
      body,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
    };
    const signal = req.signal ?? new AbortController().signal;
    const onHeaders = req.onHeaders ?? (() => {});
    const cap = req.maxBodyBytes ?? MAX_BODY_BYTES;
    const res =
      spec.responseType === 'bytes'
        ? await requestBytes(
            opts.dispatcher,
            options,
            spec.bodyBuffers ?? new BufferPool(0),
            signal,
            onHeaders,
            cap,
            req.endpoint,
          )
        : await requestText(
            opts.dispatcher,
            options,
            signal,
            onHeaders,
            spec.responseType === 'none',
            req.endpoint,
          );
    const contentType = String(res.headers['content-type'] ?? '');
    if (trace) {
      trace(`< ${res.statusCode} ${spec.method} ${url} (${Math.round(performance.now() - started)} ms)`);
      for (const [k, v] of Object.entries(res.headers)) trace(`<   ${k}: ${redactHeader(k, String(v))}`);
    }
    return {
      status: res.statusCode,
      headers: res.headers,
      contentType,
      text: res.text,
      bytes: res.bytes,
      attempts: 1,
      endpoint: req.endpoint,
    };
  };
}

/** An answer as the requests below give it: its body as text, or (a success read as bytes) as bytes. */
interface Answer {
  statusCode: number;
  headers: RawResponse['headers'];
  text: string;
  bytes?: Buffer;
}

/**
 * A request through undici's `request`, its body read as text; with `discard`, a success's body is read and
 * dropped. A body that is not wanted is still read on an error: it carries the service's message. `signal`
 * aborts it; `onHeaders` is called once the answer's headers are in.
 */
async function requestText(
  dispatcher: Dispatcher,
  options: DispatchOptions,
  signal: AbortSignal,
  onHeaders: () => void,
  discard: boolean,
  endpoint: string,
): Promise<Answer> {
  const res = await dispatcher.request({ ...options, signal });
  onHeaders();
  const { statusCode, headers } = res;
  if (discard && statusCode < 400) {
    await res.body.dump();
    return { statusCode, headers, text: '' };
  }
  if (Number(headers['content-length']) > MAX_BODY_BYTES) {
    res.body.destroy();
    throw tooLarge(endpoint, MAX_BODY_BYTES);
  }
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const chunk of res.body) {
    n += (chunk as Buffer).length;
    if (n > MAX_BODY_BYTES) {
      res.body.destroy();
      throw tooLarge(endpoint, MAX_BODY_BYTES);
    }
    chunks.push(chunk as Buffer);
  }
  return { statusCode, headers, text: new TextDecoder().decode(Buffer.concat(chunks, n)) };
}

/** A body past its cap: the service (or whatever answers in its place) sends more than any answer holds. */
function tooLarge(endpoint: string, cap: number): ServiceError {
  return new ServiceError(
    `the answer to ${endpoint} is larger than ${formatSize(cap)}, the most dlake reads of it; it was not read`,
  );
}

/**
 * A request whose body is read into a buffer of `pool` (as big as its content-length says, grown where that
 * says too little), or as text on an error status. Through undici's handler interface rather than `request`:
 * the Readable stream `request` makes of each body cost ~75 µs of CPU a page, a tenth of a CSV export's
 * (docs/benchmarks.md). `signal` aborts it; `onHeaders` is called once the answer's headers are in.
 */
function requestBytes(
  dispatcher: Dispatcher,
  options: DispatchOptions,
  pool: BufferPool,
  signal: AbortSignal,
  onHeaders: () => void,
  cap: number,
  endpoint: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let controller: DispatchController | undefined;
    let statusCode = 0;
    let headers: RawResponse['headers'] = {};
    let buf: Buffer | undefined;
    let n = 0;
    const errorBody: Buffer[] = [];
    const stop = (): void => controller?.abort(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    const settle = (): void => signal.removeEventListener('abort', stop);
    dispatcher.dispatch(options, {
      onRequestStart(c) {
        controller = c;
        if (signal.aborted) c.abort(signal.reason);
      },
      onResponseStart(_c, status, h) {
        onHeaders();
        statusCode = status;
        headers = h;
        const length = Number(h['content-length']);
        if (length > cap) return controller?.abort(tooLarge(endpoint, cap));
        if (status >= 400) return;
        buf = pool.take(Number.isSafeInteger(length) && length > 0 ? length : 0);
      },
      onResponseData(_c, chunk) {
        if (n + chunk.length > cap) return controller?.abort(tooLarge(endpoint, cap));
        if (!buf) {
          n += chunk.length;
          errorBody.push(chunk);
          return;
        }
        if (n + chunk.length > buf.length) {
          const bigger = pool.take(Math.max(buf.length * 2, n + chunk.length));
          buf.copy(bigger, 0, 0, n);
          pool.give(buf);
          buf = bigger;
        }
        n += chunk.copy(buf, n);
      },
      onResponseEnd() {
        settle();
        if (buf) resolve({ statusCode, headers, bytes: buf.subarray(0, n), text: '' });
        else resolve({ statusCode, headers, text: new TextDecoder().decode(Buffer.concat(errorBody)) });
      },
      onResponseError(_c, err) {
        settle();
        if (buf) pool.give(buf);
        reject(err);
      },
    });
  });
}
