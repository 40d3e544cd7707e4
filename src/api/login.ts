// The legacy login (POST /apiv2/login). Tokens are proved, and their user named, by identity.ts.
import { LOGIN_PATH } from '../constants.js';
import { type Target, v3 } from './endpoint.js';
import type { ApiClient } from './http.js';
import { LoginResponseSchema } from './schemas/auth.js';

/** The password login: a session of the self-hosted edition, which the hosted one does not have. */
const LOGIN: Target = { ...v3('login', ''), software: LOGIN_PATH, cloud: [], gap: 'password-login' };

/** Ends the session a password login opened (`dlake logout`); 204. */
export function endSession(client: ApiClient): Promise<unknown> {
  return client.request({ method: 'DELETE', at: LOGIN, responseType: 'none' });
}

export function legacyLogin(client: ApiClient, userName: string, password: string) {
  return client.request({
    method: 'POST',
    at: LOGIN,
    json: { userName, password },
    auth: false,
    schema: LoginResponseSchema,
  });
}
