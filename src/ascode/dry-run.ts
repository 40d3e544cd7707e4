// `apply --dry-run`: the requests apply would send, found by carrying the plan out against a client that sends
// its reads (GET) and, for each write, prints the request (method, URL, body with secrets redacted) and answers
// it itself with what it sent, as a service that accepted it would. The requests printed are those of the real
// apply, made by the same code, not a description of them.
import type { ApiClient } from '../api/http.js';
import type { AnySpec, RawResponse } from '../api/pipeline/types.js';
import { redactJson } from '../util/redact.js';

interface DryRequest {
  method: string;
  url: string;
  body?: unknown;
}

/** `client`, its writes printed through `onWrite` and never sent. */
export function dryRunClient(client: ApiClient, onWrite: (r: DryRequest) => void): ApiClient {
  let n = 0;
  /** The entities "deleted": a container whose contents were is read as empty, as it would be by then. */
  const deleted = new Set<string>();
  const send = async (spec: AnySpec): Promise<RawResponse> => {
    if (spec.method === 'GET' || spec.method === 'HEAD')
      return withoutDeleted(await client.send(spec), deleted);
    if (spec.method === 'DELETE') deleted.add(new URL(client.urlFor(spec)).pathname.split('/').pop() ?? '');
    const body = spec.json === undefined ? undefined : redactJson(spec.json, spec.secretFields);
    onWrite({ method: spec.method, url: client.urlFor(spec), ...(body === undefined ? {} : { body }) });
    // What a service answers a write with: the entity as sent, with an id and a tag of its own.
    const sent = spec.json && typeof spec.json === 'object' && !Array.isArray(spec.json) ? spec.json : {};
    const answer = { id: `dry-run-${++n}`, tag: 'dry-run', version: 0, ...sent };
    return {
      status: 200,
      headers: { 'content-type': 'application/json' },
      contentType: 'application/json',
      text: JSON.stringify(answer),
      attempts: 1,
      endpoint: `${spec.method} (dry run)`,
    };
  };
  // `request` and the rest run as they are, with this `send` underneath them.
  return new Proxy(client, {
    get: (target, key, receiver) => (key === 'send' ? send : Reflect.get(target, key, receiver)),
  });
}

/** A read's answer without the children deleted earlier in the dry run. */
function withoutDeleted(raw: RawResponse, deleted: ReadonlySet<string>): RawResponse {
  if (deleted.size === 0 || raw.status !== 200 || !raw.text.includes('"children"')) return raw;
  try {
    const body = JSON.parse(raw.text) as { children?: { id?: string }[] };
    if (!Array.isArray(body.children)) return raw;
    body.children = body.children.filter((c) => !deleted.has(encodeURIComponent(String(c?.id))));
    return { ...raw, text: JSON.stringify(body) };
  } catch {
    return raw;
  }
}
