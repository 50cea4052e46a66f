import { AuthenticationRequiredError, InvalidRequestError } from '@app/common';
import { authorizationHeader, bearerToken, CredentialAuthenticator, CredentialCarrier } from './credentials/credential-authenticator';

const LOGIN_HINT = 'log in with POST /v2/auth/login and send Authorization: Bearer <access_token>';

/** Each removed method and what replaced it (decisions 9). */
export const REMOVED_METHOD_MESSAGES = {
  basic: `HTTP Basic authentication has been removed: ${LOGIN_HINT}, or send an API key in X-API-Key.`,
  oauth1: 'OAuth 1.0 has been removed: get an OAuth 2.0 access token from /oauth/token and send Authorization: Bearer <access_token>.',
  notBearer: `The Authorization header must be "Bearer <token>"; other forms are not supported: ${LOGIN_HINT}.`,
  apiKeyV1: 'First-generation API keys (api_v1_...) have been removed: create a key with POST /v2/api-keys and send it in X-API-Key.',
  apiKeyQuery: 'API keys in the api_key query parameter are disabled: send the key in the X-API-Key header.',
  legacyToken:
    'X-Auth-Token is accepted only by POST /v2/auth/migrate: exchange the legacy token there for a token pair and send Authorization: Bearer <access_token>.',
} as const;

/**
 * Credentials sent in the place of another, each answered with where it goes, as removed methods
 * are: a client written for Stripe sends its secret key as a bearer token.
 */
export const MISPLACED_CREDENTIAL_MESSAGES = {
  apiKeyAsBearer: 'API keys are not bearer tokens: send the key in the X-API-Key header, without an Authorization header.',
} as const;

const BEARER = /^Bearer\s+\S+$/i;

/** The shape of this service's API keys (`sk_live_...`, `sk_test_...`), whichever the environment. */
const API_KEY_SECRET = /^sk_(live|test)_/;

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The removed methods a route takes as its own credential. */
export interface RouteCredentialExceptions {
  /** `X-Auth-Token`, on the route that exchanges legacy tokens. */
  legacyToken?: boolean;
  /** `Authorization: Basic`, on the OAuth endpoints where clients authenticate with it. */
  clientBasic?: boolean;
}

/**
 * Refuses the removed methods (401, naming the replacement), on every route, public ones
 * included: they never authenticate, whatever else is sent, except where a route takes one
 * as its own credential.
 */
export function refuseRemovedMethods(req: CredentialCarrier, accepted: RouteCredentialExceptions = {}): void {
  const authorization = authorizationHeader(req);
  const scheme = authorization?.split(/\s+/, 1)[0].toLowerCase();
  if (authorization !== undefined && !BEARER.test(authorization) && !(scheme === 'basic' && accepted.clientBasic)) {
    if (scheme === 'basic') throw new AuthenticationRequiredError(REMOVED_METHOD_MESSAGES.basic);
    if (scheme === 'oauth') throw new AuthenticationRequiredError(REMOVED_METHOD_MESSAGES.oauth1);
    throw new AuthenticationRequiredError(REMOVED_METHOD_MESSAGES.notBearer);
  }
  if (single(req.headers['x-api-key'])?.startsWith('api_v1_')) {
    throw new AuthenticationRequiredError(REMOVED_METHOD_MESSAGES.apiKeyV1);
  }
  if (typeof req.query === 'object' && req.query !== null && 'api_key' in req.query) {
    throw new AuthenticationRequiredError(REMOVED_METHOD_MESSAGES.apiKeyQuery);
  }
  if (!accepted.legacyToken && req.headers['x-auth-token'] !== undefined) {
    throw new AuthenticationRequiredError(REMOVED_METHOD_MESSAGES.legacyToken);
  }
}

/** Refuses a credential sent where another kind goes (401, naming where it belongs). */
function refuseMisplacedCredentials(req: CredentialCarrier): void {
  const token = bearerToken(req);
  if (token === undefined) return;
  if (API_KEY_SECRET.test(token)) throw new AuthenticationRequiredError(MISPLACED_CREDENTIAL_MESSAGES.apiKeyAsBearer);
  if (token.startsWith('api_v1_')) throw new AuthenticationRequiredError(REMOVED_METHOD_MESSAGES.apiKeyV1);
}

/**
 * The one credential a request carries, after refusing the removed methods, credentials sent in
 * the place of another, and requests with none (401) or more than one (400 invalid_request).
 */
export function detectCredential(
  req: CredentialCarrier,
  authenticators: readonly CredentialAuthenticator[],
): CredentialAuthenticator {
  refuseRemovedMethods(req);
  refuseMisplacedCredentials(req);
  const presented = authenticators.flatMap((authenticator) => {
    const carrier = authenticator.carriedBy(req);
    return carrier === null ? [] : [{ authenticator, carrier }];
  });
  if (presented.length > 1) {
    throw new InvalidRequestError(
      `Send exactly one credential; this request carries ${presented.map(({ carrier }) => carrier).join(' and ')}.`,
    );
  }
  if (presented.length === 0) {
    throw new AuthenticationRequiredError(
      'Authentication is required: send Authorization: Bearer <token>, an X-API-Key header or the session cookie.',
    );
  }
  return presented[0].authenticator;
}
