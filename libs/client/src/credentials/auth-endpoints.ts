import type { ApiClient, OAuthTokenResponse, TokenPair } from '../api-types';
import { RmsApiError } from '../errors';
import type { AuthorizationCodeGrant } from '../oauth/authorization-code';
import { unwrap } from '../unwrap';

/** A confidential OAuth client of the service, acting for the account that registered it. */
export interface OAuthClientCredentials {
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes; all of the client's when omitted. */
  scope?: string;
}

/** The service's token endpoints, called without a credential of the SDK's own. */
export interface AuthEndpoints {
  /** `POST /v2/auth/refresh`: the rotated pair, or null when the refresh token is refused. */
  refresh(refreshToken: string): Promise<TokenPair | null>;
  /** `POST /oauth/token` with `grant_type=client_credentials`. */
  clientCredentialsToken(client: OAuthClientCredentials): Promise<OAuthTokenResponse>;
  /** `POST /oauth/token` with `grant_type=authorization_code` and the PKCE verifier. */
  authorizationCodeToken(grant: AuthorizationCodeGrant): Promise<OAuthTokenResponse>;
}

/** `application/x-www-form-urlencoded`, as RFC 6749 requires of the token endpoint. */
function formEncoded(body: Record<string, string | undefined>): URLSearchParams {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(body)) if (value !== undefined) form.set(name, value);
  return form;
}

/** The endpoints through `api`, a client that throws typed errors and sends no credential. */
export function authEndpoints(api: ApiClient): AuthEndpoints {
  return {
    refresh: async (refreshToken) => {
      try {
        return (await unwrap(api.POST('/v2/auth/refresh', { body: { refresh_token: refreshToken } }))).data;
      } catch (error) {
        // Expired, revoked or already rotated (docs/api.md#jwt): the caller must log in again.
        if (error instanceof RmsApiError && error.code === 'authentication_required') return null;
        throw error;
      }
    },
    clientCredentialsToken: ({ clientId, clientSecret, scope }) =>
      unwrap(
        api.POST('/oauth/token', {
          body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, scope },
          bodySerializer: formEncoded,
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        }),
      ),
    authorizationCodeToken: ({ clientId, clientSecret, code, codeVerifier, redirectUri }) =>
      unwrap(
        api.POST('/oauth/token', {
          body: {
            grant_type: 'authorization_code',
            client_id: clientId,
            client_secret: clientSecret,
            code,
            code_verifier: codeVerifier,
            redirect_uri: redirectUri,
          },
          bodySerializer: formEncoded,
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        }),
      ),
  };
}
