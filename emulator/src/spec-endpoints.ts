// The endpoints the spec itself has (its Endpoints part, and the reflection summary it names in passing). With
// `strictSpec` the emulator serves only these: every other route (`GET /api/v3/info`, the session check, job
// submission, …) answers 404 as a server that follows the spec to the letter may, so a test shows which
// commands depend on something outside the spec.

const SPEC_ENDPOINTS = new Set([
  'POST /oauth/token',
  'POST /apiv2/login',
  'POST /api/v3/user',
  'GET /api/v3/user/:id',
  'GET /api/v3/user/by-name/:name',
  'PUT /api/v3/user/:id',
  'DELETE /api/v3/user/:id',
  'GET /api/v3/user/:id/token',
  'POST /api/v3/user/:id/token',
  'GET /api/v3/catalog',
  'GET /api/v3/catalog/:id',
  'GET /api/v3/catalog/by-path/*path',
  'PUT /api/v3/catalog/:id',
  'POST /api/v3/catalog/:id/refresh',
  'GET /api/v3/catalog/:id/collaboration/tag',
  'GET /api/v3/catalog/:id/collaboration/wiki',
  'GET /api/v3/job/:id',
  'GET /api/v3/job/:id/results',
  'POST /api/v3/wlm/queue',
  'PUT /api/v3/wlm/queue/:id',
  'DELETE /api/v3/wlm/queue/:id',
  'GET /api/v3/reflection-summary',
]);

/** Whether a route (method and the router's pattern) is one of the spec's endpoints. */
export function isSpecEndpoint(method: string, pattern: string): boolean {
  return SPEC_ENDPOINTS.has(`${method} ${pattern}`);
}
