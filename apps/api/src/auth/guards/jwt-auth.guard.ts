import { Injectable } from '@nestjs/common';
import { OAUTH_ACCESS_TOKEN_PREFIX } from '@app/common';
import { AuthenticatesCredential, bearerToken, CredentialAuthenticator, CredentialCarrier } from '../credentials/credential-authenticator';
import { PassportStrategyGuard } from '../credentials/passport-strategy.guard';
import { JwtStrategy } from '../strategies/jwt.strategy';

const JWT_FAILURES: Record<string, string> = {
  TokenExpiredError: 'The access token has expired. Refresh it or log in again.',
  JsonWebTokenError: 'The access token is malformed or its signature is invalid.',
  NotBeforeError: 'The access token is not valid yet.',
};

/** Runs the JWT strategy and turns each failure into a 401 that says what was wrong. */
@Injectable()
@AuthenticatesCredential('jwt')
export class JwtAuthGuard extends PassportStrategyGuard implements CredentialAuthenticator {
  readonly kind = 'jwt';

  constructor(strategy: JwtStrategy) {
    super(strategy);
  }

  /** Any bearer token but an OAuth access token, so that a malformed JWT is answered as one. */
  carriedBy(req: CredentialCarrier): string | null {
    const token = bearerToken(req);
    return token === undefined || token.startsWith(OAUTH_ACCESS_TOKEN_PREFIX) ? null : 'an Authorization Bearer token';
  }

  /** passport-jwt's challenge is jsonwebtoken's error, whose name says what was wrong. */
  protected refusal(info: unknown): string {
    return JWT_FAILURES[info instanceof Error ? info.name : ''] ?? 'The access token is missing or invalid.';
  }
}
