// The legacy login (POST /apiv2/login) and the session check used to verify a stored token.
import { LOGIN_PATH } from '../constants.js';
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

/** One cheap authenticated call: proves a token works (used by `login --token-stdin`, `whoami --check`). */
export function getServerInfo(client: ApiClient) {
  return client.request({ method: 'GET', path: '/api/v3/info', schema: ServerInfoSchema });
}
