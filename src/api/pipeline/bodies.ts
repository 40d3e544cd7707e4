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
 * A request whose body is read as text; with `discard`, a success's body is read and dropped. A body that is not
 * wanted is still read on an error: it carries the service's message. `signal` aborts it; `onHeaders` is called
 * once the answer's headers are in. Through undici's handler interface, as `requestBytes`: the Readable stream
 * `request` makes of each body cost more CPU than the rest of a small answer's exchange (docs/benchmarks.md,
 * "diff and plan at 10,000 entities").
 */
export function requestText(
  dispatcher: Dispatcher,
  options: DispatchOptions,
  signal: AbortSignal,
  onHeaders: () => void,
  discard: boolean,
  endpoint: string,
): Promise<Answer> {
  return exchange(
    dispatcher,
    options,
    signal,
    onHeaders,
    MAX_BODY_BYTES,
    endpoint,
    discard ? 'discard' : 'text',
  );
}

/** A body past its cap: the service (or whatever answers in its place) sends more than any answer holds. */
function tooLarge(endpoint: string, cap: number): ServiceError {
  return new ServiceError(
    `the answer to ${endpoint} is larger than ${formatSize(cap)}, the most dlake reads of it; it was not read`,
  );
}

/**
 * A request whose body is read into a buffer of `pool`, or as text on an error status. Through undici's handler
 * interface rather than `request`: the Readable stream `request` makes of each body cost ~75 µs of CPU a page,
 * a tenth of a CSV export's (docs/benchmarks.md). `signal` aborts it; `onHeaders` is called once the answer's
 * headers are in.
 */
export function requestBytes(
  dispatcher: Dispatcher,
  options: DispatchOptions,
  pool: BufferPool,
  signal: AbortSignal,
  onHeaders: () => void,
  cap: number,
  endpoint: string,
  into?: (piece: Buffer) => Promise<void>,
): Promise<Answer> {
  return exchange(dispatcher, options, signal, onHeaders, cap, endpoint, into ? { into } : pool);
}

/** A download's body: each piece handed on as it arrives, the next read once it is taken; no cap. */
interface Download {
  into: (piece: Buffer) => Promise<void>;
}

/**
 * One exchange through undici's handler interface, a success's body kept as `success` says: as text, dropped, or
 * in a buffer of the pool (as big as its content-length says, grown where that says too little). An error's body
 * is always read, as text. Bounded by `cap` bytes (a dropped body excepted: the deadline bounds it).
 */
function exchange(
  dispatcher: Dispatcher,
  options: DispatchOptions,
  signal: AbortSignal,
  onHeaders: () => void,
  cap: number,
  endpoint: string,
  success: 'text' | 'discard' | BufferPool | Download,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let controller: DispatchController | undefined;
    let statusCode = 0;
    let headers: RawResponse['headers'] = {};
    let buf: Buffer | undefined;
    let dropping = false;
    let downloading: Download | undefined;
    let taken: Promise<void> = Promise.resolve();
    let refused: unknown;
    let n = 0;
    const chunks: Buffer[] = [];
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
        if (status < 400 && success === 'discard') {
          // The status is the answer: the rest of the body is read and dropped without being waited for
          // (undici's bodyTimeout bounds it).
          dropping = true;
          settle();
          return resolve({ statusCode, headers, text: '' });
        }
        if (status < 400 && typeof success === 'object' && 'into' in success) {
          downloading = success;
          return;
        }
        if (length > cap) return controller?.abort(tooLarge(endpoint, cap));
        if (status >= 400 || success === 'text') return;
        buf = (success as BufferPool).take(Number.isSafeInteger(length) && length > 0 ? length : 0);
      },
      onResponseData(c, chunk) {
        if (dropping) return;
        if (downloading) {
          if (chunk.length === 0) return;
          // A copy: undici's piece may be a view of a buffer it reads the next piece into.
          const piece = Buffer.from(chunk);
          const into = downloading.into;
          c.pause();
          taken = taken
            .then(() => (refused ? undefined : into(piece)))
            .then(
              () => c.resume(),
              (e) => {
                refused ??= e;
                c.abort(e);
              },
            );
          return;
        }
        if (n + chunk.length > cap) return controller?.abort(tooLarge(endpoint, cap));
        if (!buf) {
          n += chunk.length;
          chunks.push(chunk);
          return;
        }
        if (n + chunk.length > buf.length) {
          const pool = success as BufferPool;
          const bigger = pool.take(Math.max(buf.length * 2, n + chunk.length));
          buf.copy(bigger, 0, 0, n);
          pool.give(buf);
          buf = bigger;
        }
        n += chunk.copy(buf, n);
      },
      onResponseEnd() {
        if (dropping) return;
        settle();
        if (downloading) {
          taken.then(() =>
            refused ? reject(refused) : resolve({ statusCode, headers, bytes: Buffer.alloc(0), text: '' }),
          );
          return;
        }
        if (buf) resolve({ statusCode, headers, bytes: buf.subarray(0, n), text: '' });
        else resolve({ statusCode, headers, text: new TextDecoder().decode(Buffer.concat(chunks, n)) });
      },
      onResponseError(_c, err) {
        settle();
        if (buf) (success as BufferPool).give(buf);
        reject(err);
      },
    });
  });
}
