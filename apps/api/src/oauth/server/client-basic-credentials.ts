import basicAuth from 'basic-auth';
import { OAuthAnswer, oauthError } from './oauth-answer';

/** Sent with a 401 to a client that authenticated with HTTP Basic (RFC 6749 5.2). */
export const BASIC_CHALLENGE = { 'WWW-Authenticate': 'Basic realm="oauth"' };

/** What an `Authorization: Basic` header of a client says. */
export type BasicClientCredentials =
  | { outcome: 'absent' }
  | { outcome: 'malformed' }
  | { outcome: 'present'; clientId: string; clientSecret: string };

/** application/x-www-form-urlencoded decoding: `+` is a space, then percent-escapes. */
function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

/**
 * The client id and secret of an `Authorization: Basic` header. RFC 6749 2.3.1 has clients
 * form-encode both before joining them (openid-client and oauth4webapi send `_` as `%5F`), so
 * they are decoded here; an unencoded pair, as curl sends it, decodes to itself.
 */
export function readBasicClientCredentials(authorization: string | undefined): BasicClientCredentials {
  const basic = authorization ? basicAuth.parse(authorization) : undefined;
  if (!basic) return { outcome: 'absent' };
  try {
    return { outcome: 'present', clientId: formDecode(basic.name), clientSecret: formDecode(basic.pass) };
  } catch (error) {
    if (error instanceof URIError) return { outcome: 'malformed' };
    throw error;
  }
}

/** A Basic header of the decoded id and secret, for readers that do not form-decode. */
export function basicAuthorization(clientId: string, clientSecret: string): string {
  return `Basic ${Buffer.from(`${clientId}:${clientSecret}`, 'utf8').toString('base64')}`;
}

/** The answer to a Basic header whose id or secret is not validly form-encoded. */
export function malformedBasicAnswer(): OAuthAnswer {
  return oauthError(401, 'invalid_client', 'The client id or secret in HTTP Basic is not validly form-encoded (RFC 6749 2.3.1).', BASIC_CHALLENGE);
}
