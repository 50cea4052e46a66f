import { Injectable } from '@nestjs/common';
import { OAUTH_ACCESS_TOKEN_PREFIX } from '@app/common';
import { AuthenticatesCredential, bearerToken, CredentialAuthenticator, CredentialCarrier } from '../../auth/credentials/credential-authenticator';
import { PassportStrategyGuard } from '../../auth/credentials/passport-strategy.guard';
import { OAuthTokenStrategy } from './oauth-token.strategy';

/** Runs the OAuth token strategy; its own errors say what was wrong with the token. */
@Injectable()
@AuthenticatesCredential('oauth')
export class OAuthTokenAuthGuard extends PassportStrategyGuard implements CredentialAuthenticator {
  readonly kind = 'oauth';

  constructor(strategy: OAuthTokenStrategy) {
    super(strategy);
  }

  carriedBy(req: CredentialCarrier): string | null {
    return bearerToken(req)?.startsWith(OAUTH_ACCESS_TOKEN_PREFIX) ? 'an OAuth access token' : null;
  }

  protected refusal(): string {
    return 'The OAuth access token is missing or invalid.';
  }
}
