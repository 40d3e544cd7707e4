// The guards every area puts before what only a caller, or only an admin, may do; apart from the auth area
// (auth.ts), so that areas use them without importing that area.
import { type EmuRequest, forbidden, type Principal, unauthorized } from './http.js';

/** The caller, or an empty-bodied 401 (docs/api-facts.md §1.2: every auth failure is a bare 401). */
export function requireAuth(req: EmuRequest): Principal {
  if (!req.principal) throw unauthorized();
  return req.principal;
}

/** The caller when an admin; 403 `User not authorized.` (Jersey's RolesAllowed text) for other users. */
export function requireAdmin(req: EmuRequest): Principal {
  const p = requireAuth(req);
  if (!p.admin) throw forbidden();
  return p;
}
