import type { TokenPair } from '../api-types';
import type { AuthEndpoints, OAuthClientCredentials } from './auth-endpoints';
import { Authenticator, bearer, fixedCredential } from './authenticator';
import { ClientCredentialsTokens } from './client-credentials-tokens';
import { RefreshingTokens } from './refreshing-tokens';

/** The one credential a client sends with every request (docs/api.md#credentials: exactly one per request). */
export type Credentials =
  /** An API key, `sk_live_...` or `sk_test_...`, sent as `X-API-Key`. */
  | { apiKey: string }
  /** A bearer token used as is: an OAuth access token (`oat_...`) or a JWT access token. */
  | { bearerToken: string }
  /** The pair of `POST /v2/auth/login`, refreshed on a 401; `onRefresh` receives each new pair to keep. */
  | { tokens: TokenPair; onRefresh?: (tokens: TokenPair) => void }
  /** A confidential OAuth client: access tokens fetched with the client credentials grant. */
  | { clientCredentials: OAuthClientCredentials };

export function authenticatorFor(credentials: Credentials, endpoints: AuthEndpoints): Authenticator {
  if ('apiKey' in credentials) return fixedCredential({ name: 'X-API-Key', value: credentials.apiKey });
  if ('bearerToken' in credentials) return fixedCredential(bearer(credentials.bearerToken));
  if ('tokens' in credentials) return new RefreshingTokens(credentials.tokens, endpoints, credentials.onRefresh);
  return new ClientCredentialsTokens(credentials.clientCredentials, endpoints);
}
