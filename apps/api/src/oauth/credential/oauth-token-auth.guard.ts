import { Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { AuthContext, AuthenticationRequiredError, OAUTH_ACCESS_TOKEN_PREFIX } from '@app/common';
import { AuthenticatesCredential, bearerToken, CredentialAuthenticator, CredentialCarrier } from '../../auth/credentials/credential-authenticator';
import { OAUTH_TOKEN_STRATEGY } from './oauth-token.strategy';

/** Runs the OAuth token strategy; its own errors say what was wrong with the token. */
@Injectable()
@AuthenticatesCredential('oauth')
export class OAuthTokenAuthGuard extends AuthGuard(OAUTH_TOKEN_STRATEGY) implements CredentialAuthenticator {
  readonly kind = 'oauth';

  carriedBy(req: CredentialCarrier): string | null {
    return bearerToken(req)?.startsWith(OAUTH_ACCESS_TOKEN_PREFIX) ? 'an OAuth access token' : null;
  }

  override handleRequest<TUser = AuthContext>(error: unknown, auth: TUser | false): TUser {
    if (error instanceof Error) throw error;
    if (!auth) throw new AuthenticationRequiredError('The OAuth access token is missing or invalid.');
    return auth;
  }
}
