import type { CredentialDescriptor } from '../credential';

const LOGIN_HINT = 'log in with POST /v2/auth/login and send Authorization: Bearer <access_token>';

const JWT_FAILURES: Record<string, string> = {
  TokenExpiredError: 'The access token has expired. Refresh it or log in again.',
  JsonWebTokenError: 'The access token is malformed or its signature is invalid.',
  NotBeforeError: 'The access token is not valid yet.',
};

/** The revocation mark of one access token, by its `jti`. */
export function accessTokenMark(jti: string): string {
  return `revoked:jti:${jti}`;
}

/** The revocation mark of every access token of a refresh family (one login). */
export function refreshFamilyMark(familyId: string): string {
  return `revoked:fam:${familyId}`;
}

/**
 * The JWT access token: any bearer token that no other credential's prefix claims, so that a
 * malformed JWT is answered as one. It replaced HTTP Basic logins and the legacy `X-Auth-Token`
 * (docs/api.md#authentication), and is revoked by logout or refresh-token reuse: the token, or its whole family.
 */
export const JWT_CREDENTIAL: CredentialDescriptor = {
  kind: 'jwt',
  userLoginAs: 'a JWT (POST /v2/auth/login)',
  label: 'access token',
  accountLabel: 'token',
  carriage: { bearerPrefix: '' },
  carriedAs: 'an Authorization Bearer token',
  askedForAs: 'Authorization: Bearer <token>',
  // passport-jwt's challenge is jsonwebtoken's error, whose name says what was wrong.
  refusal: (challenge) => JWT_FAILURES[challenge instanceof Error ? challenge.name : ''] ?? 'The access token is missing or invalid.',
  authorizationSchemes: {
    replaced: { basic: { removed: 'HTTP Basic authentication', instead: LOGIN_HINT } },
    other: `The Authorization header must be "Bearer <token>"; other forms are not supported: ${LOGIN_HINT}.`,
  },
  removedFormIn: (req, route) =>
    route.acceptsLegacyToken || req.headers['x-auth-token'] === undefined
      ? null
      : 'X-Auth-Token is accepted only by POST /v2/auth/migrate: exchange the legacy token there for a token pair and send Authorization: Bearer <access_token>.',
  revocation: {
    marksOf: (auth) => [accessTokenMark(auth.credentialId), refreshFamilyMark(auth.familyId ?? '')],
    message: 'The access token has been revoked. Log in again.',
  },
};
