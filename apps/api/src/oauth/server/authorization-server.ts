import { Injectable } from '@nestjs/common';
import OAuth2Server, { OAuthError, Request as OAuthRequest, Response as OAuthResponse } from '@node-oauth/oauth2-server';
import type { Request } from 'express';
import { newId } from '@app/common';
import { OAuthAnswer, oauthError } from './oauth-answer';
import { OAuthGrantModel, OAuthGrantSubject } from './oauth-grant-model';

export const AUTHORIZATION_CODE_LIFETIME_SECONDS = 60;
export const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;
export const REFRESH_TOKEN_LIFETIME_SECONDS = 30 * 24 * 3600;

function toLibraryRequest(req: Request, body: Record<string, unknown>): OAuthRequest {
  return new OAuthRequest({
    headers: req.headers as Record<string, string>,
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
    });
  }

  /** `POST /oauth/token`: every grant, answered and failed in RFC 6749 form. */
  async token(req: Request): Promise<OAuthAnswer> {
    const response = new OAuthResponse();
    try {
      await this.server.token(toLibraryRequest(req, req.body as Record<string, unknown>), response);
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
