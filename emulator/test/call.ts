// One HTTP call to a running emulator, as the emulator's own tests make them: an optional Authorization value,
// a JSON body (an object, or a string sent as it is) or a form, and the answer read back loosely.
import type { Emulator } from '../src/server.js';

export interface Reply {
  status: number;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely in tests
  json: any;
  headers: Headers;
}

export interface CallOptions {
  auth?: string;
  /** A JSON body: an object is serialised, a string is sent as it is (to test malformed bodies). */
  json?: unknown;
  form?: Record<string, string>;
}

export async function call(
  emu: Emulator,
  method: string,
  path: string,
  opts: CallOptions = {},
): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (opts.auth) headers.Authorization = opts.auth;
  let body: string | undefined;
  if (opts.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = typeof opts.json === 'string' ? opts.json : JSON.stringify(opts.json);
  } else if (opts.form) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(opts.form).toString();
  }
  const res = await fetch(emu.url + path, { method, headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json, headers: res.headers };
}
