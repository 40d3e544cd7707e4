// The innermost layer: one exchange through undici, its body read as text or (a success asked for as bytes)
// into pooled buffers, and the --debug trace of both sides with secrets redacted. It knows nothing of
// retries, redirects or credentials: the layers around it do.

import { BufferPool } from '../../util/buffer-pool.js';
import { isSecretKey, redactForm, redactHeader, redactJson } from '../../util/redact.js';
import { secretsInForce } from '../../util/secrets.js';
import type { Dispatcher, DispatchOptions } from '../undici-lite.js';
import { MAX_BODY_BYTES, requestBytes, requestText } from './bodies.js';
import type { Outgoing, RawResponse, Send } from './types.js';

export { MAX_BODY_BYTES } from './bodies.js';

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
      accept: spec.accept ?? 'application/json',
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
    rememberSecrets(headers, spec.form, spec.json, spec.secretFields);
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
            spec.bodyInto,
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

/**
 * The secrets this request sends, remembered as the run's secrets in force (src/output/secrets.ts): whatever the
 * service answers, no text dlake prints will show them.
 */
function rememberSecrets(
  headers: Record<string, string>,
  form: Record<string, string> | undefined,
  json: unknown,
  secretFields: readonly string[] = [],
): void {
  const secrets = secretsInForce();
  if (!secrets) return;
  for (const [k, v] of Object.entries(headers)) {
    if (/^(authorization|proxy-authorization)$/i.test(k)) secrets.addAuthorization(v);
    else if (redactHeader(k, v) !== v) secrets.add(v);
  }
  for (const [k, v] of Object.entries(form ?? {})) if (isSecretKey(k)) secrets.add(v);
  const extra = new Set(secretFields.map((k) => k.toLowerCase()));
  const walk = (v: unknown, depth: number): void => {
    if (depth > 64 || !v || typeof v !== 'object') return;
    for (const [k, inner] of Object.entries(v)) {
      if ((isSecretKey(k) || extra.has(k.toLowerCase())) && typeof inner === 'string') secrets.add(inner);
      else walk(inner, depth + 1);
    }
  };
  walk(json, 0);
}
