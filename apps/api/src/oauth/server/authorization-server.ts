import { Injectable } from '@nestjs/common';
import OAuth2Server, { OAuthError, Request as OAuthRequest, Response as OAuthResponse } from '@node-oauth/oauth2-server';
import type { Request } from 'express';
import { newId } from '@app/common';
import { basicAuthorization, malformedBasicAnswer, readBasicClientCredentials } from './client-basic-credentials';
import { OAuthAnswer, oauthError } from './oauth-answer';
import { OAuthGrantModel, OAuthGrantSubject, OFFERED_GRANT_TYPES } from './oauth-grant-model';
import { ScopeCheckedRefreshTokenGrant } from './scope-checked-refresh-grant';

export const AUTHORIZATION_CODE_LIFETIME_SECONDS = 60;
export const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;
export const REFRESH_TOKEN_LIFETIME_SECONDS = 30 * 24 * 3600;

function toLibraryRequest(req: Request, body: Record<string, unknown>, headers = req.headers): OAuthRequest {
  return new OAuthRequest({
    headers: headers as Record<string, string>,
    method: req.method,
    query: req.query as Record<string, string>,
    body,
  });
}

/** What failed under the library's `server_error`, so that a dependency failure is still a 503. */
function innerError(error: OAuthError): unknown {
  return (error as OAuthError & { inner?: unknown }).inner ?? error;
}

/** The grant logic of `@node-oauth/oauth2-server`, behind the two calls the controllers make. */
@Injectable()
export class AuthorizationServer {
  private readonly server: OAuth2Server;

  constructor(model: OAuthGrantModel) {
    this.server = new OAuth2Server({
      model,
      authorizationCodeLifetime: AUTHORIZATION_CODE_LIFETIME_SECONDS,
      accessTokenLifetime: ACCESS_TOKEN_LIFETIME_SECONDS,
      refreshTokenLifetime: REFRESH_TOKEN_LIFETIME_SECONDS,
      allowEmptyState: true,
      // Public clients exchange codes (with PKCE) and refresh tokens by client_id alone;
      // the model still demands a confidential client's secret.
      requireClientAuthentication: { authorization_code: false, refresh_token: false },
      extendedGrantTypes: { refresh_token: ScopeCheckedRefreshTokenGrant },
    });
  }

  /** `POST /oauth/token`: every grant, answered and failed in RFC 6749 form. */
  async token(req: Request): Promise<OAuthAnswer> {
    const body = req.body as Record<string, unknown>;
    // The library knows the password grant, and answers it `unauthorized_client` as a grant this client may not use.
    const grantType = body.grant_type;
    if (typeof grantType === 'string' && grantType !== '' && !OFFERED_GRANT_TYPES.includes(grantType)) {
      return oauthError(400, 'unsupported_grant_type', `Unsupported grant type: this server offers ${OFFERED_GRANT_TYPES.join(', ')}.`);
    }
    const basic = readBasicClientCredentials(req.headers.authorization);
    if (basic.outcome === 'malformed') return malformedBasicAnswer();
    // The library reads Basic credentials without form-decoding them: it is handed them decoded.
    const headers = basic.outcome === 'present' ? { ...req.headers, authorization: basicAuthorization(basic.clientId, basic.clientSecret) } : req.headers;
    const response = new OAuthResponse();
    try {
      await this.server.token(toLibraryRequest(req, body, headers), response);
      return { status: 200, headers: response.headers as Record<string, string>, body: response.body as Record<string, unknown> };
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      if (error.name === 'server_error') throw innerError(error);
      return oauthError(error.code, error.name, error.message, response.headers);
    }
  }

  /**
   * Issues a code for an authorization request the user allowed, and returns where to send
   * the browser: the redirect URI with `code` and `state`, or with `error` and `state`.
   */
  async issueCode(req: Request, params: Record<string, string>, userId: string): Promise<string> {
    const response = new OAuthResponse();
    const subject: OAuthGrantSubject = { id: userId, grantId: newId('ogr') };
    try {
      await this.server.authorize(toLibraryRequest(req, params), response, {
        authenticateHandler: { handle: () => subject },
      });
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      if (error.name === 'server_error') throw innerError(error);
    }
    const location: unknown = response.get('location');
    if (typeof location !== 'string') throw new Error('The authorization server gave no redirect.');
    return location;
  }
}
