import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { AuthContext, AuthenticationRequiredError } from '@app/common';
import { OAuthGrantRepository } from '@app/database';
import { AuthContextFactory } from '../../auth/auth-context.factory';
import { hashSecret } from '../../auth/opaque-secret';

export const OAUTH_TOKEN_STRATEGY = 'oauth-token';

/** `Authorization: Bearer oat_...`: a live OAuth access token, acting with exactly its scopes. */
@Injectable()
export class OAuthTokenStrategy extends PassportStrategy(Strategy, OAUTH_TOKEN_STRATEGY) {
  constructor(
    private readonly grants: OAuthGrantRepository,
    private readonly contexts: AuthContextFactory,
  ) {
    super();
  }

  async validate(presented: string): Promise<AuthContext> {
    const token = await this.grants.findToken(hashSecret(presented));
    if (!token || token.kind !== 'access') throw new AuthenticationRequiredError('The OAuth access token is not valid.');
    if (token.revokedAt !== null) throw new AuthenticationRequiredError('The OAuth access token has been revoked.');
    if (token.expiresAt.getTime() <= Date.now()) {
      throw new AuthenticationRequiredError('The OAuth access token has expired: refresh it at /oauth/token.');
    }
    return this.contexts.build({
      userId: token.userId,
      credential: 'oauth',
      scopes: token.scopes,
      credentialId: token.id,
      expiresAt: Math.floor(token.expiresAt.getTime() / 1000),
    });
  }
}
