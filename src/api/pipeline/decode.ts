// After the pipeline: a success's body as the caller asked for it (JSON checked by its schema, text, bytes or
// nothing), and an error answer as the CLI's typed error (api/errors.ts), named by the request's target.
import { type DlakeError, ServiceError } from '../../errors.js';
import { rememberReceived } from '../../util/received.js';
import { errorFromResponse } from '../errors.js';
import { checkNesting } from '../exact-json.js';
import { refusedWaitText } from './retry.js';
import type { AnySpec, RawResponse } from './types.js';

export function decode(spec: AnySpec, raw: RawResponse): unknown {
  if (spec.responseType === 'none') return undefined;
  if (spec.responseType === 'text') return raw.text;
  if (spec.responseType === 'bytes') return raw.bytes;
  const endpoint = raw.endpoint;
  if (raw.status === 204 || raw.text === '') {
    if (!spec.schema) return undefined;
    throw new ServiceError(`the service sent an empty answer to ${endpoint}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw.text);
  } catch {
    const what =
      /html/i.test(raw.contentType) || /^\s*</.test(raw.text) ? 'an HTML page' : 'a body that is not JSON';
    throw new ServiceError(
      `the service answered ${endpoint} with ${what} (${raw.contentType || 'no content type'})`,
      { hint: { kind: 'not-the-service' } },
    );
  }
  checkNesting(json, `the service's answer to ${endpoint}`, raw.text);
  if (!spec.schema) return json;
  const parsed = spec.schema.safeParse(json);
  if (parsed.success) {
    rememberReceived(parsed.data, json);
    return parsed.data;
  }
  const issue = parsed.error.issues[0]!;
  const field = issue.path.length ? issue.path.join('.') : '(body)';
  throw new ServiceError(`unexpected answer from ${endpoint}: ${field}: ${issue.message}`, {
    details: parsed.error.issues.slice(1, 4).map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`),
  });
}

/**
 * The typed error for an error answer: one that survived retries says how often it was tried, and one not
 * retried because the server asked for a longer wait than dlake allows says what it asked for.
 */
export function failure(raw: RawResponse, spec: Pick<AnySpec, 'at'>): DlakeError {
  const err = errorFromResponse({ ...raw, target: spec.at });
  if (raw.attempts > 1) err.message += `; gave up after ${raw.attempts} attempts`;
  if (raw.waitRefused) err.message += `; ${refusedWaitText(raw.waitRefused)}`;
  return err;
}
