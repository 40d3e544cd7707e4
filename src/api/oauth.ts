// The token endpoint ({auth_url}/oauth/token) and its four grants (docs/api-facts.md §2.5).
import {
  GRANT_CLIENT_CREDENTIALS,
  GRANT_REFRESH_TOKEN,
  GRANT_TOKEN_EXCHANGE,
  OAUTH_SCOPE,
  TOKEN_PATH,
  TOKEN_TYPE_JWT,
  TOKEN_TYPE_PAT,
} from '../constants.js';
import { literal } from './endpoint.js';
import type { ApiClient } from './http.js';
import { OAuthTokenSchema } from './schemas/auth.js';

function tokenRequest(client: ApiClient, form: Record<string, string>) {
  // A token request creates nothing on the server that a second one would duplicate, but it carries a
  // secret and is a POST: it follows the POST rule and is not repeated once it may have been received.
  return client.request({
    method: 'POST',
    at: literal('token', TOKEN_PATH, 'auth'),
    form,
    auth: false,
    schema: OAuthTokenSchema,
  });
}

export function clientCredentialsGrant(client: ApiClient, clientId: string, clientSecret: string) {
  return tokenRequest(client, {
    grant_type: GRANT_CLIENT_CREDENTIALS,
    client_id: clientId,
    client_secret: clientSecret,
    scope: OAUTH_SCOPE,
  });
}

/**
 * The refresh grant (docs/api-facts.md §2.5): `client_id` is the one the refresh token was issued to. No scope and
 * no secret: the refresh token stands in for them.
 */
export function refreshTokenGrant(client: ApiClient, clientId: string, refreshToken: string) {
  return tokenRequest(client, {
    grant_type: GRANT_REFRESH_TOKEN,
    client_id: clientId,
    refresh_token: refreshToken,
  });
}

/** External JWT exchange; with `audience`, the token is for the service user that credential belongs to. */
export function jwtExchange(client: ApiClient, jwt: string, audience?: string) {
  return tokenRequest(client, {
    grant_type: GRANT_TOKEN_EXCHANGE,
    subject_token: jwt,
    subject_token_type: TOKEN_TYPE_JWT,
    scope: OAUTH_SCOPE,
    ...(audience ? { audience } : {}),
  });
}

export function patExchange(client: ApiClient, pat: string) {
  return tokenRequest(client, {
    grant_type: GRANT_TOKEN_EXCHANGE,
    subject_token: pat,
    subject_token_type: TOKEN_TYPE_PAT,
    scope: OAUTH_SCOPE,
  });
}
