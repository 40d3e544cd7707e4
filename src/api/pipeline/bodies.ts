// How an answer's body is read: as text (an error's always, carrying the service's message), or, a success asked
// for as bytes, into a pooled buffer; each bounded in size.
import { ServiceError } from '../../errors.js';
import type { BufferPool } from '../../util/buffer-pool.js';
import { formatSize } from '../../util/units.js';
import type { DispatchController, Dispatcher, DispatchOptions } from '../undici-lite.js';
import type { RawResponse } from './types.js';

/** The most of an answer's body read, but for a results page (api/pipeline/deadline.ts). */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

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
export async function requestText(
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
export function requestBytes(
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
