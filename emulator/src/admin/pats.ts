// Personal access tokens: list, create, revoke one or all. Enterprise only.

import { randomUUID } from 'node:crypto';
import type { AreaContext } from '../area.js';
import { requireAuth } from '../guards.js';
import { badRequest, type EmuRequest, forbidden, noContent, notFound, ok, type Principal } from '../http.js';
import type { EmuUser, IssuedToken } from '../state.js';
import { iso, objectBody, optionalString } from './common.js';
import { userNotFound } from './users.js';

const MAX_PAT_LIFETIME_MS = 180 * 24 * 60 * 60 * 1000;

export function registerPats(area: AreaContext): void {
  const { router, state, options } = area;
  /** Any PAT call needs a login and the feature switched on. The real "disabled" text is unconfirmed. */
  const guard = (req: EmuRequest): Principal => {
    const p = requireAuth(req);
    if (options.patsEnabled === false) throw forbidden('Personal access tokens are disabled.');
    return p;
  };
  /** Users manage their own tokens, admins anyone's; 403 comes before 404 so ids do not leak. */
  const ownerOrAdmin = (req: EmuRequest): EmuUser => {
    const p = guard(req);
    const id = req.params.id!;
    if (!p.admin && p.userId !== id) throw forbidden();
    const user = state.users.get(id);
    if (!user) throw userNotFound(id);
    return user;
  };
  const patsOf = (uid: string): IssuedToken[] =>
    [...state.tokens.values()]
      .filter((t) => t.kind === 'pat' && t.userId === uid && t.expiresAt > state.now())
      .sort((a, b) => a.createdAt - b.createdAt);

  // Expired PATs are left out of the listing (the service's cleanup is not modelled).
  router.get('/api/v3/user/:id/token', (req) => {
    const user = ownerOrAdmin(req);
    const data = patsOf(user.id).map((t) => ({
      tid: t.patId,
      uid: t.userId,
      label: t.label ?? '',
      createdAt: iso(t.createdAt),
      expiresAt: iso(t.expiresAt),
    }));
    return ok({ data });
  });

  // Creation follows the spec ("403: caller must be an admin"), so an admin may mint for any user; the
  // Enterprise docs (docs/api-facts.md §7.4) say only for yourself, which the emulator does not enforce.
  router.post('/api/v3/user/:id/token', (req) => {
    const p = guard(req);
    if (!p.admin) throw forbidden();
    const user = state.users.get(req.params.id!);
    if (!user) throw userNotFound(req.params.id!);
    const body = objectBody(req);
    const label = optionalString(body, 'label');
    if (!label?.trim()) throw badRequest('label is required');
    const ms = body.millisecondsToExpire;
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) {
      throw badRequest('millisecondsToExpire must be a positive number');
    }
    if (ms > MAX_PAT_LIFETIME_MS)
      throw badRequest('millisecondsToExpire exceeds the maximum lifetime of 180 days');
    const issued = state.issueToken(user.id, 'pat', Math.floor(ms), { patId: randomUUID(), label });
    // The body is the bare token; its Content-Type is unconfirmed (docs/api-facts.md §12), text/plain is the
    // guess.
    return { status: 200, text: issued.token, contentType: 'text/plain' };
  });

  router.delete('/api/v3/user/:id/token/:tid', (req) => {
    const user = ownerOrAdmin(req);
    const pat = patsOf(user.id).find((t) => t.patId === req.params.tid);
    if (!pat) throw notFound(`Personal access token '${req.params.tid}' not found`);
    state.tokens.delete(pat.token);
    return noContent();
  });
  router.delete('/api/v3/user/:id/token', (req) => {
    const user = ownerOrAdmin(req);
    for (const t of patsOf(user.id)) state.tokens.delete(t.token);
    return noContent();
  });
}
