import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { OAuthGrantRepository, OAuthTokenRecord } from '../oauth-grant.repository';
import { hashSecret } from '../../auth/opaque-secret';
import { BASIC_CHALLENGE, malformedBasicAnswer, readBasicClientCredentials } from './client-basic-credentials';
import { NO_STORE, OAuthAnswer, oauthError } from './oauth-answer';
import { OAuthGrantModel, OAuthServerClient } from './oauth-grant-model';

type FormBody = Record<string, unknown>;

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * Revocation (RFC 7009) and introspection (RFC 7662). The caller authenticates as a client, by
 * HTTP Basic or in the body, and may act only on tokens issued to it.
 */
@Injectable()
export class TokenAdministrationService {
  constructor(
    private readonly model: OAuthGrantModel,
    private readonly grants: OAuthGrantRepository,
  ) {}

  async revoke(req: Request): Promise<OAuthAnswer> {
    const { token, refusal } = await this.presentedToken(req);
    if (refusal) return refusal;
    // An unknown token, or another client's, is answered like a revoked one (RFC 7009 2.2).
    if (token && token.revokedAt === null) {
      if (token.kind === 'refresh') await this.grants.revokeGrant(token.grantId);
      else await this.grants.revokeToken(token.id);
    }
    return { status: 200, headers: { ...NO_STORE }, body: {} };
  }

  async introspect(req: Request): Promise<OAuthAnswer> {
    const { token, refusal } = await this.presentedToken(req);
    if (refusal) return refusal;
    if (!token || token.revokedAt !== null || token.expiresAt.getTime() <= Date.now()) {
      return { status: 200, headers: { ...NO_STORE }, body: { active: false } };
    }
    return {
      status: 200,
      headers: { ...NO_STORE },
      body: {
        active: true,
        scope: token.scopes.join(' '),
        client_id: token.clientId,
        sub: token.userId,
        token_type: token.kind === 'access' ? 'Bearer' : 'refresh_token',
        exp: Math.floor(token.expiresAt.getTime() / 1000),
        iat: Math.floor(token.createdAt.getTime() / 1000),
      },
    };
  }

  /** The `token` of the form when the authenticated client holds it; null for any other token. */
  private async presentedToken(req: Request): Promise<{ token: OAuthTokenRecord | null; refusal?: never } | { token?: never; refusal: OAuthAnswer }> {
    const { client, refusal } = await this.authenticateClient(req);
    if (!client) return { refusal };
    const presented = text((req.body as FormBody).token);
    if (!presented) return { refusal: oauthError(400, 'invalid_request', 'Missing parameter: `token`.') };
    const token = await this.grants.findToken(hashSecret(presented));
    return { token: token && token.clientId === client.id ? token : null };
  }

  /** The calling client, or the 401 `invalid_client` answer (RFC 6749 5.2). */
  private async authenticateClient(
    req: Request,
  ): Promise<{ client: OAuthServerClient; refusal?: never } | { client?: never; refusal: OAuthAnswer }> {
    const basic = readBasicClientCredentials(req.headers.authorization);
    if (basic.outcome === 'malformed') return { refusal: malformedBasicAnswer() };
    const body = req.body as FormBody;
    const viaBasic = basic.outcome === 'present';
    const clientId = viaBasic ? basic.clientId : text(body.client_id);
    const clientSecret = viaBasic ? basic.clientSecret : text(body.client_secret);
    const challenge = viaBasic ? BASIC_CHALLENGE : undefined;
    if (!clientId) {
      return { refusal: oauthError(401, 'invalid_client', 'Authenticate the client with HTTP Basic or client_id and client_secret.', challenge) };
    }
    const client = await this.model.getClient(clientId, clientSecret);
    return client ? { client } : { refusal: oauthError(401, 'invalid_client', 'Client authentication failed.', challenge) };
  }
}
