// Personal access tokens (docs/api-facts.md §7.4): Enterprise only, and
// only when the service has them switched on. Listing and creating need an admin caller.
import { ServiceError, UsageError } from '../errors.js';
import { formatDuration } from '../util/units.js';
import { patEndpoint } from './editions.js';
import { below, type Target, v3 } from './endpoint.js';
import type { ApiClient } from './http.js';
import { type Pat, PatListSchema } from './schemas/admin.js';
import { segment } from './url-segment.js';
import { type Write, type WriteRequest, write } from './write.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** The service's default maximum lifetime (support key `auth.personal-access-token.max_lifetime_days`). */
export const MAX_PAT_LIFETIME_MS = 180 * DAY_MS;
/** dlake counts a token with less than a minute left as expired, so a shorter one would be useless. */
const MIN_PAT_LIFETIME_MS = 60_000;

interface NewPat {
  label: string;
  millisecondsToExpire: number;
}

/** Refuses, before any request, a label or lifetime the service would refuse. */
export function checkNewPat(pat: NewPat): void {
  if (!pat.label.trim()) throw new UsageError('the label is empty');
  const ms = pat.millisecondsToExpire;
  if (ms < MIN_PAT_LIFETIME_MS) {
    throw new UsageError(`a token lifetime of ${formatDuration(ms)} is too short: it must be at least 1m`);
  }
  if (ms > MAX_PAT_LIFETIME_MS) {
    throw new UsageError(
      `a token lifetime of ${formatDuration(ms)} is too long: the service allows at most 180d`,
      { hint: { kind: 'pat-lifetime', max: '180d' } },
    );
  }
}

/** A user's tokens: singular `user` on both editions (`/v0/user/{id}/token` on the hosted one, §13.4). */
function patsTarget(userId: string): Target {
  return v3('pat', `user/${segment(userId, 'user id')}/token`, { scope: 'organisation' });
}

/** GET /user/{id}/token: the user's PAT records (no secrets in them). */
export async function listPats(client: ApiClient, userId: string): Promise<Pat[]> {
  const res = await patEndpoint(() =>
    client.request({ method: 'GET', at: patsTarget(userId), schema: PatListSchema }),
  );
  return res.data;
}

/** POST /user/{id}/token: the new token itself, the body being the bare token string. Sent once only. */
export function patCreation(userId: string, pat: NewPat): Write<string> {
  return write({ method: 'POST', at: patsTarget(userId), json: pat }, (client, request) =>
    sendCreation(client, request, userId),
  );
}

async function sendCreation(client: ApiClient, request: WriteRequest, userId: string): Promise<string> {
  const text = String(await patEndpoint(() => client.request({ ...request, responseType: 'text' })));
  const token = unquote(text.trim());
  // Never quote the body in this error: it may be a token after all.
  if (!token || /\s/.test(token)) {
    throw new ServiceError(`unexpected answer from POST ${patsTarget(userId).software}: not a bare token`);
  }
  return token;
}

/** The body's content type is unconfirmed: a server might send the token as a JSON string. */
function unquote(text: string): string {
  if (!text.startsWith('"')) return text;
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'string' ? value.trim() : '';
  } catch {
    return '';
  }
}

/** DELETE /user/{id}/token/{tid}, or /user/{id}/token (all of the user's tokens) without a tid. */
export function deletePatRequest(userId: string, tid?: string) {
  const at = tid
    ? below(patsTarget(userId), segment(tid, 'token id'), { key: { id: tid } })
    : patsTarget(userId);
  return { method: 'DELETE', at } as const;
}

/** Revokes one token or all of a user's; 204. Deleting is safe to repeat, so it may be retried. */
export async function deletePat(client: ApiClient, userId: string, tid?: string): Promise<void> {
  await patEndpoint(() =>
    client.request({ ...deletePatRequest(userId, tid), responseType: 'text', idempotent: true }),
  );
}
