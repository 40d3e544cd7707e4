// The legacy login (POST /apiv2/login). Tokens are proved, and their user named, by identity.ts.
import { LOGIN_PATH } from '../constants.js';
import type { ApiClient } from './http.js';
import { LoginResponseSchema } from './schemas.js';

export function legacyLogin(client: ApiClient, userName: string, password: string) {
  return client.request({
    method: 'POST',
    path: LOGIN_PATH,
    json: { userName, password },
    auth: false,
    schema: LoginResponseSchema,
  });
}
