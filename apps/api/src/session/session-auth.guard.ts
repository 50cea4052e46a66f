import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { AuthenticatesCredential, CredentialAuthenticator, CredentialCarrier } from '../auth/credentials/credential-authenticator';
import { PassportStrategyGuard } from '../auth/credentials/passport-strategy.guard';
import { readCookie, sessionCookieName } from './session-cookie';
import { SessionStrategy } from './session.strategy';

/** Runs the session strategy: 401 for a dead session, 403 for a missing CSRF token. */
@Injectable()
@AuthenticatesCredential('session')
export class SessionAuthGuard extends PassportStrategyGuard implements CredentialAuthenticator {
  readonly kind = 'session';

  constructor(
    strategy: SessionStrategy,
    private readonly config: AppConfig,
  ) {
    super(strategy);
  }

  carriedBy(req: CredentialCarrier): string | null {
    const cookies = req.headers.cookie;
    const name = sessionCookieName(this.config);
    return readCookie(Array.isArray(cookies) ? cookies.join('; ') : cookies, name) === undefined ? null : `a ${name} session cookie`;
  }

  protected refusal(): string {
    return 'The session has ended or is not valid. Log in again.';
  }
}
