import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { AuthenticationRequiredError } from '@app/common';
import { OAuthGrantRepository } from '../oauth-grant.repository';
import { AuthenticatesCredential, CredentialStrategy, ProvenCredential } from '../../auth/credential';
import { hashSecret } from '../../auth/opaque-secret';
import { OAUTH_TOKEN_CREDENTIAL } from './oauth-token.credential';

/** `Authorization: Bearer oat_...`: a live OAuth access token, acting with exactly its scopes. */
@Injectable()
@AuthenticatesCredential()
export class OAuthTokenStrategy extends PassportStrategy(Strategy) implements CredentialStrategy {
  readonly credential = OAUTH_TOKEN_CREDENTIAL;

  constructor(private readonly grants: OAuthGrantRepository) {
    super();
  }

  async validate(presented: string): Promise<ProvenCredential> {
    const token = await this.grants.findToken(hashSecret(presented));
    if (!token || token.kind !== 'access') throw new AuthenticationRequiredError('The OAuth access token is not valid.');
    if (token.revokedAt !== null) throw new AuthenticationRequiredError('The OAuth access token has been revoked.');
    if (token.expiresAt.getTime() <= Date.now()) {
      throw new AuthenticationRequiredError('The OAuth access token has expired: refresh it at /oauth/token.');
    }
    return { userId: token.userId, scopes: token.scopes, credentialId: token.id, expiresAt: Math.floor(token.expiresAt.getTime() / 1000) };
  }
}
