// The legacy login (POST /apiv2/login) and the check that proves a token works.
import { LOGIN_PATH } from '../constants.js';
import { NotFoundError } from '../errors.js';
import type { ApiClient } from './http.js';
import { LoginResponseSchema, ServerInfoSchema } from './schemas.js';

export function legacyLogin(client: ApiClient, userName: string, password: string) {
  return client.request({
    method: 'POST',
    path: LOGIN_PATH,
    json: { userName, password },
    auth: false,
    schema: LoginResponseSchema,
  });
}

/**
 * Proves a token works with one cheap authenticated call (`login --token-stdin`, `whoami --check`), and
 * returns the service's version when it tells it. `GET /api/v3/info` says the version but is not in the
 * spec: a server that serves only the spec answers 404, and then the top-level catalog listing (which every
 * server has) proves the token instead. 401/403 from either is the token being refused.
 */
export async function verifyCredentials(client: ApiClient): Promise<{ version?: string }> {
  try {
    const info = await client.request({ method: 'GET', path: '/api/v3/info', schema: ServerInfoSchema });
    return { version: info.version };
  } catch (e) {
    if (!(e instanceof NotFoundError)) throw e;
  }
  await client.request({ method: 'GET', path: '/api/v3/catalog', responseType: 'none' });
  return {};
}
